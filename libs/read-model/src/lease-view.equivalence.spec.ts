import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EffectRecord, LeaseEvent, Reservation } from '#domain/index.js';
import {
  LEASE_ID,
  created,
  flavorInstanceReservation,
  floatingIpReservation,
  reservation,
  virtualInstanceReservation,
} from '#domain/lease/testing/lease.fixtures.js';
import { type LeaseView, evolveLeaseView } from './lease-view.js';
import { evolveLeaseView as evolveBefore } from './testing/lease-view.reference.js';
import { reversePatch as reversePatchBefore } from './testing/version-patch.reference.js';
import { reversePatch } from './version-patch.js';

/**
 * The fold and the reverse patch were made cheaper (fewer copies, formats and arrays per event): a
 * stored document or patch must not change by one byte. Random lease histories (every event type,
 * every reservation type, odd instants) are folded by both versions and compared as JSON text.
 */

const IDS = ['res-1', 'res-2', 'res-3'] as const;

const instant = fc.oneof(
  fc.date({ min: new Date('2000-01-01T00:00:00.000Z'), max: new Date('2100-12-31T23:59:59.999Z'), noInvalidDate: true }).map((d) => d.toISOString()),
  fc.constantFrom('2030-01-01T10:00:00Z', '2030-01-01T12:00:00+02:00', '2030-01-01T10:00:00.000Z', '2031-02-29T10:00:00.000Z'),
);

const reservationOf = (id: string): fc.Arbitrary<Reservation> =>
  fc.oneof(
    fc.record({ min: fc.nat(3), props: fc.constantFrom('', '["=", "$gpu", "true"]') }).map(({ min, props }) => reservation(id, { min, max: min + 1, resourceProperties: props })),
    fc.record({ amount: fc.integer({ min: 1, max: 4 }), affinity: fc.constantFrom(null, true, false) }).map((o) => virtualInstanceReservation(id, o)),
    fc.nat(8).map((vcpus) => flavorInstanceReservation(id, { vcpus })),
    fc.array(fc.ipV4(), { maxLength: 2 }).map((ips) => floatingIpReservation(id, { requiredFloatingIps: ips })),
  );

const effects: fc.Arbitrary<readonly EffectRecord[]> = fc.array(
  fc.oneof(
    fc.integer({ min: 1, max: 3 }).map((aggregate_id) => ({ operation: 'aggregate.create', aggregate_id })),
    fc.constantFrom('sg-1', 'sg-2').map((server_group_id) => ({ operation: 'server_group.create', server_group_id })),
    fc.constant({ operation: 'hosts.add' }),
  ),
  { maxLength: 3 },
);

const reservationId = fc.constantFrom(...IDS, 'res-unknown');
const lease = { leaseId: LEASE_ID };

const createdEvent: fc.Arbitrary<LeaseEvent> = fc
  .record({
    ids: fc.uniqueArray(fc.constantFrom(...IDS), { minLength: 1, maxLength: 3 }),
    createdAt: instant,
    startDate: instant,
    endDate: instant,
    beforeEndDate: fc.option(instant),
    seed: fc.nat(),
  })
  .chain(({ ids, createdAt, startDate, endDate, beforeEndDate }) =>
    fc.tuple(...ids.map(reservationOf)).map((reservations) => created({ reservations, createdAt, startDate, endDate, beforeEndDate })),
  );

const phase = (type: string): fc.Arbitrary<LeaseEvent> => instant.map((at) => ({ type, data: { ...lease, at, reason: 'x' } }) as unknown as LeaseEvent);

/** An event on an existing lease: any type the fold knows, the ignored ones included. */
const laterEvent: fc.Arbitrary<LeaseEvent> = fc.oneof(
  fc.record({ name: fc.string(), renamedAt: instant }).map((d): LeaseEvent => ({ type: 'Lease.Renamed', data: { ...lease, ...d } })),
  fc
    .record({ startDate: instant, endDate: instant, beforeEndDate: fc.option(instant), rescheduledAt: instant })
    .map((d): LeaseEvent => ({ type: 'Lease.Rescheduled', data: { ...lease, ...d } })),
  fc
    .tuple(fc.constantFrom(...IDS), instant)
    .chain(([id, changedAt]) => reservationOf(id).map((r): LeaseEvent => ({ type: 'Reservation.Changed', data: { ...lease, reservation: r, changedAt } }))),
  fc
    .tuple(fc.constantFrom(...IDS), instant, fc.option(fc.boolean(), { nil: undefined }), fc.boolean())
    .chain(([id, when, missingResources, resourcesChanged]) =>
      reservationOf(id).map(
        (r) =>
          ({
            type: 'Reservation.Healed',
            data: { ...lease, reservation: r, replacements: [], unhealedHostIds: [], missingResources, resourcesChanged, at: when },
          }) as unknown as LeaseEvent,
      ),
    ),
  fc
    .record({ type: fc.constantFrom('Reservation.EffectsApplied', 'Reservation.UpdateApplied', 'Reservation.EffectsFailed', 'Reservation.UpdateFailed'), reservationId, effects, at: instant })
    .map(({ type, ...d }) => ({ type, data: { ...lease, phase: 'start', sequence: 1, error: 'boom', ...d } }) as unknown as LeaseEvent),
  fc.constantFrom(
    'Lease.StartRequested',
    'Lease.Started',
    'Lease.StartFailed',
    'Lease.BeforeEndRequested',
    'Lease.BeforeEndCompleted',
    'Lease.BeforeEndFailed',
    'Lease.EndRequested',
    'Lease.Ended',
    'Lease.EndFailed',
    'Lease.EndingSoonNotified',
    'Reservation.DriftRepaired',
    'Lease.LeftoversFound',
  ).chain(phase),
);

const history = fc.tuple(createdEvent, fc.array(fc.oneof({ arbitrary: laterEvent, weight: 12 }, { arbitrary: createdEvent, weight: 1 }, { arbitrary: phase('Lease.Deleted'), weight: 1 }), { maxLength: 14 }));

const text = (value: unknown): string => JSON.stringify(value) ?? 'undefined';

/** The document as a later batch reads it back: parsed from its stored text, sharing nothing. */
const reread = (doc: LeaseView): LeaseView => JSON.parse(JSON.stringify(doc)) as LeaseView;

describe('the cheaper fold and reverse patch give the very bytes the previous ones gave', () => {
  it('every document of a random history, and whether an event changed the document at all', () => {
    fc.assert(
      fc.property(history, ([first, rest]) => {
        let now: LeaseView | null = null;
        let before: LeaseView | null = null;
        for (const event of [first, ...rest]) {
          const next = evolveLeaseView(now, event);
          const expected = evolveBefore(before, event);
          expect(text(next)).toBe(text(expected));
          // the projection keeps no version for an event that gave the same document back
          expect(next === now).toBe(expected === before);
          [now, before] = [next, expected];
        }
      }),
      { numRuns: 3_000 },
    );
  });

  it('the reverse patch between consecutive documents, shared or read back from their text', () => {
    fc.assert(
      fc.property(history, ([first, rest]) => {
        let doc: LeaseView | null = null;
        for (const event of [first, ...rest]) {
          const next = evolveLeaseView(doc, event);
          if (doc !== null && next !== null) {
            expect(text(reversePatch(doc, next))).toBe(text(reversePatchBefore(doc, next)));
            expect(text(reversePatch(reread(doc), next))).toBe(text(reversePatchBefore(reread(doc), next)));
          }
          doc = next;
        }
      }),
      { numRuns: 2_000 },
    );
  });

  it('the reverse patch of any two values (other shapes, undefined, nested arrays)', () => {
    const value = fc.object({ maxDepth: 4, withNullPrototype: false, values: [fc.constantFrom(undefined, null, 1, 'a', true), fc.string()] });
    const pair = fc.oneof(
      fc.tuple(value, value),
      // mostly alike: a value against itself read back, with one top field replaced
      fc.tuple(value, fc.string(), fc.jsonValue()).map(([a, key, b]) => [a, { ...(JSON.parse(JSON.stringify(a)) as object), [key]: b }] as const),
    );
    fc.assert(
      fc.property(pair, ([a, b]) => {
        expect(reversePatch(a, b)).toStrictEqual(reversePatchBefore(a, b));
        expect(reversePatch(b, a)).toStrictEqual(reversePatchBefore(b, a));
      }),
      { numRuns: 3_000 },
    );
  });
});
