import type { MikroORM } from '@mikro-orm/core';
import { AvailabilityIntervalEntity, HostEntity, LeaseEntity, ReservationEntity } from './entities.js';
import { type HostView, withHealthDefaults } from './host-view.js';
import type { BlazarLeaseStatus } from './lease-view.js';

const LEASE_STATUSES: readonly BlazarLeaseStatus[] = ['PENDING', 'STARTING', 'ACTIVE', 'TERMINATING', 'TERMINATED', 'ERROR'];

/** One availability zone's freepool: hosts that take bookings, and how many of them nothing holds. */
export interface ZoneCapacity {
  readonly zone: string;
  /** Registered hosts that are reservable and up. */
  readonly hosts: number;
  /** Of those, hosts with no booking (whole or slots) at `now`. */
  readonly freeNow: number;
  /** Of those, hosts with no booking anywhere in [now, now + window). */
  readonly freeWindow: number;
  /** Registered hosts their monitor reports down. */
  readonly down: number;
}

const takesBookings = (host: HostView): boolean => host.reservable && host.health_status === 'up';

const zoneOf = (zones: Map<string, { hosts: number; freeNow: number; freeWindow: number; down: number }>, zone: string) => {
  const found = zones.get(zone) ?? { hosts: 0, freeNow: 0, freeWindow: 0, down: 0 };
  zones.set(zone, found);
  return found;
};

/** Counts over the read models for the metrics: each call on its own EntityManager fork. */
export class ReadModelCensus {
  constructor(private readonly orm: MikroORM) {}

  async leasesByStatus(): Promise<ReadonlyMap<BlazarLeaseStatus, number>> {
    const em = this.orm.em.fork();
    const counts = await Promise.all(LEASE_STATUSES.map((status) => em.count(LeaseEntity, { status })));
    return new Map(LEASE_STATUSES.map((status, i) => [status, counts[i] ?? 0]));
  }

  async activeReservationsByType(): Promise<ReadonlyMap<string, number>> {
    const rows = await this.orm.em.fork().find(ReservationEntity, { status: 'active' }, { fields: ['resourceType'] });
    const counts = new Map<string, number>();
    for (const row of rows) counts.set(row.resourceType, (counts.get(row.resourceType) ?? 0) + 1);
    return counts;
  }

  /** Per zone; the calendar is the one reservations are admitted against (lh_availability), without the cleaning time. */
  async freepool(nowMs: number, windowMs: number): Promise<ZoneCapacity[]> {
    const em = this.orm.em.fork();
    const hosts = (await em.find(HostEntity, {}, { fields: ['id', 'doc'] })).map((row) => ({
      id: row.id,
      view: withHealthDefaults(row.doc),
    }));
    const bookings = await em.find(
      AvailabilityIntervalEntity,
      { resourceKind: 'host', startMs: { $lt: nowMs + windowMs }, endMs: { $gt: nowMs } },
      { fields: ['resourceId', 'startMs'] },
    );
    const heldInWindow = new Set(bookings.map((b) => b.resourceId));
    const heldNow = new Set(bookings.filter((b) => b.startMs <= nowMs).map((b) => b.resourceId));
    const zones = new Map<string, { hosts: number; freeNow: number; freeWindow: number; down: number }>();
    for (const { id, view } of hosts) {
      const zone = zoneOf(zones, view.availability_zone);
      if (view.health_status === 'down') zone.down += 1;
      if (!takesBookings(view)) continue;
      zone.hosts += 1;
      if (!heldNow.has(id)) zone.freeNow += 1;
      if (!heldInWindow.has(id)) zone.freeWindow += 1;
    }
    return [...zones].map(([zone, counts]) => ({ zone, ...counts }));
  }
}
