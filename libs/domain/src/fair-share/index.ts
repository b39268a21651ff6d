export * from './fair-share.decide.js';
export * from './fair-share.factor.js';
export * from './fair-share.rank.js';
