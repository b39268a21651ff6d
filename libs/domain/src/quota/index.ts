export * from './quota.types.js';
export * from './quota.rules.js';
export * from './quota.decide.js';
export * from './lease-holding.js';
export * from './quota-catalogue.js';
