export * from './event-store.port.js';
export { SqliteEventStore, type SqliteEventStoreOptions } from './sqlite/sqlite-event-store.js';
export { PostgresEventStore, type PostgresEventStoreOptions } from './postgresql/postgresql-event-store.js';
export { openEventStore, EventStoreUrlError, type EventLog } from './open-event-store.js';
export { takeLeadership, type Leadership, type LeadershipOptions } from './leadership.js';
