export * from './host-activity.commands.js';
export * from './host-activity.decide.js';
export * from './host-activity.events.js';
export * from './host-activity.state.js';
