import { describe, expect, it } from 'vitest';
import { type HostEvent, type RegisteredHost, foldEvents, freepoolWatchStream, hostDecider } from '#domain/index.js';
import { at, hostBooked, hostRegistered, slots, slotsBooked, smallHostInfo } from '#domain/host/testing/host.fixtures.js';
import { applicationSpecification, commandMetadata, testCaller } from '../testing/application.specification.js';
import { FreepoolWatchUseCases, freepoolSupply } from './freepool-watch.use-cases.js';
import { deterministicId } from './reaction-ids.js';
import { handlerOn, racing, reactionLedger, reactorAt } from './testing/reaction-ledger.js';

const host = (hostId: string, zone: string, ...later: HostEvent[]): RegisteredHost => {
  const registered = hostRegistered(smallHostInfo({ availabilityZone: zone, hypervisorHostname: `c-${hostId}` }));
  const events = [
    { ...registered, data: { ...registered.data, hostId } },
    ...later.map((event) => ({ ...event, data: { ...event.data, hostId } }) as HostEvent),
  ];
  const state = foldEvents(hostDecider, events);
  if (state.status !== 'Registered') throw new Error('not registered');
  return state;
};
const down: HostEvent = { type: 'Host.WentDown', data: { hostId: '', reasons: ['service_down'], source: 'polling', observedAt: at(1) } };
const notReservable: HostEvent = {
  type: 'Host.ReservableChanged',
  data: { hostId: '', reservable: false, reason: 'maintenance', changedAt: at(1) },
};

describe('the freepool supply per zone', () => {
  it('counts hosts taking bookings, and those no booking of any kind touches in the window', () => {
    const hosts = [
      host('1', 'a'),
      host('2', 'a', hostBooked('r-1', { startDate: at(10), endDate: at(12) })),
      host('3', 'a', slotsBooked('r-2', slots(1), { startDate: at(3), endDate: at(5) })),
      host('4', 'a', hostBooked('r-3', { startDate: at(20), endDate: at(22) })),
      host('5', 'a', down),
      host('6', 'b', notReservable),
      host('7', 'b'),
    ];
    // [02:00, 12:00): host 2's booking from 10:00 and host 3's slots touch it; host 4's starts after it
    expect(freepoolSupply(hosts, Date.parse(at(2)), Date.parse(at(12)))).toEqual([
      { zone: 'a', reservableHosts: 4, freeHosts: 2 },
      { zone: 'b', reservableHosts: 1, freeHosts: 1 },
    ]);
    // a booking that ended at the window's start leaves the host free
    expect(
      freepoolSupply([host('2', 'a', hostBooked('r-1', { startDate: at(0), endDate: at(2) }))], Date.parse(at(2)), Date.parse(at(12))),
    ).toEqual([{ zone: 'a', reservableHosts: 1, freeHosts: 1 }]);
  });
});

const STREAM = freepoolWatchStream('az-1');
const spec = applicationSpecification((context) => new FreepoolWatchUseCases(context));
const observation = (freeHosts: number, observedAt = at(10)) => ({
  zone: 'az-1',
  reservableHosts: 4,
  freeHosts,
  threshold: 1,
  windowStart: observedAt,
  windowEnd: '2030-01-02T10:00:00.000Z',
  observedAt,
});
const observe = (freeHosts: number, observedAt = at(10)) =>
  ({ type: 'ObserveFreepool', data: observation(freeHosts, observedAt), metadata: reactorAt(observedAt) }) as const;

describe('the freepool watch', () => {
  it('records exhaustion in the zone’s stream once free hosts drop below the threshold', async () => {
    const outcome = await spec
      .given([])
      .when((watch) => watch.observe(observe(0)))
      .then([{ streamId: STREAM, type: 'Freepool.Exhausted', data: observation(0) }]);
    expect(outcome).toBe('Freepool.Exhausted');
  });

  it('records nothing again while the zone stays exhausted, and the recovery once it has enough', async () => {
    const exhausted = { streamId: STREAM, type: 'Freepool.Exhausted', data: observation(0) };
    expect(
      await spec
        .given([exhausted])
        .when((watch) => watch.observe(observe(0, at(11))))
        .then([]),
    ).toBe('unchanged');
    const recovered = await spec
      .given([exhausted])
      .when((watch) => watch.observe(observe(1, at(12))))
      .then([{ streamId: STREAM, type: 'Freepool.Recovered', data: observation(1, at(12)) }]);
    expect(recovered).toBe('Freepool.Recovered');
  });

  it('is the reactor’s to record, not a user’s', async () => {
    await spec
      .given([])
      .when((watch) => watch.observe({ ...observe(0), metadata: commandMetadata(testCaller('admin'), at(10)) }))
      .thenThrows({ code: 'POLICY_NOT_AUTHORIZED' });
  });

  it('records a crossing once when a second watcher saw it too, between its read and its append', async () => {
    const store = await reactionLedger([]);
    try {
      const other = new FreepoolWatchUseCases(handlerOn(store));
      const watch = new FreepoolWatchUseCases(handlerOn(racing(store, () => other.observe(observe(0)))));
      expect(await watch.observe(observe(0))).toBe('unchanged');
      expect((await store.readAll({ from: 0 })).map((event) => [event.streamId, event.type, event.id])).toEqual([
        [STREAM, 'Freepool.Exhausted', deterministicId('freepool-watch:az-1:-1')],
      ]);
    } finally {
      await store.close();
    }
  });
});
