export * from './flavor-catalog.js';
export * from './flavor.types.js';
export * from './flavor-visibility.rules.js';
