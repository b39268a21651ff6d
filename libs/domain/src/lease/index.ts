export * from './lease.commands.js';
export * from './lease.decide.js';
export * from './lease.events.js';
export * from './lease.rules.js';
export * from './lease.schedule.js';
export * from './lease.state.js';
export * from './lease.stream.js';
export * from './lease.types.js';
