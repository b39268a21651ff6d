import type { FieldChange, HistoryEntry } from './history-entry.js';

type PublicFields = Readonly<Record<string, unknown>>;

/** The lease fields its changes state in full, in the order a reader expects them. */
const LEASE_FIELDS = ['name', 'start_date', 'end_date', 'before_end_date'];

/** Reservation fields that say which one it is, not what it holds. */
const RESERVATION_IDENTITY = new Set(['id', 'resource_type']);

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

const diff = (before: PublicFields, after: PublicFields, fields: readonly string[]): FieldChange[] =>
  fields
    .filter((field) => field in after && !same(before[field], after[field]))
    .map((field) => ({ field, before: before[field], after: after[field] }));

const shown = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

const described = (entry: HistoryEntry, changes: readonly FieldChange[]): HistoryEntry & { readonly changes: readonly FieldChange[] } => ({
  ...entry,
  summary:
    changes.length === 0
      ? entry.summary
      : `${entry.summary}: ${changes.map((c) => `${c.field} ${shown(c.before)} -> ${shown(c.after)}`).join(', ')}`,
  changes,
});

const reservationOf = (entry: HistoryEntry): PublicFields => entry.data['reservation'] as PublicFields;

/**
 * What each change of one lease changed, entry by entry in log order: its events state the lease's and a
 * reservation's new values only, so the values before are those of the entries before it.
 */
export class ChangeTracker {
  private lease: PublicFields = {};
  private readonly reservations = new Map<string, PublicFields>();

  /** The entry, with `changes` (and its summary ending with them) when it changes the lease or a reservation. */
  describe(entry: HistoryEntry): HistoryEntry {
    switch (entry.type) {
      case 'lease.created':
        this.lease = entry.data;
        for (const reservation of entry.data['reservations'] as readonly PublicFields[])
          this.reservations.set(String(reservation['id']), reservation);
        return entry;
      case 'lease.renamed':
      case 'lease.rescheduled': {
        const changes = diff(this.lease, entry.data, LEASE_FIELDS);
        this.lease = { ...this.lease, ...entry.data };
        return described(entry, changes);
      }
      case 'reservation.changed':
      case 'reservation.healed': {
        const after = reservationOf(entry);
        const id = String(after['id']);
        const changes = diff(
          this.reservations.get(id) ?? {},
          after,
          Object.keys(after).filter((field) => !RESERVATION_IDENTITY.has(field)),
        );
        this.reservations.set(id, after);
        return described(entry, changes);
      }
      default:
        return entry;
    }
  }
}

/** A lease's whole history, each change saying what it changed. */
export const withChanges = (entries: readonly HistoryEntry[]): HistoryEntry[] => {
  const tracker = new ChangeTracker();
  return entries.map((entry) => tracker.describe(entry));
};
