/**
 * Test-only: random lease histories (every event type the lease view folds, every reservation type,
 * odd instants), for the specs that check the cheaper fold against the previous one. Not built.
 */
import fc from 'fast-check';
import type { EffectRecord, LeaseEvent, Reservation } from '#domain/index.js';
import {
  LEASE_ID,
  created,
  flavorInstanceReservation,
  floatingIpReservation,
  reservation,
  virtualInstanceReservation,
} from '#domain/lease/testing/lease.fixtures.js';

const instant = fc.oneof(
  fc
    .date({ min: new Date('2000-01-01T00:00:00.000Z'), max: new Date('2100-12-31T23:59:59.999Z'), noInvalidDate: true })
    .map((d) => d.toISOString()),
  fc.constantFrom('2030-01-01T10:00:00Z', '2030-01-01T12:00:00+02:00', '2030-01-01T10:00:00.000Z', '2031-02-29T10:00:00.000Z'),
);

const reservationOf = (id: string): fc.Arbitrary<Reservation> =>
  fc.oneof(
    fc
      .record({ min: fc.nat(3), props: fc.constantFrom('', '["=", "$gpu", "true"]') })
      .map(({ min, props }) => reservation(id, { min, max: min + 1, resourceProperties: props })),
    fc
      .record({ amount: fc.integer({ min: 1, max: 4 }), affinity: fc.constantFrom(null, true, false) })
      .map((o) => virtualInstanceReservation(id, o)),
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

/**
 * A Created event of lease `leaseId`, then up to 14 more (another Created or a Deleted now and
 * then); its reservations are named `<prefix>res-1` to `<prefix>res-3`.
 */
export const leaseHistoryOf = (leaseId: string, prefix = ''): fc.Arbitrary<readonly [LeaseEvent, LeaseEvent[]]> => {
  const IDS = [`${prefix}res-1`, `${prefix}res-2`, `${prefix}res-3`] as const;
  const reservationId = fc.constantFrom(...IDS, `${prefix}res-unknown`);
  const lease = { leaseId };

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
      fc
        .tuple(...ids.map(reservationOf))
        .map((reservations) => created({ leaseId, reservations, createdAt, startDate, endDate, beforeEndDate })),
    );

  const phase = (type: string): fc.Arbitrary<LeaseEvent> =>
    instant.map((at) => ({ type, data: { ...lease, at, reason: 'x' } }) as unknown as LeaseEvent);

  /** An event on an existing lease: any type the fold knows, the ignored ones included. */
  const laterEvent: fc.Arbitrary<LeaseEvent> = fc.oneof(
    fc.record({ name: fc.string(), renamedAt: instant }).map((d): LeaseEvent => ({ type: 'Lease.Renamed', data: { ...lease, ...d } })),
    fc
      .record({ startDate: instant, endDate: instant, beforeEndDate: fc.option(instant), rescheduledAt: instant })
      .map((d): LeaseEvent => ({ type: 'Lease.Rescheduled', data: { ...lease, ...d } })),
    fc
      .tuple(fc.constantFrom(...IDS), instant)
      .chain(([id, changedAt]) =>
        reservationOf(id).map((r): LeaseEvent => ({ type: 'Reservation.Changed', data: { ...lease, reservation: r, changedAt } })),
      ),
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
      .record({
        type: fc.constantFrom(
          'Reservation.EffectsApplied',
          'Reservation.UpdateApplied',
          'Reservation.EffectsFailed',
          'Reservation.UpdateFailed',
        ),
        reservationId,
        effects,
        at: instant,
      })
      .map(({ type, ...d }) => ({ type, data: { ...lease, phase: 'start', sequence: 1, error: 'boom', ...d } }) as unknown as LeaseEvent),
    fc
      .constantFrom(
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
      )
      .chain(phase),
  );

  return fc.tuple(
    createdEvent,
    fc.array(
      fc.oneof(
        { arbitrary: laterEvent, weight: 12 },
        { arbitrary: createdEvent, weight: 1 },
        { arbitrary: phase('Lease.Deleted'), weight: 1 },
      ),
      { maxLength: 14 },
    ),
  );
};

/** The history of the fixtures' lease (LEASE_ID). */
export const leaseHistory = leaseHistoryOf(LEASE_ID);
