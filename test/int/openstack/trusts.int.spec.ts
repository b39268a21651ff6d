/**
 * Lease trusts against the real control plane: the demo user delegates its roles on project demo to
 * Leasehold's service user with its own token, as upstream Blazar's API does at lease create; a
 * trust-scoped session then acts as demo in demo, so a server group made through it is one demo can
 * boot into. The instance adapter makes and removes the lease's group that way; the trustee deletes
 * the trust through the trust itself.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EffectContext } from '#plugins/effects.port.js';
import { OpenStackTrustEffects, openStackClients, reservationCustomName, reservationObjectName } from '#plugins/openstack/effects/index.js';
import { OpenStackInstanceEffects } from '#plugins/instance/openstack/instance.openstack-effects.js';
import { KeystoneTrustsClient, NovaClient, PlacementClient, type Server, ignoreNotFound, isNotFound } from '#plugins/openstack/index.js';
import type { VirtualInstanceReservation } from '#plugins/instance/instance.reservation.js';
import { type JsonResponse, instanceReservation } from '../../helpers/http.js';
import { type RunningSystem, startSystem } from '../../helpers/system.js';
import {
  OPENSTACK_ENV_FILE,
  aggregateMembers,
  cloudSystemEnv,
  emptyChildProvider,
  eventually,
  openStackEnv,
  sessionFor,
  uniqueName,
} from './openstack.fixtures.js';

const on = Boolean(OPENSTACK_ENV_FILE);

describe.skipIf(!on)('Keystone trusts for leases (real Keystone and Nova)', () => {
  const env = on ? openStackEnv() : (undefined as never);
  const service = on ? sessionFor(env.service) : (undefined as never);
  const trusts = on ? new KeystoneTrustsClient(service) : (undefined as never);
  const demo = on ? sessionFor(env.demo) : (undefined as never);
  const demoNova = on ? new NovaClient(demo) : (undefined as never);
  const adminNova = on ? new NovaClient(sessionFor(env.admin)) : (undefined as never);
  const placement = on ? new PlacementClient(sessionFor(env.admin)) : (undefined as never);
  const effects = on
    ? new OpenStackInstanceEffects(openStackClients(service), { serverDeletion: { timeoutMs: 90_000, pollMs: 500 } })
    : (undefined as never);
  const trustEffects = on ? new OpenStackTrustEffects(trusts) : (undefined as never);
  const leftovers = {
    trusts: [] as string[],
    servers: [] as string[],
    groups: [] as string[],
    reservations: [] as VirtualInstanceReservation[],
  };

  /** A trust from demo to the service user on project demo, as the API makes it at lease create. */
  const demoTrust = async (): Promise<string> => {
    const grant = { trustorUserId: await demo.userId(), projectId: env.demoProjectId, roles: await demo.roles() };
    const trust = await trusts.createTrust(await demo.token(), grant);
    leftovers.trusts.push(trust.id);
    return trust.id;
  };

  const reservation = (): VirtualInstanceReservation => {
    const r: VirtualInstanceReservation = {
      id: randomUUID(),
      resourceId: randomUUID(),
      resourceType: 'virtual:instance',
      amount: 1,
      vcpus: 1,
      memoryMb: 128,
      diskGb: 1,
      affinity: true,
      resourceProperties: '',
      allocations: [],
    };
    leftovers.reservations.push(r);
    return r;
  };

  const context = (r: VirtualInstanceReservation, phase: EffectContext['phase'], trustId: string | null): EffectContext => ({
    idempotencyKey: `${r.id}:${phase}`,
    leaseId: `lease-${r.id}`,
    projectId: env.demoProjectId,
    phase,
    resourceNames: {},
    trustId,
  });

  const groupOrNull = (id: string) =>
    adminNova.getServerGroup(id).catch((error: unknown) => {
      if (isNotFound(error)) return null;
      throw error;
    });

  afterAll(async () => {
    for (const id of leftovers.servers) await ignoreNotFound(adminNova.deleteServer(id)).catch(() => undefined);
    for (const id of leftovers.groups) await ignoreNotFound(adminNova.deleteServerGroup(id)).catch(() => undefined);
    for (const r of leftovers.reservations) {
      await effects.onEnd(context(r, 'end', null), r).catch(() => undefined);
      await ignoreNotFound(placement.deleteResourceClass(reservationCustomName(r.id))).catch(() => undefined);
    }
    for (const id of leftovers.trusts) await trusts.deleteTrust(id).catch(() => undefined);
  });

  it('demo creates a trust to the service user with its own token; a trust-scoped session acts as demo in demo; the trustee deletes it through the trust', async () => {
    const trustId = await demoTrust();
    const trust = await trusts.getTrust(trustId);
    expect(trust).toMatchObject({
      id: trustId,
      trustor_user_id: await demo.userId(),
      trustee_user_id: await service.userId(),
      project_id: env.demoProjectId,
      impersonation: true,
    });
    expect(trust?.roles.map((r) => r.name).sort()).toEqual([...(await demo.roles())].sort());

    const scoped = trusts.trustSession(trustId);
    expect(await scoped.projectId()).toBe(env.demoProjectId);
    expect(await scoped.userId()).toBe(await demo.userId());

    expect(await trusts.deleteTrust(trustId)).toBe(true);
    expect(await trusts.deleteTrust(trustId)).toBe(false);
    expect(await trusts.getTrust(trustId)).toBeNull();
    await expect(trusts.trustSession(trustId).token()).rejects.toMatchObject({ status: 401 });
  });

  it('the trustor deletes its own trust with its token (a refused lease takes its trust back)', async () => {
    const trustId = await demoTrust();
    expect(await trusts.deleteTrustAsTrustor(await demo.token(), trustId)).toBe(true);
    expect(await trusts.deleteTrustAsTrustor(await demo.token(), trustId)).toBe(false);
    expect(await trusts.getTrust(trustId)).toBeNull();
  });

  it("a group made through the trust is demo's, and demo boots into it with the `group` hint", { timeout: 150_000 }, async () => {
    const trustId = await demoTrust();
    const trustNova = new NovaClient(trusts.trustSession(trustId));
    const group = await trustNova.createServerGroup(uniqueName('lh-trust-group'), 'affinity');
    leftovers.groups.push(group.id);
    expect(group).toMatchObject({ project_id: env.demoProjectId, user_id: await demo.userId() });
    expect((await demoNova.listServerGroups()).map((g) => g.id)).toContain(group.id);

    const { id } = await demoNova.createServer({
      name: uniqueName('lh-trust-vm'),
      imageRef: env.imageId,
      flavorRef: env.flavorId,
      networks: 'none',
      schedulerHints: { group: group.id },
    });
    leftovers.servers.push(id);
    const server = await eventually<Server>(
      'the server to leave BUILD',
      async () => {
        const s = await adminNova.getServer(id);
        return s.status === 'BUILD' ? undefined : s;
      },
      90_000,
    );
    expect(server.status).toBe('ACTIVE');
    expect((await adminNova.getServerGroup(group.id)).members).toContain(id);

    await demoNova.deleteServer(id);
    await eventually(
      'the server to go',
      async () =>
        (await adminNova.getServer(id).then(
          () => false,
          (e: unknown) => isNotFound(e),
        ))
          ? true
          : undefined,
      90_000,
    );
    await trustNova.deleteServerGroup(group.id);
    expect(await groupOrNull(group.id)).toBeNull();
  });

  it(
    "with a trust the adapter puts the lease's group in the lease's project and removes it through the trust at end",
    { timeout: 120_000 },
    async () => {
      const trustId = await demoTrust();
      const r = reservation();
      const name = reservationObjectName(r.id);
      const started = await effects.onStart(context(r, 'start', trustId), r);
      const created = started.find((e) => e.operation === 'server_group.create');
      expect(created).toEqual({
        operation: 'server_group.create',
        server_group: name,
        server_group_id: expect.any(String) as string,
        policy: 'affinity',
        project_id: env.demoProjectId,
        trust_id: trustId,
      });
      const groupId = String(created?.server_group_id);
      expect((await demoNova.listServerGroups()).find((g) => g.name === name)?.id).toBe(groupId);

      const again = await effects.onStart(context(r, 'start', trustId), r);
      expect(again.find((e) => e.operation === 'server_group.create')).toMatchObject({ server_group_id: groupId, already: true });

      const ended = await effects.onEnd(context(r, 'end', trustId), r);
      expect(ended.find((e) => e.operation === 'server_group.delete')).toEqual({
        operation: 'server_group.delete',
        server_group: name,
        server_group_id: groupId,
        via: 'trust',
      });
      expect(await groupOrNull(groupId)).toBeNull();

      expect(await trustEffects.deleteTrust(context(r, 'end', trustId), trustId)).toEqual([
        { operation: 'trust.delete', trust_id: trustId },
      ]);
      expect(await trustEffects.deleteTrust(context(r, 'end', trustId), trustId)).toEqual([
        { operation: 'trust.delete', trust_id: trustId, already: true },
      ]);
      expect(await trusts.getTrust(trustId)).toBeNull();
    },
  );

  it(
    'once the trust is gone a start fails naming it, and an end rerun still removes the group, as Leasehold',
    { timeout: 120_000 },
    async () => {
      const trustId = await demoTrust();
      const r = reservation();
      const started = await effects.onStart(context(r, 'start', trustId), r);
      const groupId = String(started.find((e) => e.operation === 'server_group.create')?.server_group_id);
      await trusts.deleteTrust(trustId);
      await expect(effects.onStart(context(r, 'start', trustId), r)).rejects.toThrow(
        `Keystone refused a token for the lease's trust ${trustId} (HTTP 401)`,
      );

      const ended = await effects.onEnd(context(r, 'end', trustId), r);
      expect(ended.find((e) => e.operation === 'server_group.delete')).toMatchObject({
        server_group_id: groupId,
        via: 'service, the trust refused',
      });
      expect(await groupOrNull(groupId)).toBeNull();
    },
  );

  it("without a trust the group is in Leasehold's own project, and the record says so", { timeout: 120_000 }, async () => {
    const r = reservation();
    const started = await effects.onStart(context(r, 'start', null), r);
    const created = started.find((e) => e.operation === 'server_group.create');
    expect(created).toMatchObject({
      project_id: await service.projectId(),
      trust_id: null,
      note: expect.stringMatching(/^no trust/) as string,
    });
    expect((await demoNova.listServerGroups()).map((g) => g.id)).not.toContain(created?.server_group_id);
    // the problem trusts solve: Nova does not let demo use another project's group as a hint
    const boot = demoNova.createServer({
      name: uniqueName('lh-trust-vm'),
      imageRef: env.imageId,
      flavorRef: env.flavorId,
      networks: 'none',
      schedulerHints: { group: String(created?.server_group_id) },
    });
    await expect(boot).rejects.toMatchObject({ status: 400, cloudMessage: expect.stringMatching(/could not be found/) as string });
    const ended = await effects.onEnd(context(r, 'end', null), r);
    expect(ended.find((e) => e.operation === 'server_group.delete')).toMatchObject({
      server_group_id: created?.server_group_id,
      via: 'service',
    });
  });
});

/** fake-host-3 is also used by the instance effects tests, which never run at the same time as this file. */
const HOST = 'fake-host-3';

describe.skipIf(!on)('lease trusts through the API in auth mode keystone (api + projector + reactor on the real cloud)', () => {
  const env = on ? openStackEnv() : (undefined as never);
  const admin = on ? sessionFor(env.admin) : (undefined as never);
  const demo = on ? sessionFor(env.demo) : (undefined as never);
  const nova = on ? new NovaClient(admin) : (undefined as never);
  const demoNova = on ? new NovaClient(demo) : (undefined as never);
  const placement = on ? new PlacementClient(admin) : (undefined as never);
  const trusts = on ? new KeystoneTrustsClient(sessionFor(env.service)) : (undefined as never);
  const freepool = uniqueName('lh-trust-freepool');
  let system: RunningSystem;
  let hostId = '';
  const leases: string[] = [];

  /** The API as a user with that user's own Keystone token. */
  const call = async (as: typeof admin, method: string, path: string, body?: unknown): Promise<JsonResponse> => {
    const response = await fetch(`${system.url}${path}`, {
      method,
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'X-Auth-Token': await as.token() },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text === '' ? null : JSON.parse(text) };
  };
  const demoTrustIds = async (): Promise<string[]> => {
    const query = { trustor_user_id: await demo.userId() };
    return (await demo.request<{ trusts: { id: string }[] }>('identity', 'GET', '/OS-TRUST/trusts', { query })).body.trusts.map(
      (t) => t.id,
    );
  };
  const members = (name: string): Promise<readonly string[] | null> => aggregateMembers(nova, name);
  /** The lease stream's events as stored (data and metadata JSON text). */
  const storedEvents = (leaseId: string): { type: string; data: string; metadata: string }[] => {
    const db = new Database(join(system.dataDir, 'events.sqlite'), { readonly: true });
    try {
      return db.prepare('select type, data, metadata from events where stream_id = ? order by position').all(`lease-${leaseId}`) as {
        type: string;
        data: string;
        metadata: string;
      }[];
    } finally {
      db.close();
    }
  };
  const inAnHour = (): string => new Date(Date.now() + 3_600_000).toISOString().slice(0, 16).replace('T', ' ');

  beforeAll(async () => {
    system = await startSystem({
      env: {
        LEASEHOLD_AUTH: 'keystone',
        LEASEHOLD_KEYSTONE_URL: env.authUrl,
        LEASEHOLD_KEYSTONE_USERNAME: env.service.username,
        LEASEHOLD_KEYSTONE_PASSWORD: env.service.password,
        LEASEHOLD_KEYSTONE_PROJECT_NAME: env.service.projectName,
        ...cloudSystemEnv(env),
        LEASEHOLD_FREEPOOL_NAME: freepool,
        LEASEHOLD_HOST_POLLING_SECONDS: '0',
        LEASEHOLD_RECONCILE_SECONDS: '0',
      },
    });
  }, 60_000);

  afterAll(async () => {
    for (const id of leases) await call(demo, 'DELETE', `/v1/leases/${id}`).catch(() => undefined);
    if (hostId !== '') await call(admin, 'DELETE', `/v1/os-hosts/${hostId}`).catch(() => undefined);
    await system?.stop();
    const found = await nova.findAggregate(freepool).catch(() => null);
    if (found !== null) {
      for (const member of found.hosts) await ignoreNotFound(nova.removeAggregateHost(found.id, member)).catch(() => undefined);
      await ignoreNotFound(nova.deleteAggregate(found.id)).catch(() => undefined);
    }
    await emptyChildProvider(placement, HOST).catch(() => undefined);
  });

  it('an admin registers the host; the reactor enrolls it', { timeout: 90_000 }, async () => {
    const created = await call(admin, 'POST', '/v1/os-hosts', { name: HOST });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    hostId = created.body.host.id;
    await eventually(
      'the host in the freepool',
      async () => ((await members(freepool))?.includes(HOST) === true ? true : undefined),
      60_000,
    );
  });

  it(
    "demo's affinity lease has a trust; its group is in demo's project; the end removes group and trust",
    { timeout: 180_000 },
    async () => {
      const size = { vcpus: 1, memory_mb: 128, disk_gb: 1 };
      const created = await call(demo, 'POST', '/v1/leases', {
        name: uniqueName('lh-trust-lease'),
        start_date: 'now',
        end_date: inAnHour(),
        reservations: [instanceReservation(1, size, { affinity: true })],
        events: [],
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const leaseId: string = created.body.lease.id;
      leases.push(leaseId);
      const trustId: string = created.body.lease.trust_id;
      expect(trustId).toMatch(/^[0-9a-f]{32}$/);
      expect(await trusts.getTrust(trustId)).toMatchObject({
        trustor_user_id: await demo.userId(),
        project_id: env.demoProjectId,
        impersonation: true,
      });

      const active = await eventually(
        'the lease ACTIVE',
        async () => {
          const lease = (await call(demo, 'GET', `/v1/leases/${leaseId}`)).body.lease;
          return lease.status === 'ACTIVE' ? lease : undefined;
        },
        120_000,
      );
      expect(active.trust_id).toBe(trustId);
      const groupId: string = active.reservations[0].server_group_id;
      expect((await demoNova.getServerGroup(groupId)).project_id).toBe(env.demoProjectId);

      const ended = await call(demo, 'PUT', `/v1/leases/${leaseId}`, { end_date: 'now' });
      expect(ended.status, JSON.stringify(ended.body)).toBe(200);
      await eventually(
        'the lease TERMINATED',
        async () => ((await call(demo, 'GET', `/v1/leases/${leaseId}`)).body.lease.status === 'TERMINATED' ? true : undefined),
        120_000,
      );
      await expect(nova.getServerGroup(groupId)).rejects.toMatchObject({ status: 404 });
      expect(await trusts.getTrust(trustId)).toBeNull();

      const events = storedEvents(leaseId);
      const records = events
        .filter((e) => e.type === 'Reservation.EffectsApplied')
        .flatMap((e) => (JSON.parse(e.data) as { effects: unknown[] }).effects);
      expect(records).toContainEqual({ operation: 'trust.delete', trust_id: trustId });
      expect(records).toContainEqual(expect.objectContaining({ operation: 'server_group.delete', server_group_id: groupId, via: 'trust' }));
      const token = await demo.token();
      expect(events.some((e) => e.data.includes(token) || e.metadata.includes(token))).toBe(false);
      expect(system.output()).not.toContain(token);
    },
  );

  it('a lease the API refuses takes its trust back', { timeout: 60_000 }, async () => {
    const before = await demoTrustIds();
    const refused = await call(demo, 'POST', '/v1/leases', {
      name: uniqueName('lh-trust-refused'),
      start_date: 'now',
      end_date: inAnHour(),
      reservations: [instanceReservation(100_000, { vcpus: 1, memory_mb: 128, disk_gb: 1 })],
      events: [],
    });
    // refused by the allocation, after the trust was made
    expect(refused.status, JSON.stringify(refused.body)).toBe(409);
    expect((await demoTrustIds()).sort()).toEqual(before.sort());
  });

  it('a lease deleted before its start has no end to delete its trust: the delete releases it', { timeout: 60_000 }, async () => {
    const inTwoHours = new Date(Date.now() + 7_200_000).toISOString().slice(0, 16).replace('T', ' ');
    const created = await call(demo, 'POST', '/v1/leases', {
      name: uniqueName('lh-trust-pending'),
      start_date: inAnHour(),
      end_date: inTwoHours,
      reservations: [instanceReservation(1, { vcpus: 1, memory_mb: 128, disk_gb: 1 })],
      events: [],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const leaseId: string = created.body.lease.id;
    leases.push(leaseId);
    const trustId: string = created.body.lease.trust_id;
    expect(await demoTrustIds()).toContain(trustId);
    // an admin deletes it: the service user releases the trust through the trust itself
    const deleted = await call(admin, 'DELETE', `/v1/leases/${leaseId}`);
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(204);
    expect(await trusts.getTrust(trustId)).toBeNull();
    expect(await demoTrustIds()).not.toContain(trustId);
  });
});
