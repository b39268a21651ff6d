export * from './freepool-watch.decide.js';
export * from './freepool-watch.events.js';
