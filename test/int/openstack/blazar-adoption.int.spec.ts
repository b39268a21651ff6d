/**
 * The reactor adopts what Blazar left in Nova (docs/migrating-from-blazar.md, "Adopting Blazar's Nova state"). Made through
 * the real APIs as Blazar makes them: a freepool holding the free hosts, an active host reservation's aggregate (named by
 * its id, availability zone `blazar_<id>`, `blazar:owner`) holding fake-host-1, an active instance reservation's flavor,
 * aggregate, class and inventory on fake-host-2, a pending host reservation's empty aggregate, and a server in each active
 * reservation. The matching Blazar database is imported with `leasehold import-blazar` and the whole system runs on it
 * (reconciling every 2 s): nothing moves, the pending lease starts with Leasehold's own aggregate, and each end releases
 * Blazar's objects with the hosts back in the freepool.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostStream, leaseStream } from '#domain/index.js';
import type { RecordedEvent } from '#event-store/event-store.port.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { reservationCustomName } from '#plugins/openstack/effects/index.js';
import {
  type Aggregate,
  KeystoneTrustsClient,
  NovaClient,
  PlacementClient,
  type ResourceProvider,
  ignoreNotFound,
  inventoryOf,
  isNotFound,
} from '#plugins/openstack/index.js';
import { writeSqliteRows } from '../../fixtures/blazar/blazar-database.js';
import { type Insert, host, hostReservation, lease, reservation, sqlTime } from '../../fixtures/blazar/blazar-fixture.js';
import { api } from '../../helpers/http.js';
import { ROOT, type RunningSystem, startSystem } from '../../helpers/system.js';
import {
  OPENSTACK_ENV_FILE,
  builtServer,
  cloudSystemEnv,
  emptyChildProvider,
  eventually,
  openStackEnv,
  serverGone,
  sessionFor,
  uniqueName,
} from './openstack.fixtures.js';

const on = Boolean(OPENSTACK_ENV_FILE);
const CLI = join(ROOT, 'dist/apps/cli/src/main.js');
const REVISION = '02e2f2186d98';
const HOUR = 3_600_000;
const FREEPOOL_TRAIT = 'CUSTOM_BLAZAR_FREEPOOL';

const importBlazar = (dataDir: string, database: string): Promise<{ code: number; output: string }> =>
  new Promise((resolve) => {
    const env = { ...process.env, LEASEHOLD_DATA_DIR: dataDir, LEASEHOLD_EVENT_STORE_URL: '' };
    execFile(process.execPath, [CLI, 'import-blazar', '--database', database], { env, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : 1, output: `${stdout}${stderr}` });
    });
  });

const sorted = (hosts: readonly string[] | undefined): string[] => [...(hosts ?? [])].sort();

describe.skipIf(!on)("the reactor adopts Blazar's Nova state (import-blazar, then the system on the real Nova)", () => {
  const env = on ? openStackEnv() : (undefined as never);
  const nova = on ? new NovaClient(sessionFor(env.admin)) : (undefined as never);
  const placement = on ? new PlacementClient(sessionFor(env.admin)) : (undefined as never);
  const demo = on ? sessionFor(env.demo) : (undefined as never);
  const demoNova = on ? new NovaClient(demo) : (undefined as never);
  // the admin stands for Blazar's service user, the trustee of Blazar's lease trusts
  const blazarTrusts = on ? new KeystoneTrustsClient(sessionFor(env.admin)) : (undefined as never);
  const [h1 = '', h2 = '', h3 = ''] = on ? env.computeHosts : [];
  const hostLease = { leaseId: randomUUID(), id: randomUUID() };
  const instanceLease = { leaseId: randomUUID(), id: randomUUID() };
  const pendingLease = { leaseId: randomUUID(), id: randomUUID() };
  const instanceClass = reservationCustomName(instanceLease.id);
  const freepool = uniqueName('lh-adopt-freepool');
  const blazarOwner = { 'blazar:owner': on ? env.demoProjectId : '' };
  // Blazar's server group of the reservation (its affinity), named in the flavor's specs and the aggregate's metadata
  let groupId = '';
  let trustId = '';
  const instanceMetadata = (): Record<string, string> => ({
    reservation: instanceLease.id,
    filter_tenant_id: env.demoProjectId,
    affinity_id: groupId,
    ...blazarOwner,
  });
  const flavorSpecs = (): Record<string, string> => ({
    'aggregate_instance_extra_specs:reservation': instanceLease.id,
    [`resources:${instanceClass}`]: '1',
    affinity_id: groupId,
  });
  const servers: string[] = [];
  let dir = '';
  let system: RunningSystem | undefined;
  let client: ReturnType<typeof api>;
  let child: ResourceProvider;
  let pendingStart = 0;

  const aggregate = (name: string): Promise<Aggregate | null> => nova.findAggregate(name);
  /** A stream of the running system's ledger, read beside it. */
  const recorded = async (streamId: string): Promise<RecordedEvent[]> => {
    const store = SqliteEventStore.openReadOnly({ file: join(dir, 'data', 'events.sqlite') });
    try {
      return await store.readStream(streamId);
    } finally {
      await store.close();
    }
  };
  const leaseStatus = async (leaseId: string): Promise<string> => (await client.get(`/v1/leases/${leaseId}`)).body.lease.status;
  const flavorGone = (id: string): Promise<boolean> =>
    nova.getFlavor(id).then(
      () => false,
      (error: unknown) => isNotFound(error),
    );
  const rootTraits = async (hostname: string): Promise<readonly string[]> => {
    const root = await placement.findResourceProvider(hostname);
    return root === null ? [] : (await placement.getProviderTraits(root.uuid)).traits;
  };

  /** Booted as the demo project, waited for; ACTIVE, or the test fails with Nova's fault. */
  const boot = async (spec: { flavorRef: string; availabilityZone?: string }): Promise<string> => {
    const { id } = await demoNova.createServer({ name: uniqueName('lh-adopt'), imageRef: env.imageId, networks: 'none', ...spec });
    servers.push(id);
    const server = await builtServer(nova, id);
    expect(server.status, JSON.stringify(server.fault ?? null)).toBe('ACTIVE');
    return id;
  };

  /** What Blazar makes in Nova and Placement for the three reservations, through the admin's API calls. */
  const makeBlazarsCloud = async (): Promise<{ hostAggregate: Aggregate; instanceAggregate: Aggregate; pendingAggregate: Aggregate }> => {
    const pool = await nova.createAggregate(freepool);
    for (const member of [h2, h3]) await nova.addAggregateHost(pool.id, member);
    // host reservation: made at the reservation's creation, the host moved in at its start
    const hostAggregate = await nova.createAggregate(hostLease.id, `blazar_${hostLease.id}`);
    await nova.setAggregateMetadata(hostAggregate.id, blazarOwner);
    await nova.addAggregateHost(hostAggregate.id, h1);
    const pendingAggregate = await nova.createAggregate(pendingLease.id, `blazar_${pendingLease.id}`);
    await nova.setAggregateMetadata(pendingAggregate.id, blazarOwner);
    // instance reservation: flavor, aggregate, class at creation; access, membership (host stays in the freepool), inventory at start
    await nova.createFlavor({
      id: instanceLease.id,
      name: `reservation:${instanceLease.id}`,
      vcpus: 1,
      ram: 256,
      disk: 1,
      isPublic: false,
    });
    // through Blazar's trust, as the tenant
    groupId = (await demoNova.createServerGroup(`reservation:${instanceLease.id}`, 'affinity')).id;
    await nova.setFlavorExtraSpecs(instanceLease.id, flavorSpecs());
    await nova.addFlavorAccess(instanceLease.id, env.demoProjectId);
    const instanceAggregate = await nova.createAggregate(instanceLease.id);
    await nova.setAggregateMetadata(instanceAggregate.id, instanceMetadata());
    await nova.addAggregateHost(instanceAggregate.id, h2);
    await placement.ensureResourceClass(instanceClass);
    const root = await placement.findResourceProvider(h2);
    if (root === null) throw new Error(`no resource provider ${h2}`);
    child = (await placement.findResourceProvider(`blazar_${h2}`)) ?? (await placement.createResourceProvider(`blazar_${h2}`, root.uuid));
    await placement.setInventory(child.uuid, instanceClass, inventoryOf(2, { max_unit: 1 }));
    return { hostAggregate, instanceAggregate, pendingAggregate };
  };

  /** The same three leases in Blazar's database, as Blazar leaves it: two ACTIVE (start DONE), one PENDING. */
  const blazarRows = (aggregates: Awaited<ReturnType<typeof makeBlazarsCloud>>, now: number): Insert[] => {
    const projectId = env.demoProjectId;
    const created = now - 2 * HOUR;
    const active = { start: now - HOUR, end: now + 2 * HOUR, created, status: 'ACTIVE', events: ['DONE', 'UNDONE', 'UNDONE'] } as const;
    const instanceRow: Insert = {
      table: 'instance_reservations',
      row: {
        created_at: sqlTime(created),
        updated_at: null,
        id: `${instanceLease.id.slice(0, 30)}plugin`,
        reservation_id: instanceLease.id,
        vcpus: 1,
        memory_mb: 256,
        disk_gb: 1,
        amount: 2,
        affinity: true,
        resource_properties: '',
        flavor_id: instanceLease.id,
        aggregate_id: aggregates.instanceAggregate.id,
        server_group_id: groupId,
      },
    };
    return [
      { table: 'alembic_version', row: { version_num: REVISION } },
      host(1, created - HOUR, true, h1),
      host(2, created - HOUR, true, h2),
      host(3, created - HOUR, true, h3),
      ...lease({ id: hostLease.leaseId, name: 'adopted-hosts', ...active, projectId, trustId: null }),
      reservation(hostLease.id, hostLease.leaseId, 'physical:host', 'active', created),
      ...hostReservation(hostLease.id, [1], created, '', aggregates.hostAggregate.id),
      // Blazar's trust, which Keystone refuses to Leasehold's user (not its trustee): the end must still find the group
      ...lease({ id: instanceLease.leaseId, name: 'adopted-instances', ...active, projectId, trustId }),
      reservation(instanceLease.id, instanceLease.leaseId, 'virtual:instance', 'active', created),
      instanceRow,
      ...[0, 1].map((i) => ({
        table: 'computehost_allocations',
        row: {
          created_at: sqlTime(created),
          updated_at: null,
          id: `adopt-slot-${i}`,
          compute_host_id: '2',
          reservation_id: instanceLease.id,
        },
      })),
      ...lease({
        id: pendingLease.leaseId,
        name: 'pending-hosts',
        start: pendingStart,
        end: now + 2 * HOUR,
        created,
        status: 'PENDING',
        events: ['UNDONE', 'UNDONE', 'UNDONE'],
        projectId,
        trustId: null,
      }),
      reservation(pendingLease.id, pendingLease.leaseId, 'physical:host', 'pending', created),
      ...hostReservation(pendingLease.id, [3], created, '', aggregates.pendingAggregate.id),
    ];
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'leasehold-blazar-adoption-'));
    const aggregates = await makeBlazarsCloud();
    // the tenants' servers, booted as Blazar's tenants boot them: into the reservation's zone, with the reservation's flavor
    await boot({ flavorRef: env.flavorId, availabilityZone: `blazar_${hostLease.id}` });
    await boot({ flavorRef: instanceLease.id });
    const now = Date.now();
    pendingStart = now + 75_000;
    const grant = { trustorUserId: await demo.userId(), projectId: env.demoProjectId, roles: await demo.roles() };
    trustId = (await blazarTrusts.createTrust(await demo.token(), grant)).id;
    const database = join(dir, 'blazar.sqlite');
    writeSqliteRows(database, REVISION, blazarRows(aggregates, now));
    const imported = await importBlazar(join(dir, 'data'), `sqlite:///${database}`);
    expect(imported.code, imported.output).toBe(0);
    system = await startSystem({
      dataDir: join(dir, 'data'),
      env: {
        ...cloudSystemEnv(env),
        LEASEHOLD_FREEPOOL_NAME: freepool,
        LEASEHOLD_HOST_POLLING_SECONDS: '0',
        LEASEHOLD_RECONCILE_SECONDS: '2',
      },
    });
    client = api(system.url);
  }, 240_000);

  afterAll(async () => {
    await system?.stop();
    for (const id of servers) await ignoreNotFound(nova.deleteServer(id)).catch(() => undefined);
    await eventually(
      'the servers gone',
      async () => ((await Promise.all(servers.map((id) => serverGone(nova, id)))).every(Boolean) ? true : undefined),
      60_000,
    ).catch(() => undefined);
    const names = [
      freepool,
      hostLease.id,
      instanceLease.id,
      pendingLease.id,
      `reservation-${pendingLease.id}`,
      `reservation-${hostLease.id}`,
    ];
    for (const name of names) {
      const found = await aggregate(name).catch(() => null);
      if (found === null) continue;
      for (const member of found.hosts) await ignoreNotFound(nova.removeAggregateHost(found.id, member)).catch(() => undefined);
      await ignoreNotFound(nova.deleteAggregate(found.id)).catch(() => undefined);
    }
    await ignoreNotFound(nova.deleteFlavor(instanceLease.id)).catch(() => undefined);
    if (groupId !== '') await ignoreNotFound(nova.deleteServerGroup(groupId)).catch(() => undefined);
    if (trustId !== '') await blazarTrusts.deleteTrustAsTrustor(await demo.token(), trustId).catch(() => undefined);
    for (const hostname of [h1, h2, h3]) await emptyChildProvider(placement, hostname).catch(() => undefined);
    await ignoreNotFound(placement.deleteResourceClass(instanceClass)).catch(() => undefined);
    for (const id of [hostLease.id, pendingLease.id]) {
      const trait = reservationCustomName(id);
      for (const hostname of [h1, h3]) {
        const root = await placement.findResourceProvider(hostname).catch(() => null);
        if (root !== null)
          await placement.updateProviderTraits(root.uuid, (traits) => traits.filter((t) => t !== trait)).catch(() => undefined);
      }
      await ignoreNotFound(placement.deleteTrait(trait)).catch(() => undefined);
    }
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  }, 180_000);

  it("adopts the freepool and the active reservations' objects: nothing moves, both leases stay ACTIVE", { timeout: 90_000 }, async () => {
    // adopted: the freepool gets Leasehold's isolation (enrollment), Blazar's host aggregate and flavor theirs (the reconciler's converge)
    await eventually(
      "Leasehold's isolation on Blazar's objects",
      async () => {
        const [pool, hosts, specs] = await Promise.all([
          aggregate(freepool),
          aggregate(hostLease.id),
          nova.getFlavorExtraSpecs(instanceLease.id),
        ]);
        const isolated =
          pool?.metadata[`trait:${FREEPOOL_TRAIT}`] === 'required' &&
          hosts?.metadata[`trait:${reservationCustomName(hostLease.id)}`] === 'required' &&
          specs[`trait:${FREEPOOL_TRAIT}`] === 'required';
        return isolated ? true : undefined;
      },
      60_000,
    );
    // a few more reconciliation rounds and enrollments: still nothing moves
    await new Promise((resolve) => setTimeout(resolve, 5_000));

    const pool = await aggregate(freepool);
    expect(sorted(pool?.hosts)).toEqual(sorted([h2, h3]));
    const hostAggregate = await aggregate(hostLease.id);
    expect(hostAggregate?.hosts).toEqual([h1]);
    expect(hostAggregate?.availability_zone).toBe(`blazar_${hostLease.id}`);
    expect(hostAggregate?.metadata).toEqual({
      ...blazarOwner,
      [`trait:${reservationCustomName(hostLease.id)}`]: 'required',
      filter_tenant_id: env.demoProjectId,
      reservation: hostLease.id,
      availability_zone: `blazar_${hostLease.id}`,
    });
    expect(await rootTraits(h1)).toContain(reservationCustomName(hostLease.id));
    expect(await aggregate(`reservation-${hostLease.id}`)).toBeNull();

    const instanceAggregate = await aggregate(instanceLease.id);
    expect(instanceAggregate?.hosts).toEqual([h2]);
    expect(instanceAggregate?.metadata).toEqual(instanceMetadata());
    expect(await nova.getFlavorExtraSpecs(instanceLease.id)).toEqual({ ...flavorSpecs(), [`trait:${FREEPOOL_TRAIT}`]: 'required' });
    const groups = (await nova.listServerGroups({ allProjects: true })).filter((g) => g.name === `reservation:${instanceLease.id}`);
    expect(groups.map((g) => g.id)).toEqual([groupId]);
    expect(await nova.listFlavorAccess(instanceLease.id)).toEqual([env.demoProjectId]);
    const reservationFlavors = (await nova.listFlavors({ isPublic: null })).filter((f) => f.name === `reservation:${instanceLease.id}`);
    expect(reservationFlavors.map((f) => f.id)).toEqual([instanceLease.id]);
    const inventories = await Promise.all(
      (await placement.listResourceProviders()).map(
        async (p) => [p.name, (await placement.getInventories(p.uuid)).inventories[instanceClass]] as const,
      ),
    );
    expect(inventories.filter(([, inventory]) => inventory !== undefined).map(([name, inventory]) => [name, inventory?.total])).toEqual([
      [`blazar_${h2}`, 2],
    ]);

    // recorded: fake-host-1's enrollment kept it where Blazar's lease holds it; the converge that adopted the aggregate
    const enrolled = (await recorded(hostStream('1'))).find((event) => event.type === 'Host.Enrolled');
    expect(enrolled?.data).toMatchObject({
      effects: expect.arrayContaining([expect.objectContaining({ operation: 'keep_host', host: h1 })]),
    });
    const repairs = (await recorded(leaseStream(hostLease.leaseId))).filter((event) => event.type === 'Reservation.DriftRepaired');
    expect(repairs.flatMap((event) => (event.data as { effects: unknown[] }).effects)).toContainEqual(
      expect.objectContaining({ operation: 'aggregate.adopt', aggregate: hostLease.id, aggregate_id: hostAggregate?.id }),
    );

    for (const id of servers) expect((await nova.getServer(id)).status).toBe('ACTIVE');
    expect(await leaseStatus(hostLease.leaseId)).toBe('ACTIVE');
    expect(await leaseStatus(instanceLease.leaseId)).toBe('ACTIVE');
    // the adopted instance reservation stays usable: Blazar's flavor boots the second of its two slots on fake-host-2
    const second = await boot({ flavorRef: instanceLease.id });
    expect((await nova.getServer(second))['OS-EXT-SRV-ATTR:host']).toBe(h2);
  });

  it("starts the pending imported lease with Leasehold's own aggregate, Blazar's empty one removed", { timeout: 150_000 }, async () => {
    await eventually(
      'the pending lease ACTIVE',
      async () => ((await leaseStatus(pendingLease.leaseId)) === 'ACTIVE' ? true : undefined),
      140_000,
      1_000,
    );
    expect(await aggregate(pendingLease.id)).toBeNull();
    const own = await aggregate(`reservation-${pendingLease.id}`);
    expect(own?.hosts).toEqual([h3]);
    expect(own?.availability_zone).toBeNull();
    expect((await aggregate(freepool))?.hosts).not.toContain(h3);
  });

  it(
    "releases Blazar's objects at an early end or a deletion as Blazar would, the hosts back in the freepool",
    { timeout: 180_000 },
    async () => {
      // TERMINATED, not ERROR: Keystone's refusal of Blazar's trust fails neither the server group's deletion nor the end
      const ended = await client.put(`/v1/leases/${instanceLease.leaseId}`, { end_date: 'now' });
      expect(ended.status, JSON.stringify(ended.body)).toBe(200);
      // deleted while active: the end still runs; the lease Leasehold started has begun this minute, so 'now' cannot end it
      for (const { leaseId } of [hostLease, pendingLease]) expect((await client.delete(`/v1/leases/${leaseId}`)).status).toBe(204);
      await eventually(
        'the instance lease TERMINATED',
        async () => ((await leaseStatus(instanceLease.leaseId)) === 'TERMINATED' ? true : undefined),
        150_000,
        1_000,
      );
      const names = [hostLease.id, instanceLease.id, pendingLease.id, `reservation-${pendingLease.id}`];
      await eventually(
        "every reservation aggregate gone, the instance reservation's class last",
        async () => {
          const gone = (await Promise.all(names.map(aggregate))).every((found) => found === null);
          return gone && !(await placement.resourceClassExists(instanceClass)) ? true : undefined;
        },
        150_000,
        1_000,
      );
      for (const id of servers) expect(await serverGone(nova, id)).toBe(true);
      expect(sorted((await aggregate(freepool))?.hosts)).toEqual(sorted([h1, h2, h3]));
      expect(await flavorGone(instanceLease.id)).toBe(true);
      expect((await nova.listServerGroups({ allProjects: true })).some((g) => g.id === groupId)).toBe(false);
      expect(await placement.resourceClassExists(instanceClass)).toBe(false);
      expect((await placement.getInventories(child.uuid)).inventories[instanceClass]).toBeUndefined();
      expect(await rootTraits(h1)).not.toContain(reservationCustomName(hostLease.id));
    },
  );
});
