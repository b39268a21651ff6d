export * from './flavor-catalog.js';
export * from './flavor.types.js';
