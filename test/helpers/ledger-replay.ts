import { join } from 'node:path';
import {
  type Hold,
  type HostTotals,
  type LedgerEvent,
  type LedgerFold,
  foldLedger,
  ledgerHead,
  readLedger,
} from '../../bench/ledger-audit.js';
import type { JsonResponse } from './http.js';

/**
 * The concurrency tests' two views of the calendars: the API's (leases, allocations, hosts) and an
 * independent replay of the raw log (bench/ledger-audit.ts, which the bench shares).
 */
export * from '../../bench/ledger-audit.js';

export const ledgerFile = (dataDir: string): string => join(dataDir, 'events.sqlite');

export const replayLedger = (dataDir: string): { events: LedgerEvent[]; fold: LedgerFold } => {
  const events = readLedger(ledgerFile(dataDir));
  return { events, fold: foldLedger(events) };
};

/** Header that makes a read wait until the read models include every event written so far. */
export const upToDate = (dataDir: string): Record<string, string> => ({
  'X-Leasehold-Min-Position': String(ledgerHead(ledgerFile(dataDir))),
});

/** A GET that must be served from read models that include `headers`' position. */
export const freshBody = (response: JsonResponse): any => {
  if (response.status !== 200) throw new Error(`GET answered ${response.status}: ${JSON.stringify(response.body)}`);
  if (response.headers.get('x-leasehold-stale') !== null) throw new Error('read served before the projector caught up');
  return response.body;
};

export interface AllocationEntry {
  readonly resource_id: string;
  readonly reservations: readonly { id: string; lease_id: string; start_date: string; end_date: string }[];
}

/** Epoch ms of Blazar's `YYYY-MM-DDTHH:MM:SS.ffffff` (UTC). */
export const blazarMs = (value: string): number => Date.parse(`${value}Z`);

/** Host sizes as `GET /v1/os-hosts` shows them. */
export const hostTotalsOf = (
  hosts: readonly { id: string; vcpus: number; memory_mb: number; local_gb: number }[],
): Map<string, HostTotals> => new Map(hosts.map((h) => [h.id, { vcpus: h.vcpus, memoryMb: h.memory_mb, localGb: h.local_gb }]));

/** Every reservation of the listed leases by id (`GET /v1/leases` details). */
export const reservationsById = (leases: readonly { reservations: readonly any[] }[]): Map<string, any> =>
  new Map(leases.flatMap((lease) => lease.reservations.map((r) => [r.id as string, r] as const)));

/**
 * The hosts' holds as the API shows them: the allocations give host, reservation and interval, the
 * lease details give the reservation's type and instance size; allocations carry no slot counts, so
 * the count per host comes from the log (`slotCounts`: host id -> reservation id -> count).
 */
export const apiHostHolds = (
  allocations: readonly AllocationEntry[],
  reservations: ReadonlyMap<string, any>,
  slotCounts: ReadonlyMap<string, ReadonlyMap<string, number>>,
): { holds: Hold[]; problems: string[] } => {
  const holds: Hold[] = [];
  const problems: string[] = [];
  for (const { resource_id: hostId, reservations: held } of allocations) {
    for (const allocation of held) {
      const reservation = reservations.get(allocation.id);
      const common = {
        resourceId: hostId,
        reservationId: allocation.id,
        leaseId: allocation.lease_id,
        start: blazarMs(allocation.start_date),
        end: blazarMs(allocation.end_date),
      };
      if (reservation === undefined) {
        problems.push(`allocation of host ${hostId} names reservation ${allocation.id}, which no lease shows`);
      } else if (reservation.resource_type === 'physical:host') {
        holds.push({ ...common, slots: null });
      } else {
        const count = slotCounts.get(hostId)?.get(allocation.id);
        if (count === undefined) problems.push(`the log has no slots of reservation ${allocation.id} on host ${hostId}`);
        holds.push({
          ...common,
          slots: { count: count ?? 0, vcpus: reservation.vcpus, memoryMb: reservation.memory_mb, diskGb: reservation.disk_gb },
        });
      }
    }
  }
  return { holds, problems };
};

/** Floating IPs' holds as `GET /v1/floatingips/allocations` shows them. */
export const apiAddressHolds = (allocations: readonly AllocationEntry[]): Hold[] =>
  allocations.flatMap(({ resource_id, reservations }) =>
    reservations.map((r) => ({
      resourceId: resource_id,
      reservationId: r.id,
      leaseId: r.lease_id,
      start: blazarMs(r.start_date),
      end: blazarMs(r.end_date),
      slots: null,
    })),
  );

/** host id -> reservation id -> slot count, from the replayed log. */
export const slotCountsOf = (fold: LedgerFold): Map<string, Map<string, number>> =>
  new Map(
    [...fold.hostHolds].map(([hostId, holds]) => [
      hostId,
      new Map([...holds.values()].flatMap((h) => (h.slots === null ? [] : [[h.reservationId, h.slots.count] as const]))),
    ]),
  );
