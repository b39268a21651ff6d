export * from './usage.fold.js';
export * from './rate-card.js';
export * from './hours.js';
