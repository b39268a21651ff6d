export type { Projection } from './projection.js';
export { BatchRows, TableRows, AddedRows } from './batch-rows.js';
export * from './projections/index.js';
export * from './projection-runner.js';
export * from './dump-read-model.js';
export * from './rebuild-read-model.js';
export * from './projection-batch.js';
export * from './verify-read-model.js';
