export * from './lease-request.commands.js';
export * from './lease-request.decide.js';
export * from './lease-request.events.js';
export * from './lease-request.state.js';
export * from './lease-request.stream.js';
