export * from './shared/decider.js';
export * from './shared/errors.js';
export * from './shared/interval.js';
export * from './host/index.js';
export * from './host-registry/host-registry.js';
export * from './lease/index.js';
export * from './resource-property/resource-property.js';
