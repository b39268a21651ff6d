export * from './floating-ip.commands.js';
export * from './floating-ip.decide.js';
export * from './floating-ip.events.js';
export { floatingIpHoldsOf } from './floating-ip.maintenance.js';
export * from './floating-ip.state.js';
export * from './floating-ip.stream.js';
export * from './floating-ip-registry.js';
export * from './floating-ip.types.js';
