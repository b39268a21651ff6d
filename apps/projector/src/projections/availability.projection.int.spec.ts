import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MikroORM } from '@mikro-orm/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RecordedEvent } from '#event-store/event-store.port.js';
import { ReadModelQueries, openReadModel } from '#read-model/index.js';
import { projectBatch } from '../projection-batch.js';
import { availabilityProjection } from './availability.projection.js';

const at = (hour: number): string => `2030-01-01T${String(hour).padStart(2, '0')}:00:00.000Z`;
const ms = (hour: number): number => Date.parse(at(hour));

let position = 0;
const recorded = (streamId: string, type: string, data: Record<string, unknown>): RecordedEvent =>
  ({ id: `e-${++position}`, streamId, revision: 0, position, type, data, metadata: {}, recordedAt: at(0) }) as unknown as RecordedEvent;

const hostBooked = (hostId: string, reservationId: string, start: number, end: number) =>
  recorded(`host-${hostId}`, 'Host.Booked', {
    hostId,
    reservationId,
    leaseId: `l-${reservationId}`,
    startDate: at(start),
    endDate: at(end),
    propertyNames: [],
  });

describe('the availability read model (lh_availability)', () => {
  let dir: string;
  let orm: MikroORM;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lh-availability-'));
    orm = await openReadModel({ kind: 'sqlite', file: join(dir, 'read-model.sqlite') });
  });

  afterEach(async () => {
    await orm.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("holds each resource's bookings as they are booked, moved and released, and finds those near a window", async () => {
    await projectBatch(
      orm,
      [availabilityProjection],
      [
        hostBooked('1', 'r1', 8, 10),
        hostBooked('1', 'r2', 12, 14),
        hostBooked('2', 'r3', 10, 11),
        recorded('host-2', 'Host.SlotsBooked', {
          hostId: '2',
          reservationId: 'r4',
          leaseId: 'l-r4',
          startDate: at(15),
          endDate: at(16),
          propertyNames: [],
          slots: { count: 2, vcpus: 1, memoryMb: 512, diskGb: 5 },
        }),
        recorded('floatingip-f1', 'FloatingIp.Booked', {
          floatingIpId: 'f1',
          reservationId: 'r5',
          leaseId: 'l-r5',
          startDate: at(9),
          endDate: at(11),
        }),
        recorded('host-1', 'Host.BookingMoved', {
          hostId: '1',
          reservationId: 'r2',
          startDate: at(13),
          endDate: at(14),
          propertyNames: [],
        }),
        recorded('host-2', 'Host.BookingReleased', { hostId: '2', reservationId: 'r3' }),
      ],
    );
    const queries = new ReadModelQueries(orm);
    const near = async (start: number, end: number, cleaningMs: number) =>
      (await queries.bookedIntervals('host', null, ms(start), ms(end), cleaningMs)).map((row) => [row.resourceId, row.reservationId]);
    // 10:00-13:00 touches nothing on host 1 (r1 ends at 10, r2 moved to 13) and r3 is released
    expect(await near(10, 13, 0)).toEqual([]);
    expect(await near(9, 15, 0)).toEqual([
      ['1', 'r1'],
      ['1', 'r2'],
    ]);
    // with 30 minutes of cleaning time both neighbours of host 1 are near
    expect(
      (await queries.bookedIntervals('host', ['1'], ms(10), ms(13), 30 * 60_000)).map((row) => [row.reservationId, row.startMs, row.endMs]),
    ).toEqual([
      ['r1', ms(8), ms(10)],
      ['r2', ms(13), ms(14)],
    ]);
    expect(
      (await queries.bookedIntervals('host', ['2'], ms(15), ms(16), 0)).map((row) => [row.reservationId, row.slotCount, row.slotVcpus]),
    ).toEqual([['r4', 2, 1]]);
    expect(
      (await queries.bookedIntervals('floatingip', null, ms(10), ms(12), 0)).map((row) => [row.resourceId, row.reservationId]),
    ).toEqual([['f1', 'r5']]);
  });
});
