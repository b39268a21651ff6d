import { describe, expect, it } from 'vitest';
import { HOST_REGISTRY_STREAM, type HostInfo, hostStream } from '#domain/index.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import type { HostToRegister } from '#plugins/ports/host-inventory.port.js';
import { StandaloneHostInventory } from '#plugins/standalone/standalone-host-inventory.js';
import { parseZoneRule } from '#plugins/zone-rule.js';
import type { ApplicationSettings } from '../application-context.js';
import { CommandHandler } from '../command-handler.js';
import { HostUseCases } from '../hosts/host.use-cases.js';
import {
  DEFAULT_SETTINGS,
  type StreamEvent,
  applicationSpecification,
  commandMetadata,
  testCaller,
} from '../testing/application.specification.js';
import { WriteIndex } from '../write-model/write-index.js';

const NOW = '2030-01-01T00:00:00.000Z';
const admin = commandMetadata(testCaller('admin'), NOW);

const settings = (floor: string, zoneHosts: string): ApplicationSettings => ({
  ...DEFAULT_SETTINGS,
  guardrails: {
    freepoolHeadroom: parseZoneRule('LEASEHOLD_FREEPOOL_HEADROOM', '', { percentAllowed: false }),
    generalPoolFloor: parseZoneRule('LEASEHOLD_GENERAL_POOL_FLOOR', floor, { percentAllowed: true }),
    standaloneZoneHosts: parseZoneRule('LEASEHOLD_STANDALONE_ZONE_HOSTS', zoneHosts, { percentAllowed: false }),
  },
});
/** The standalone inventory is the simulated cloud's real adapter: the zones' sizes are what the operator stated. */
const withFloor = (floor: string, zoneHosts = 'nova:4,az2:10') =>
  applicationSpecification(
    (context) => new HostUseCases(context, new StandaloneHostInventory(context.settings.guardrails?.standaloneZoneHosts)),
    settings(floor, zoneHosts),
  );

const facts = (name: string, availabilityZone: string): HostInfo => ({
  hypervisorHostname: name,
  serviceName: name,
  vcpus: 8,
  memoryMb: 16384,
  localGb: 100,
  cpuInfo: '{}',
  hypervisorType: 'standalone',
  hypervisorVersion: 0,
  availabilityZone,
});
const host = (name: string, zone = 'nova'): HostToRegister => ({ source: 'request', info: facts(name, zone), capabilities: {} });
const inFreepool = (n: number, zone = 'nova'): StreamEvent[] =>
  Array.from({ length: n }, (_, i) => {
    const [hostId, name] = [`${zone}-${i + 1}`, `${zone}-compute-${i + 1}`];
    return [
      { streamId: HOST_REGISTRY_STREAM, type: 'HostRegistry.HostAdded', data: { hostId, hypervisorHostname: name } },
      {
        streamId: hostStream(hostId),
        type: 'Host.Registered',
        data: { hostId, info: facts(name, zone), capabilities: {}, registeredAt: NOW },
      },
    ];
  }).flat();
const register =
  (name: string, zone = 'nova') =>
  (hosts: HostUseCases) =>
    hosts.register({ type: 'RegisterHost', data: { host: host(name, zone) }, metadata: admin });

describe('general-pool floor (LEASEHOLD_GENERAL_POOL_FLOOR)', () => {
  describe('Given zone nova with 4 compute hosts, 1 of them in the freepool, and a floor of 2', () => {
    it('When a second host is enrolled, then it is registered: 2 stay outside', async () => {
      await withFloor('2')
        .given(inFreepool(1))
        .when(register('compute-b'))
        .then([expect.objectContaining({ type: 'HostRegistry.HostAdded' }), expect.objectContaining({ type: 'Host.Registered' })]);
    });
  });

  describe('Given zone nova with 4 compute hosts, 2 in the freepool, and a floor of 2', () => {
    it('When a third is enrolled, then 409 names the floor, the zone and the counts, and nothing is written', async () => {
      await withFloor('2').given(inFreepool(2)).when(register('compute-c')).thenThrows({
        code: 'GENERAL_POOL_FLOOR',
        kind: 'conflict',
        message:
          "Host compute-c refused by the general-pool floor (LEASEHOLD_GENERAL_POOL_FLOOR 2 in zone nova): enrolling it would leave 1 host of the zone's 4 compute hosts outside the freepool (2 already in it), the floor keeps 2 hosts",
      });
    });

    it('When the host is of zone az2 (10 hosts, none enrolled), then nova’s count does not hold it back', async () => {
      await withFloor('2')
        .given(inFreepool(2))
        .when(register('compute-z', 'az2'))
        .then([expect.objectContaining({ type: 'HostRegistry.HostAdded' }), expect.objectContaining({ type: 'Host.Registered' })]);
    });
  });

  it('Given a floor of 25% (1 of 4 hosts), when the fourth host of nova is enrolled, then it is refused; the third passes', async () => {
    await withFloor('25%').given(inFreepool(2)).when(register('compute-c')).then([expect.anything(), expect.anything()]);
    await withFloor('25%')
      .given(inFreepool(3))
      .when(register('compute-d'))
      .thenThrows({
        code: 'GENERAL_POOL_FLOOR',
        message: expect.stringContaining('LEASEHOLD_GENERAL_POOL_FLOOR 25% in zone nova') as unknown,
      });
  });

  it('Given a floor for az2 only, when nova is enrolled to its last host, then nova is not judged', async () => {
    await withFloor('az2:3').given(inFreepool(3)).when(register('compute-d')).then([expect.anything(), expect.anything()]);
  });

  it('Given a simulated zone of unstated size, when a host is enrolled under a floor, then it is refused: its only hosts are the freepool’s', async () => {
    await withFloor('1', '')
      .given([])
      .when(register('compute-a'))
      .thenThrows({
        code: 'GENERAL_POOL_FLOOR',
        message: expect.stringContaining("leave 0 hosts of the zone's 1 compute hosts") as unknown,
      });
  });

  it('Given two API processes enrolling the last host the floor allows at once, then exactly one passes: the registry revision fences them', async () => {
    const store = SqliteEventStore.open({ file: ':memory:' });
    try {
      const process = (prefix: string) => {
        let ids = 0;
        const context = {
          handler: new CommandHandler(store),
          index: new WriteIndex(store),
          settings: settings('2', 'nova:4'),
          newId: () => `${prefix}-${++ids}`,
        };
        return new HostUseCases(context, new StandaloneHostInventory(context.settings.guardrails?.standaloneZoneHosts));
      };
      await register('compute-a')(process('seed'));
      const outcomes = await Promise.allSettled([register('compute-b')(process('p1')), register('compute-c')(process('p2'))]);
      expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
      expect(outcomes.find((o) => o.status === 'rejected')).toMatchObject({ reason: { code: 'GENERAL_POOL_FLOOR' } });
      const registered = (await store.readAll({ from: 0 })).filter((e) => e.type === 'Host.Registered');
      expect(registered).toHaveLength(2);
    } finally {
      await store.close();
    }
  });
});
