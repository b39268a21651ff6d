/**
 * Stored event versions (docs/upgrades.md). Every event is stored with the version of its type's
 * shape this build writes; a type absent from STORED_EVENT_VERSIONS is at version 1, and an event
 * stored without a version (before versions were recorded) is version 1. Every adapter's read path
 * hands the stored data through `upcast`, so readers only ever see the current shape.
 *
 * The table lives in the store, not beside each event's type: every adapter reads through it and the
 * store imports nothing above it. Upcasters work on the stored JSON, not on the types of the layers above.
 */

/** Turns the data of one version of a type into the next version's. Pure: old data in, new data out. */
export type Upcaster = (data: unknown) => unknown;

export interface StoredEventVersion {
  /** The version this build writes and its readers fold. */
  readonly current: number;
  /** `upcasters[v]` turns version v into v + 1; one for each version from 1 to current - 1. */
  readonly upcasters: Readonly<Record<number, Upcaster>>;
}

const asRecord = (data: unknown): Record<string, unknown> =>
  typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Record<string, unknown>) : {};

/**
 * Version 1 (commit 03f5b0f) had no lease fields; refusals recorded after it have them, stored at
 * version 1 too until versions were recorded: a field present is kept, an absent one names no lease.
 */
const writeRefusedNamesItsLease: Upcaster = (data) => ({ leaseId: null, leaseName: null, ...asRecord(data) });

/** Every stored type whose shape changed in a way its readers cannot fold as it is. */
export const STORED_EVENT_VERSIONS: Readonly<Record<string, StoredEventVersion>> = {
  'Audit.WriteRefused': { current: 2, upcasters: { 1: writeRefusedNamesItsLease } },
};

/** The version an event of `type` is stored with. */
export const storedVersionOf = (type: string): number => STORED_EVENT_VERSIONS[type]?.current ?? 1;

/**
 * An event of a version newer than this build knows: a later release wrote it in a shape this one
 * cannot fold. Folding it anyway would be a silent wrong state; the reader stops on it, names it, and
 * goes on once upgraded (docs/upgrades.md says when a release may write a new version).
 */
export class EventVersionTooNewError extends Error {
  override readonly name = 'EventVersionTooNewError';

  constructor(
    readonly type: string,
    readonly version: number,
    readonly known: number,
  ) {
    super(`event type ${type} is stored at version ${version}, newer than this build's ${known}: upgrade this process to read it`);
  }
}

/** The data of an event stored at `version`, at its type's current version. */
export const upcast = (type: string, version: number, data: unknown): unknown => {
  const schema = STORED_EVENT_VERSIONS[type];
  const current = schema?.current ?? 1;
  if (version === current) return data;
  if (version > current) throw new EventVersionTooNewError(type, version, current);
  let upcasted = data;
  for (let from = version; from < current; from++) {
    const upcaster = schema?.upcasters[from];
    if (upcaster === undefined) throw new Error(`no upcaster of ${type} from version ${from}`);
    upcasted = upcaster(upcasted);
  }
  return upcasted;
};
