import { join } from 'node:path';
import Database from 'better-sqlite3';

/** Shared by the `api-*.e2e.spec.ts` files: Blazar formats, dates and a direct look at the ledger. */

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** The body of a 403 the policy gave (Blazar's error body, oslo.policy's message). */
export const policyDenied = (action: string) => ({
  error_code: 403,
  error_name: 403,
  error_message: `Policy doesn't allow ${action} to be performed`,
});

export const REQUEST_ID = /^req-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** created_at/updated_at of rows: Python's `isoformat(' ')`, microseconds only when non-zero. */
export const TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{6})?$/;
/** Lease/event/allocation dates and resource-property timestamps: `%Y-%m-%dT%H:%M:%S.%f`. */
export const T_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}$/;

/**
 * Upstream's key order (capture #5/#8, #19); JSON keeps it, so clients and diffs see it. Leasehold's
 * host health follows, before the extra capabilities.
 */
export const HOST_KEYS = [
  'created_at',
  'updated_at',
  'id',
  'vcpus',
  'cpu_info',
  'hypervisor_type',
  'hypervisor_version',
  'hypervisor_hostname',
  'service_name',
  'memory_mb',
  'local_gb',
  'status',
  'availability_zone',
  'trust_id',
  'reservable',
  'health_status',
  'health_reasons',
  'health_since',
  'health_monitor',
];
export const LEASE_KEYS = [
  'created_at',
  'updated_at',
  'id',
  'name',
  'user_id',
  'project_id',
  'start_date',
  'end_date',
  'trust_id',
  'status',
  'degraded',
  'reservations',
  'events',
];
export const RESERVATION_KEYS = [
  'created_at',
  'updated_at',
  'id',
  'lease_id',
  'resource_id',
  'resource_type',
  'status',
  'missing_resources',
  'resources_changed',
  'hypervisor_properties',
  'resource_properties',
  'before_end',
  'min',
  'max',
  'end_action',
];
export const EVENT_KEYS = ['created_at', 'updated_at', 'id', 'lease_id', 'event_type', 'time', 'status'];

/** `YYYY-MM-DD HH:MM` (UTC) `daysAhead` days from today at the given wall-clock time. */
export const dayAt = (daysAhead: number, time: string): string =>
  `${new Date(Date.now() + daysAhead * 86_400_000).toISOString().slice(0, 10)} ${time}`;

/** A request date (`YYYY-MM-DD HH:MM`) as Blazar prints it back (`YYYY-MM-DDTHH:MM:00.000000`). */
export const tDate = (requestDate: string): string => `${requestDate.replace(' ', 'T')}:00.000000`;

/** Shifts a request date by whole minutes. */
export const addMinutes = (requestDate: string, minutes: number): string =>
  new Date(Date.parse(`${requestDate.replace(' ', 'T')}:00Z`) + minutes * 60_000).toISOString().slice(0, 16).replace('T', ' ');

/** Epoch ms of a Blazar T-format date. */
export const tDateMs = (value: string): number => Date.parse(`${value}Z`);

/** A physical:host reservation for exactly the host with this hypervisor hostname. */
export const pinnedHost = (hostname: string, min = 1, max = min, extra: Record<string, unknown> = {}) => ({
  resource_type: 'physical:host',
  min,
  max,
  hypervisor_properties: JSON.stringify(['==', '$hypervisor_hostname', hostname]),
  resource_properties: '',
  ...extra,
});

/** A physical:host reservation for hosts whose extra capability `key` equals `value`. */
export const hostsWith = (key: string, value: string, min = 1, max = min) => ({
  resource_type: 'physical:host',
  min,
  max,
  hypervisor_properties: '',
  resource_properties: JSON.stringify(['==', `$${key}`, value]),
});

/** Reads the system's SQLite ledger straight from its file (read-only). */
const readLedger = <T>(dataDir: string, read: (db: Database.Database) => T): T => {
  const db = new Database(join(dataDir, 'events.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
};

/** Number of events in the ledger. */
export const ledgerCount = (dataDir: string): number =>
  readLedger(dataDir, (db) => (db.prepare('select count(*) as n from events').get() as { n: number }).n);

/** The newest position in the ledger (0 when empty). */
export const ledgerHead = (dataDir: string): number =>
  readLedger(dataDir, (db) => (db.prepare('select coalesce(max(position), 0) as head from events').get() as { head: number }).head);

export interface LoggedEvent {
  readonly streamId: string;
  readonly type: string;
  readonly data: any;
}

/** Every event of the ledger in log order: what a replay folds. */
export const wholeLedger = (dataDir: string): LoggedEvent[] =>
  readLedger(dataDir, (db) =>
    (
      db.prepare('select stream_id, type, data from events order by position').all() as { stream_id: string; type: string; data: string }[]
    ).map((row) => ({ streamId: row.stream_id, type: row.type, data: JSON.parse(row.data) })),
  );

/** The common reservation fields, then the instance plugin's columns (upstream's instance_reservations order). */
export const INSTANCE_RESERVATION_KEYS = [
  'created_at',
  'updated_at',
  'id',
  'lease_id',
  'resource_id',
  'resource_type',
  'status',
  'missing_resources',
  'resources_changed',
  'vcpus',
  'memory_mb',
  'disk_gb',
  'amount',
  'affinity',
  'resource_properties',
  'flavor_id',
  'aggregate_id',
  'server_group_id',
  'end_action',
];
/** The common reservation fields, then the floating-IP plugin's. */
export const FLOATINGIP_RESERVATION_KEYS = [
  'created_at',
  'updated_at',
  'id',
  'lease_id',
  'resource_id',
  'resource_type',
  'status',
  'missing_resources',
  'resources_changed',
  'network_id',
  'amount',
  'required_floatingips',
  'end_action',
];
/** A registered floating IP: the row's timestamps first, then its columns. */
export const FLOATINGIP_KEYS = ['created_at', 'updated_at', 'id', 'floating_network_id', 'subnet_id', 'floating_ip_address', 'reservable'];

export interface LedgerEvent {
  readonly position: number;
  /** When the store recorded it (ISO-8601 UTC). */
  readonly recordedAt: string;
  readonly type: string;
  readonly data: any;
  readonly metadata: any;
}

/** The events of one stream (e.g. `lease-<id>`), read straight from the system's SQLite file (read-only). */
export const ledgerEvents = (dataDir: string, streamId: string): LedgerEvent[] => {
  const db = new Database(join(dataDir, 'events.sqlite'), { readonly: true, fileMustExist: true });
  try {
    const rows = db
      .prepare('select position, recorded_at, type, data, metadata from events where stream_id = ? order by position')
      .all(streamId) as {
      position: number;
      recorded_at: string;
      type: string;
      data: string;
      metadata: string;
    }[];
    return rows.map((row) => ({
      position: row.position,
      recordedAt: row.recorded_at,
      type: row.type,
      data: JSON.parse(row.data),
      metadata: JSON.parse(row.metadata),
    }));
  } finally {
    db.close();
  }
};
