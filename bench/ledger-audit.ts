import Database from 'better-sqlite3';

/**
 * An auditor's reading of the ledger, shared by the bench and the concurrency e2e tests: it reads
 * the SQLite event store as raw rows and folds the booking events with its own code, so a bug in the
 * production deciders cannot hide itself from the check.
 */

export interface LedgerEvent {
  readonly position: number;
  readonly streamId: string;
  readonly type: string;
  readonly data: any;
}

/** Every event of the store, in log order (opened read-only: the system may still be running). */
export const readLedger = (file: string): LedgerEvent[] => {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare('select position, stream_id, type, data from events order by position').all() as {
      position: number;
      stream_id: string;
      type: string;
      data: string;
    }[];
    return rows.map((row) => ({ position: row.position, streamId: row.stream_id, type: row.type, data: JSON.parse(row.data) }));
  } finally {
    db.close();
  }
};

/** Last position of the log (what a read must wait for to see every write). */
export const ledgerHead = (file: string): number => {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('select coalesce(max(position), 0) as head from events').get() as { head: number }).head;
  } finally {
    db.close();
  }
};

export interface SlotSize {
  readonly vcpus: number;
  readonly memoryMb: number;
  readonly diskGb: number;
}

export interface Slots extends SlotSize {
  readonly count: number;
}

/** One reservation's hold on one resource (host or floating IP) over [start, end) epoch ms. */
export interface Hold {
  readonly resourceId: string;
  readonly reservationId: string;
  readonly leaseId: string;
  readonly start: number;
  readonly end: number;
  /** Instance slots held; null: the whole host (and always null for floating IPs). */
  readonly slots: Slots | null;
}

export interface HostTotals {
  readonly vcpus: number;
  readonly memoryMb: number;
  readonly localGb: number;
}

export interface Ratios {
  readonly cpu: number;
  readonly ram: number;
  readonly disk: number;
}

export interface LedgerLease {
  readonly leaseId: string;
  readonly startDate: string;
  readonly endDate: string;
  /** As recorded (Lease.Created, then each Reservation.Changed or .Healed): raw event data. */
  readonly reservations: readonly any[];
  readonly deleted: boolean;
}

export interface LedgerFold {
  readonly hosts: Map<string, HostTotals>;
  /** host id -> reservation id -> hold */
  readonly hostHolds: Map<string, Map<string, Hold>>;
  readonly floatingIps: Map<string, { readonly networkId: string; readonly address: string }>;
  /** floating IP id -> reservation id -> hold */
  readonly ipHolds: Map<string, Map<string, Hold>>;
  /** Registered network segments: type, physical network and id. */
  readonly segments: Map<
    string,
    { readonly networkType: string; readonly physicalNetwork: string | null; readonly segmentId: number | null }
  >;
  /** network segment id -> reservation id -> hold */
  readonly segmentHolds: Map<string, Map<string, Hold>>;
  readonly leases: Map<string, LedgerLease>;
  /** Booking events found outside their resource's own stream (the stream the append guards). */
  readonly misfiled: string[];
}

const holdsOf = (all: Map<string, Map<string, Hold>>, id: string): Map<string, Hold> => {
  const existing = all.get(id);
  if (existing !== undefined) return existing;
  const fresh = new Map<string, Hold>();
  all.set(id, fresh);
  return fresh;
};

const slotsOf = (raw: any): Slots => ({ count: raw.count, vcpus: raw.vcpus, memoryMb: raw.memoryMb, diskGb: raw.diskGb });

const hold = (resourceId: string, data: any, slots: Slots | null): Hold => ({
  resourceId,
  reservationId: data.reservationId,
  leaseId: data.leaseId,
  start: Date.parse(data.startDate),
  end: Date.parse(data.endDate),
  slots,
});

const moved = (current: Hold | undefined, data: any, slots: Slots | null | undefined): Hold | undefined =>
  current === undefined
    ? undefined
    : { ...current, start: Date.parse(data.startDate), end: Date.parse(data.endDate), slots: slots === undefined ? current.slots : slots };

const foldHost = (fold: LedgerFold, event: LedgerEvent): void => {
  const { data } = event;
  const hostId: string = data.hostId;
  if (event.streamId !== `host-${hostId}`) fold.misfiled.push(`${event.type} of host ${hostId} in ${event.streamId} at ${event.position}`);
  const holds = holdsOf(fold.hostHolds, hostId);
  switch (event.type) {
    case 'Host.Registered':
      fold.hosts.set(hostId, { vcpus: data.info.vcpus, memoryMb: data.info.memoryMb, localGb: data.info.localGb });
      return;
    case 'Host.Unregistered':
      fold.hosts.delete(hostId);
      return;
    case 'Host.Booked':
      holds.set(data.reservationId, hold(hostId, data, null));
      return;
    case 'Host.SlotsBooked':
      holds.set(data.reservationId, hold(hostId, data, slotsOf(data.slots)));
      return;
    case 'Host.BookingMoved':
    case 'Host.SlotsMoved': {
      const next = moved(holds.get(data.reservationId), data, event.type === 'Host.SlotsMoved' ? slotsOf(data.slots) : undefined);
      if (next === undefined) fold.misfiled.push(`${event.type} of unknown booking ${data.reservationId} on host ${hostId}`);
      else holds.set(data.reservationId, next);
      return;
    }
    case 'Host.BookingReleased':
      holds.delete(data.reservationId);
      return;
    default:
      return;
  }
};

/**
 * A resource booked whole by one reservation at a time (a floating IP, a network segment): its `<prefix>.Registered`,
 * `.Unregistered`, `.Booked`, `.BookingMoved` and `.BookingReleased` in the stream `<category>-<id>`, read here without
 * the code that wrote them.
 */
interface ExclusiveKind<R> {
  readonly prefix: string;
  readonly category: string;
  readonly idField: string;
  readonly noun: string;
  registry(fold: LedgerFold): Map<string, R>;
  holds(fold: LedgerFold): Map<string, Map<string, Hold>>;
  registered(data: any): R;
}

const foldExclusive =
  <R>(kind: ExclusiveKind<R>) =>
  (fold: LedgerFold, event: LedgerEvent): void => {
    const { data } = event;
    const id: string = data[kind.idField];
    if (event.streamId !== `${kind.category}-${id}`)
      fold.misfiled.push(`${event.type} of ${kind.noun} ${id} in ${event.streamId} at ${event.position}`);
    const holds = holdsOf(kind.holds(fold), id);
    switch (event.type.slice(kind.prefix.length + 1)) {
      case 'Registered':
        kind.registry(fold).set(id, kind.registered(data));
        return;
      case 'Unregistered':
        kind.registry(fold).delete(id);
        return;
      case 'Booked':
        holds.set(data.reservationId, hold(id, data, null));
        return;
      case 'BookingMoved': {
        const next = moved(holds.get(data.reservationId), data, null);
        if (next === undefined) fold.misfiled.push(`${event.type} of unknown booking ${data.reservationId} on ${kind.noun} ${id}`);
        else holds.set(data.reservationId, next);
        return;
      }
      case 'BookingReleased':
        holds.delete(data.reservationId);
        return;
      default:
        return;
    }
  };

const foldFloatingIp = foldExclusive({
  prefix: 'FloatingIp',
  category: 'floatingip',
  idField: 'floatingIpId',
  noun: 'floating IP',
  registry: (fold) => fold.floatingIps,
  holds: (fold) => fold.ipHolds,
  registered: (data) => ({ networkId: data.networkId, address: data.address }),
});

const foldNetworkSegment = foldExclusive({
  prefix: 'NetworkSegment',
  category: 'network',
  idField: 'networkId',
  noun: 'network segment',
  registry: (fold) => fold.segments,
  holds: (fold) => fold.segmentHolds,
  registered: (data) => ({ networkType: data.networkType, physicalNetwork: data.physicalNetwork, segmentId: data.segmentId }),
});

const foldLease = (fold: LedgerFold, event: LedgerEvent): void => {
  const { data } = event;
  const lease = fold.leases.get(data.leaseId);
  switch (event.type) {
    case 'Lease.Created':
      fold.leases.set(data.leaseId, {
        leaseId: data.leaseId,
        startDate: data.startDate,
        endDate: data.endDate,
        reservations: data.reservations,
        deleted: false,
      });
      return;
    case 'Lease.Rescheduled':
      if (lease !== undefined) fold.leases.set(data.leaseId, { ...lease, startDate: data.startDate, endDate: data.endDate });
      return;
    case 'Reservation.Changed':
    case 'Reservation.Healed':
      if (lease !== undefined) {
        const reservations = lease.reservations.map((r) => (r.id === data.reservation.id ? data.reservation : r));
        fold.leases.set(data.leaseId, { ...lease, reservations });
      }
      return;
    case 'Lease.Deleted':
      if (lease !== undefined) fold.leases.set(data.leaseId, { ...lease, deleted: true });
      return;
    default:
      return;
  }
};

/** Folds the whole log into hosts, floating IPs, network segments, their holds and the leases. */
export const foldLedger = (events: readonly LedgerEvent[]): LedgerFold => {
  const fold: LedgerFold = {
    hosts: new Map(),
    hostHolds: new Map(),
    floatingIps: new Map(),
    ipHolds: new Map(),
    segments: new Map(),
    segmentHolds: new Map(),
    leases: new Map(),
    misfiled: [],
  };
  for (const event of events) {
    if (event.type.startsWith('Host.')) foldHost(fold, event);
    else if (event.type.startsWith('FloatingIp.')) foldFloatingIp(fold, event);
    else if (event.type.startsWith('NetworkSegment.')) foldNetworkSegment(fold, event);
    else if (event.type.startsWith('Lease.') || event.type.startsWith('Reservation.')) foldLease(fold, event);
  }
  return fold;
};

/** Every hold of a fold's calendars, flattened. */
export const allHolds = (calendars: ReadonlyMap<string, ReadonlyMap<string, Hold>>): Hold[] =>
  [...calendars.values()].flatMap((m) => [...m.values()]);

/** Placement's capacity: raw totals times the allocation ratios, rounded down. */
export const capacityOf = (totals: HostTotals, ratios: Ratios): SlotSize => ({
  vcpus: Math.floor(totals.vcpus * ratios.cpu),
  memoryMb: Math.floor(totals.memoryMb * ratios.ram),
  diskGb: Math.floor(totals.localGb * ratios.disk),
});

export interface OverCapacity {
  readonly hostId: string;
  readonly at: string;
  readonly used: SlotSize;
  readonly capacity: SlotSize;
}

const RESOURCES = ['vcpus', 'memoryMb', 'diskGb'] as const;

/**
 * Every (host, instant) where the instance slots held exceed the host's capacity: usage is a step
 * function that only changes where a hold starts or ends, so checking those instants checks all.
 */
export const overCapacityInstants = (hosts: ReadonlyMap<string, HostTotals>, holds: readonly Hold[], ratios: Ratios): OverCapacity[] => {
  const found: OverCapacity[] = [];
  const byHost = new Map<string, Hold[]>();
  for (const h of holds) if (h.slots !== null && h.start < h.end) byHost.set(h.resourceId, [...(byHost.get(h.resourceId) ?? []), h]);
  for (const [hostId, list] of byHost) {
    const totals = hosts.get(hostId);
    const capacity = totals === undefined ? { vcpus: 0, memoryMb: 0, diskGb: 0 } : capacityOf(totals, ratios);
    const instants = [...new Set(list.flatMap((h) => [h.start, h.end]))].sort((a, b) => a - b);
    for (const at of instants) {
      const used = { vcpus: 0, memoryMb: 0, diskGb: 0 };
      for (const h of list) {
        if (h.start <= at && at < h.end && h.slots !== null) for (const r of RESOURCES) used[r] += h.slots.count * h.slots[r];
      }
      if (RESOURCES.some((r) => used[r] > capacity[r])) found.push({ hostId, at: new Date(at).toISOString(), used, capacity });
    }
  }
  return found;
};

const clash = (a: Hold, b: Hold, marginMs: number): boolean => a.start - marginMs < b.end && b.start < a.end + marginMs;

/** Pairs of holds on one resource that may not share it: any pair involving a whole-host (or floating-IP) hold, within the margin. */
const exclusiveClashes = (holds: readonly Hold[], marginMs: number, exclusive: (h: Hold) => boolean): string[] => {
  const byResource = new Map<string, Hold[]>();
  for (const h of holds) byResource.set(h.resourceId, [...(byResource.get(h.resourceId) ?? []), h]);
  const found: string[] = [];
  for (const [resourceId, list] of byResource) {
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length; j++) {
        const [a, b] = [list[i]!, list[j]!];
        if ((exclusive(a) || exclusive(b)) && clash(a, b, marginMs)) {
          found.push(
            `${resourceId}: ${a.reservationId} [${new Date(a.start).toISOString()}, ${new Date(a.end).toISOString()}) and ${b.reservationId} [${new Date(b.start).toISOString()}, ${new Date(b.end).toISOString()})`,
          );
        }
      }
    }
  }
  return found;
};

/** A host reserved whole while another reservation (whole or slots) holds it within the cleaning time. */
export const wholeHostClashes = (holds: readonly Hold[], cleaningMs: number): string[] =>
  exclusiveClashes(holds, cleaningMs, (h) => h.slots === null);

/** A floating IP held by two reservations within the cleaning time of each other. */
export const doubleBookedAddresses = (holds: readonly Hold[], cleaningMs: number): string[] =>
  exclusiveClashes(holds, cleaningMs, () => true);

/** A canonical, sortable text of holds, to compare two views of the same calendars. */
export const holdKeys = (holds: readonly Hold[]): string[] =>
  holds
    .map((h) => {
      const slots = h.slots === null ? 'whole' : `${h.slots.count}x${h.slots.vcpus}/${h.slots.memoryMb}/${h.slots.diskGb}`;
      return `${h.resourceId} ${h.reservationId} ${h.leaseId} ${new Date(h.start).toISOString()} ${new Date(h.end).toISOString()} ${slots}`;
    })
    .sort();
