/**
 * The reactor's host enrollment with LEASEHOLD_CLOUD=openstack against the real Nova and Placement: a
 * host registered through the API joins the freepool aggregate and gets its `blazar_<host>` child
 * provider with the freepool trait; unregistering undoes both; each outcome is an event on the host's
 * stream, recorded once, also when the reactor catches up after downtime.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostEvent, type HostInfo, foldEvents, hostDecider, hostStream } from '#domain/index.js';
import type { RecordedEvent } from '#event-store/event-store.port.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import type { EffectContext } from '#plugins/effects.port.js';
import { openStackClients, reservationAggregateName, reservationCustomName } from '#plugins/openstack/effects/index.js';
import { OpenStackHostEffects } from '#plugins/physical-host/openstack/physical-host.openstack-effects.js';
import { FREEPOOL_ZONE_KEY } from '#plugins/openstack/enrollment/freepool.js';
import { type HostEnrollmentEffects, OpenStackHostEnrollment } from '#plugins/openstack/enrollment/host-enrollment.adapter.js';
import { NovaClient, PlacementClient, ignoreNotFound, zoneOfComputeHost } from '#plugins/openstack/index.js';
import { CommandHandler } from '#application/command-handler.js';
import { openReactorCommands } from '#reactor/commands/reactor-command-bus.js';
import { HostEnrollment } from '#reactor/host-enrollment.js';
import type { ReactorLogEntry } from '#reactor/scheduler.js';
import type { HostReservation } from '#plugins/physical-host/host.reservation.js';
import { api } from '../../helpers/http.js';
import { type RunningSystem, startSystem } from '../../helpers/system.js';
import {
  OPENSTACK_ENV_FILE,
  cloudSystemEnv,
  emptyChildProvider,
  eventually,
  openStackEnv,
  sessionFor,
  uniqueName,
} from './openstack.fixtures.js';
import { reservation as hostReservation } from '#domain/lease/testing/lease.fixtures.js';

/**
 * The compute the other OpenStack tests use least: fake-host-1 boots their servers (a freepool member
 * takes no regular server), fake-host-2 carries their instance slots and is stopped by the monitor test.
 */
const HOST = 'fake-host-3';
const CHILD = `blazar_${HOST}`;
const TRAIT = 'CUSTOM_BLAZAR_FREEPOOL';
const FREEPOOL = 'freepool';

describe.skipIf(!OPENSTACK_ENV_FILE)('host enrollment by the reactor (real Nova and Placement)', () => {
  const env = OPENSTACK_ENV_FILE ? openStackEnv() : (undefined as never);
  const nova = OPENSTACK_ENV_FILE ? new NovaClient(sessionFor(env.admin)) : (undefined as never);
  const placement = OPENSTACK_ENV_FILE ? new PlacementClient(sessionFor(env.admin)) : (undefined as never);
  const dataDir = mkdtempSync(join(tmpdir(), 'leasehold-enrollment-'));
  let apiSystem: RunningSystem;
  let reactor: RunningSystem | null = null;
  let client: ReturnType<typeof api>;
  let store: SqliteEventStore;
  let wasMember = false;
  let freepoolExisted = false;

  const inFreepool = async (): Promise<boolean> => (await nova.findAggregate(FREEPOOL))?.hosts.includes(HOST) ?? false;

  /** The child provider is emptied, never deleted (nova-compute caches it); one with inventories holds another test's reservation slots. */
  const removeFromCloud = async (): Promise<void> => {
    const child = await placement.findResourceProvider(CHILD);
    const slots = child === null ? 0 : Object.keys((await placement.getInventories(child.uuid)).inventories).length;
    if (slots === 0) await emptyChildProvider(placement, HOST);
    const freepool = await nova.findAggregate(FREEPOOL);
    if (freepool?.hosts.includes(HOST) === true) await ignoreNotFound(nova.removeAggregateHost(freepool.id, HOST));
  };

  const startReactor = async (): Promise<void> => {
    reactor = await startSystem({ dataDir, apps: ['reactor'], env: cloudSystemEnv(env) });
  };

  const stopReactor = async (): Promise<void> => {
    await reactor?.stop();
    reactor = null;
  };

  const logs = (): string => `${apiSystem.output()}\n${reactor?.output() ?? ''}`;

  const hostEvents = async (hostId: string): Promise<RecordedEvent[]> => store.readStream(`host-${hostId}`);

  const eventOf = (hostId: string, type: string): Promise<RecordedEvent> =>
    eventually(`${type} on host-${hostId}`, async () => (await hostEvents(hostId)).find((e) => e.type === type), 30_000, 200).catch(
      (error: unknown) => {
        throw new Error(`${String(error)}\n${logs()}`);
      },
    );

  const register = async (): Promise<string> => {
    const created = await client.post('/v1/os-hosts', { name: HOST });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.host.id as string;
  };

  const expectEnrolled = async (): Promise<void> => {
    const freepool = await nova.findAggregate(FREEPOOL);
    expect(freepool?.hosts).toContain(HOST);
    expect(freepool?.metadata).toMatchObject({ [`trait:${TRAIT}`]: 'required' });
    expect(freepool?.availability_zone ?? null).toBeNull();
    const root = await placement.findResourceProvider(HOST);
    const child = await placement.findResourceProvider(CHILD);
    expect(child?.parent_provider_uuid).toBe(root?.uuid);
    expect((await placement.getProviderTraits(child?.uuid ?? '')).traits).toContain(TRAIT);
    // the trait sits on the child only: the compute node's own provider stays out of the free pool's isolation
    expect((await placement.getProviderTraits(root?.uuid ?? '')).traits).not.toContain(TRAIT);
  };

  /** Out of the freepool; the child provider stays for nova-compute's sake, without the trait (no inventories: it had none). */
  const expectUnenrolled = async (): Promise<void> => {
    expect(await inFreepool()).toBe(false);
    await expectChildKeptWithoutTrait();
  };

  const expectChildKeptWithoutTrait = async (): Promise<void> => {
    const child = await placement.findResourceProvider(CHILD);
    expect(child, `${CHILD} kept`).not.toBeNull();
    expect((await placement.getProviderTraits(child?.uuid ?? '')).traits).not.toContain(TRAIT);
  };

  beforeAll(async () => {
    freepoolExisted = (await nova.findAggregate(FREEPOOL)) !== null;
    wasMember = await inFreepool();
    // a clean start: the host outside the free pool, no child provider left by an interrupted run
    await removeFromCloud();
    apiSystem = await startSystem({ dataDir, apps: ['api', 'projector'], env: cloudSystemEnv(env) });
    client = api(apiSystem.url);
    store = SqliteEventStore.open({ file: join(dataDir, 'events.sqlite') });
  }, 60_000);

  afterAll(async () => {
    await stopReactor();
    await apiSystem?.stop();
    await store?.close();
    await removeFromCloud();
    const freepool = await nova.findAggregate(FREEPOOL);
    if (wasMember && freepool !== null) await nova.addAggregateHost(freepool.id, HOST).catch(() => undefined);
    // created by this test's enrollment: leave the cloud as found (an aggregate with hosts is not ours to delete)
    if (!freepoolExisted && freepool !== null && freepool.hosts.length === 0)
      await ignoreNotFound(nova.deleteAggregate(freepool.id)).catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('enrolls a registered host into the freepool and Placement, and records Host.Enrolled with what it did', async () => {
    await startReactor();
    const hostId = await register();
    const enrolled = await eventOf(hostId, 'Host.Enrolled');
    await expectEnrolled();
    const operations = (enrolled.data as { effects: { operation: string }[] }).effects.map((e) => e.operation);
    expect(operations).toEqual(expect.arrayContaining(['ensure_trait', 'add_host', 'create_provider', 'set_provider_trait']));
    const registered = (await hostEvents(hostId))[0];
    expect(enrolled.metadata).toMatchObject({
      causationId: registered?.id,
      correlationId: registered?.metadata.correlationId,
      actor: null,
    });

    expect((await client.delete(`/v1/os-hosts/${hostId}`)).status).toBe(204);
    await eventOf(hostId, 'Host.Unenrolled');
    await expectUnenrolled();
    expect((await hostEvents(hostId)).map((e) => e.type)).toEqual([
      'Host.Registered',
      'Host.Enrolled',
      'Host.Unregistered',
      'Host.Unenrolled',
    ]);
  }, 60_000);

  it('catches up after downtime: work owed while the reactor was down is done at start, and recorded once', async () => {
    await stopReactor();
    const hostId = await register();
    expect(await inFreepool()).toBe(false);
    await startReactor();
    await eventOf(hostId, 'Host.Enrolled');
    await expectEnrolled();

    // a restart owes nothing: no second outcome
    await stopReactor();
    await startReactor();
    await eventually(
      'the restarted reactor to be up',
      async () => (logs().includes('host-enrollment-start') ? true : undefined),
      10_000,
      100,
    );
    expect((await hostEvents(hostId)).filter((e) => e.type === 'Host.Enrolled')).toHaveLength(1);

    await stopReactor();
    expect((await client.delete(`/v1/os-hosts/${hostId}`)).status).toBe(204);
    expect(await inFreepool()).toBe(true);
    await startReactor();
    await eventOf(hostId, 'Host.Unenrolled');
    await expectUnenrolled();
    expect((await hostEvents(hostId)).map((e) => e.type)).toEqual([
      'Host.Registered',
      'Host.Enrolled',
      'Host.Unregistered',
      'Host.Unenrolled',
    ]);
  }, 90_000);

  describe('in process, on a store of its own', () => {
    const info = (hypervisorHostname: string): HostInfo => ({
      hypervisorHostname,
      serviceName: hypervisorHostname,
      vcpus: 1,
      memoryMb: 1,
      localGb: 1,
      cpuInfo: '{}',
      hypervisorType: 'fake',
      hypervisorVersion: 1,
      availabilityZone: 'nova',
    });
    const metadata = { correlationId: 'req-enrollment-test', causationId: 'req-enrollment-test', actor: null };

    const append = async (own: SqliteEventStore, hostId: string, command: Parameters<typeof hostDecider.decide>[0]): Promise<void> => {
      const history = await own.readStream(hostStream(hostId));
      const state = foldEvents(
        hostDecider,
        history.map((e) => ({ type: e.type, data: e.data }) as HostEvent),
      );
      const events = hostDecider
        .decide(command, state)
        .map((e, i) => ({ id: `${hostId}-${history.length + i}-${command.type}`, type: e.type, data: e.data, metadata }));
      await own.appendToStream(hostStream(hostId), history.length - 1, events);
    };

    type Body = (own: SqliteEventStore, log: ReactorLogEntry[]) => Promise<void>;

    /** `history` is what the log held before the reactor started. */
    const run = async (
      effects: HostEnrollmentEffects,
      body: Body,
      history: (own: SqliteEventStore) => Promise<void> = () => Promise.resolve(),
    ): Promise<void> => {
      const own = SqliteEventStore.open({ file: ':memory:' });
      const log: ReactorLogEntry[] = [];
      await history(own);
      const commands = await openReactorCommands({ handler: new CommandHandler(own), healing: null });
      const enrollment = await HostEnrollment.start({
        store: own,
        commands: commands.bus,
        effects,
        clock: () => new Date(),
        log: (e) => log.push(e),
        retryBaseMs: 50,
      });
      try {
        await body(own, log);
      } finally {
        await enrollment.stop();
        await commands.close();
        await own.close();
      }
    };

    const outcome = (own: SqliteEventStore, hostId: string, type: string): Promise<RecordedEvent> =>
      eventually(type, async () => (await own.readStream(hostStream(hostId))).find((e) => e.type === type), 30_000, 100);

    const real = OPENSTACK_ENV_FILE
      ? new OpenStackHostEnrollment(new NovaClient(sessionFor(env.service)), new PlacementClient(sessionFor(env.service)), {
          name: FREEPOOL,
          perZone: false,
        })
      : (undefined as never);
    const now = new Date().toISOString();

    it('retries a transient failure with backoff, then enrolls once', async () => {
      let calls = 0;
      const flaky: HostEnrollmentEffects = {
        enroll: (target, key) => (++calls === 1 ? Promise.reject(new Error('connection reset by the cloud')) : real.enroll(target, key)),
        unenroll: (target, key) => real.unenroll(target, key),
      };
      await run(flaky, async (own, log) => {
        await append(own, '1', { type: 'RegisterHost', data: { hostId: '1', info: info(HOST), capabilities: {}, now } });
        await outcome(own, '1', 'Host.Enrolled');
        await expectEnrolled();
        expect(calls).toBe(2);
        expect(log).toContainEqual(
          expect.objectContaining({
            event: 'retry',
            phase: 'host-enroll',
            hostId: '1',
            attempt: 1,
            error: 'connection reset by the cloud',
          }),
        );
        await append(own, '1', { type: 'UnregisterHost', data: { now } });
        await outcome(own, '1', 'Host.Unenrolled').catch((error: unknown) => {
          throw new Error(`${String(error)}\n${JSON.stringify(log)}`);
        });
        await expectUnenrolled();
      });
    }, 60_000);

    it('records a refusal by the cloud as Host.EnrollmentFailed with Nova’s error, without retrying', async () => {
      await run(real, async (own, log) => {
        await append(own, '2', { type: 'RegisterHost', data: { hostId: '2', info: info('no-such-compute'), capabilities: {}, now } });
        const failed = await outcome(own, '2', 'Host.EnrollmentFailed');
        expect((failed.data as { error: string }).error).toMatch(/404/);
        expect(log.filter((e) => e.event === 'retry')).toEqual([]);
        await append(own, '2', { type: 'UnregisterHost', data: { now } });
        // nothing to take out: deletes that find nothing count as done
        const unenrolled = await outcome(own, '2', 'Host.Unenrolled');
        expect((unenrolled.data as { effects: { already?: boolean }[] }).effects.every((e) => e.already === true)).toBe(true);
      });
    }, 60_000);

    it('catching up, takes a removed host out before enrolling the new host of the same name, and never enrolls the removed one', async () => {
      const history = async (own: SqliteEventStore): Promise<void> => {
        await append(own, '3', { type: 'RegisterHost', data: { hostId: '3', info: info(HOST), capabilities: {}, now } });
        await append(own, '3', { type: 'UnregisterHost', data: { now } });
        await append(own, '4', { type: 'RegisterHost', data: { hostId: '4', info: info(HOST), capabilities: {}, now } });
      };
      await run(
        real,
        async (own) => {
          const enrolled = await outcome(own, '4', 'Host.Enrolled');
          const unenrolled = await outcome(own, '3', 'Host.Unenrolled');
          expect(unenrolled.position).toBeLessThan(enrolled.position);
          expect((await own.readStream(hostStream('3'))).map((e) => e.type)).toEqual([
            'Host.Registered',
            'Host.Unregistered',
            'Host.Unenrolled',
          ]);
          await expectEnrolled();
          await append(own, '4', { type: 'UnregisterHost', data: { now } });
          await outcome(own, '4', 'Host.Unenrolled');
          await expectUnenrolled();
        },
        history,
      );
    }, 60_000);

    it('with one freepool per zone, enrolls a host of zone Z into <freepool>-Z (no availability_zone of its own), and a host lease returns it there', async () => {
      const zone = uniqueName('lh-zone');
      const pool = `${FREEPOOL}-${zone}`;
      const layout = { name: FREEPOOL, perZone: true };
      const perZone = new OpenStackHostEnrollment(
        new NovaClient(sessionFor(env.service)),
        new PlacementClient(sessionFor(env.service)),
        layout,
      );
      const hostEffects = new OpenStackHostEffects(openStackClients(sessionFor(env.service)), {
        freepoolName: FREEPOOL,
        freepoolPerZone: true,
      });
      const reservationId = randomUUID();
      const reservation: HostReservation = hostReservation(reservationId, { resourceId: randomUUID(), hostIds: ['5'] });
      const context = (phase: EffectContext['phase']): EffectContext => ({
        idempotencyKey: `${reservationId}:${phase}`,
        leaseId: `lease-${reservationId}`,
        projectId: env.demoProjectId,
        phase,
        resourceNames: { '5': HOST },
      });
      const members = async (name: string): Promise<readonly string[]> => (await nova.findAggregate(name))?.hosts ?? [];
      const zoneOfHost = async (): Promise<string> => zoneOfComputeHost(await nova.listAvailabilityZones(), HOST);
      // the operator's zone: an aggregate with an availability_zone, as Nova documents it
      const operatorZone = await nova.createAggregate(uniqueName('lh-az'), zone);
      try {
        await nova.addAggregateHost(operatorZone.id, HOST);
        expect(await zoneOfHost()).toBe(zone);
        await run(perZone, async (own) => {
          await append(own, '5', {
            type: 'RegisterHost',
            data: { hostId: '5', info: { ...info(HOST), availabilityZone: zone }, capabilities: {}, now },
          });
          const enrolled = await outcome(own, '5', 'Host.Enrolled');
          expect((enrolled.data as { effects: unknown[] }).effects).toContainEqual(
            expect.objectContaining({ operation: 'add_host', aggregate: pool, host: HOST }),
          );
          const freepool = await nova.findAggregate(pool);
          expect(freepool).toMatchObject({
            hosts: [HOST],
            availability_zone: null,
            metadata: { [`trait:${TRAIT}`]: 'required', [FREEPOOL_ZONE_KEY]: zone },
          });
          expect(await inFreepool()).toBe(false);
          expect(await zoneOfHost()).toBe(zone);

          const started = await hostEffects.onStart(context('start'), reservation);
          expect(started).toContainEqual({ operation: 'aggregate.remove_host', aggregate: pool, host: HOST });
          expect(await members(pool)).toEqual([]);
          expect(await members(reservationAggregateName(reservationId))).toEqual([HOST]);
          // the reservation's aggregate has no zone either: the host keeps its operator's
          expect(await zoneOfHost()).toBe(zone);

          const ended = await hostEffects.onEnd(context('end'), reservation);
          expect(ended).toContainEqual({ operation: 'aggregate.add_host', aggregate: pool, host: HOST });
          expect(await members(pool)).toEqual([HOST]);
          expect(await inFreepool()).toBe(false);

          await append(own, '5', { type: 'UnregisterHost', data: { now } });
          const unenrolled = await outcome(own, '5', 'Host.Unenrolled');
          expect((unenrolled.data as { effects: unknown[] }).effects).toContainEqual({
            operation: 'remove_host',
            aggregate: pool,
            host: HOST,
          });
          expect(await members(pool)).toEqual([]);
          await expectChildKeptWithoutTrait();
        });
      } finally {
        const reserved = await nova.findAggregate(reservationAggregateName(reservationId));
        if (reserved !== null) {
          for (const host of reserved.hosts) await ignoreNotFound(nova.removeAggregateHost(reserved.id, host)).catch(() => undefined);
          await ignoreNotFound(nova.deleteAggregate(reserved.id)).catch(() => undefined);
        }
        const root = await placement.findResourceProvider(HOST);
        const trait = reservationCustomName(reservationId);
        if (root !== null)
          await placement.updateProviderTraits(root.uuid, (traits) => traits.filter((t) => t !== trait)).catch(() => undefined);
        await ignoreNotFound(placement.deleteTrait(trait)).catch(() => undefined);
        await removeFromCloud();
        for (const aggregate of [await nova.findAggregate(pool), operatorZone]) {
          if (aggregate === null) continue;
          await ignoreNotFound(nova.removeAggregateHost(aggregate.id, HOST)).catch(() => undefined);
          await ignoreNotFound(nova.deleteAggregate(aggregate.id)).catch(() => undefined);
        }
      }
    }, 90_000);
  });
});
