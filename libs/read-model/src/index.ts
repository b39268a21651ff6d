export * from './blazar-format.js';
export * from './entities.js';
export * from './flavor-view.js';
export * from './floating-ip-view.js';
export * from './host-view.js';
export * from './lease-view.js';
export * from './orm-config.js';
export * from './read-models.js';
