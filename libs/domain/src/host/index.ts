export * from './host.commands.js';
export * from './host.decide.js';
export * from './host.errors.js';
export * from './host.events.js';
export * from './host.state.js';
export * from './host.stream.js';
export * from './host.types.js';
export * from './host.capacity.js';
export { holdsOf, longestHoldMs } from './host.maintenance.js';
