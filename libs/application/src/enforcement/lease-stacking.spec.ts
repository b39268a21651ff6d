import { describe, expect, it } from 'vitest';
import { quotaStream } from '#domain/index.js';
import type { EventStore } from '#event-store/event-store.port.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { buildHostRequest } from '#plugins/physical-host/host-reservation.request.js';
import { QUOTAS } from '#plugins/reservation-holdings.js';
import { LeaseUseCases } from '../leases/lease.use-cases.js';
import { QuotaIndex } from '../quotas/quota-index.js';
import { Quotas } from '../quotas/quotas.js';
import { commandMetadata, testCaller } from '../testing/application.specification.js';
import { at, hostRegistered } from '../testing/calendars.fixture.js';
import { appendGiven } from '../testing/given-events.js';
import { heldBack, leaseChanges as changes, leasesIn, processContext } from '../testing/api-processes.js';
import { enforcementConfigFromEnv } from './enforcement.config.js';
import { indexResources } from './index-resources.js';
import { usageEnforcement } from './usage-enforcement.js';

/** At most 2 leases at once per resource_properties expression; project-x exempt. */
const STACKING = {
  LEASEHOLD_ENFORCEMENT_FILTERS: 'lease_stacking',
  LEASEHOLD_LEASE_STACKING_MAX: '2',
  LEASEHOLD_LEASE_STACKING_EXEMPT_PROJECTS: 'project-x',
};
const BY_NODE_TYPE = { ...STACKING, LEASEHOLD_LEASE_STACKING_SCOPE: 'property:node_type' };
const GPU = '["=", "$node_type", "gpu"]';
const CPU = '["=", "$node_type", "cpu"]';
const RACK_1 = '["=", "$rack", "r1"]';
const RACK_2 = '["=", "$rack", "r2"]';
const HOSTS = [
  ...['1', '2', '3', '4', '5', '6'].map((id) => hostRegistered(id, { node_type: 'gpu', rack: Number(id) > 3 ? 'r2' : 'r1' })),
  ...['7', '8', '9'].map((id) => hostRegistered(id, { node_type: 'cpu', rack: 'r3' })),
];
const REFUSAL = (scope: string, count: number, from: number, project = 'project-1') =>
  `Lease stacking limit exceeded for project ${project}: overlapping leases on ${scope} limit 2, this lease would make it ${count} from 2030-01-01 ${String(from).padStart(2, '0')}:00`;
const ON_GPU = 'physical:host reservations with resource_properties ["=","$node_type","gpu"]';

const member = (projectId = 'project-1', hour = 9) => commandMetadata(testCaller('member', projectId, `${projectId}-user`), at(hour));
const admin = commandMetadata(testCaller('admin', 'project-1', 'admin-user'), at(9));
const leaseOn = (resourceProperties: string, from = 10, to = 18) => ({
  name: `lease-${from}-${to}`,
  startDate: at(from),
  endDate: at(to),
  beforeEndDate: null,
  reservations: [buildHostRequest({ min: 1, max: 1, hypervisorProperties: '', resourceProperties, beforeEnd: 'default' })],
});

/** One API process over the log: its own handler and indexes, the filters `env` configures, quotas without limits. */
const processOf = (store: EventStore, name: string, env: Record<string, string> = STACKING) => {
  const context = processContext(store, name);
  const config = enforcementConfigFromEnv(env);
  const enforcement = usageEnforcement({ config, service: null, resources: indexResources(context.index), warn: () => undefined });
  return new LeaseUseCases(
    context,
    undefined,
    enforcement,
    new Quotas(new QuotaIndex(store), { defaults: QUOTAS.noLimits, metricTopN: 10 }),
  );
};

const withStore = async (test: (store: EventStore) => Promise<void>): Promise<void> => {
  const store = SqliteEventStore.open({ file: ':memory:' });
  try {
    await appendGiven(store, HOSTS);
    await test(store);
  } finally {
    await store.close();
  }
};

const create = (leases: LeaseUseCases, data: ReturnType<typeof leaseOn>, metadata = member()) =>
  leases.create({ type: 'CreateLease', data, metadata });

describe('the lease_stacking filter on lease writes (a limit of 2)', () => {
  it('Given two overlapping leases on GPU nodes, When a third overlapping one is asked, Then a 403 names the scope, the limit and the count, and nothing is recorded', async () => {
    await withStore(async (store) => {
      const leases = processOf(store, 'a');
      const first = await create(leases, leaseOn(GPU, 10, 18));
      const second = await create(leases, leaseOn(GPU, 12, 20));
      const head = await store.headPosition();
      await expect(create(leases, leaseOn(GPU, 16, 22))).rejects.toMatchObject({
        code: 'ENFORCEMENT_LEASE_STACKING',
        kind: 'forbidden',
        message: REFUSAL(ON_GPU, 3, 16),
      });
      expect(await store.headPosition()).toBe(head);
      expect(await leasesIn(store)).toEqual([first.leaseId, second.leaseId]);
      const fenced = (await store.readStream(quotaStream('project-1'))).map((e) => (e.data as { leaseId: string }).leaseId);
      expect(fenced).toEqual([first.leaseId, second.leaseId]);
    });
  });

  it('Given two overlapping leases, When the next one starts as they end, asks other properties, or is of another project, Then each is booked', async () => {
    await withStore(async (store) => {
      const leases = processOf(store, 'a');
      await create(leases, leaseOn(GPU, 10, 18));
      await create(leases, leaseOn(GPU, 10, 18));
      await create(leases, leaseOn(GPU, 18, 20));
      await create(leases, leaseOn(GPU, 6, 10), member('project-1', 5));
      await create(leases, leaseOn(CPU, 10, 18));
      await create(leases, leaseOn(GPU, 10, 18), member('project-2'));
      expect(await leasesIn(store)).toHaveLength(6);
    });
  });

  it('Given two overlapping leases, When one is deleted or has ended, Then it no longer counts', async () => {
    await withStore(async (store) => {
      const leases = processOf(store, 'a');
      const deleted = await create(leases, leaseOn(GPU, 10, 18));
      const ended = await create(leases, leaseOn(GPU, 10, 18));
      await leases.delete({ type: 'DeleteLease', data: { leaseId: deleted.leaseId }, metadata: member() });
      await create(leases, leaseOn(GPU, 10, 18));
      await expect(create(leases, leaseOn(GPU, 10, 18))).rejects.toMatchObject({ code: 'ENFORCEMENT_LEASE_STACKING' });
      // ended early, before its end date: its window reaches on, yet it holds nothing
      const stream = `lease-${ended.leaseId}`;
      await appendGiven(store, [
        { streamId: stream, type: 'Lease.StartRequested', data: { leaseId: ended.leaseId, at: at(10) } },
        { streamId: stream, type: 'Lease.Started', data: { leaseId: ended.leaseId, at: at(10) } },
        { streamId: stream, type: 'Lease.EndRequested', data: { leaseId: ended.leaseId, at: at(11), reason: 'scheduled' } },
        { streamId: stream, type: 'Lease.Ended', data: { leaseId: ended.leaseId, at: at(11) } },
      ]);
      await create(leases, leaseOn(GPU, 12, 18), member('project-1', 11));
    });
  });

  it('Given a lease beside two overlapping ones, When an update extends it into their overlap, Then it is refused and the lease stays as it was', async () => {
    await withStore(async (store) => {
      const leases = processOf(store, 'a');
      await create(leases, leaseOn(GPU, 10, 18));
      await create(leases, leaseOn(GPU, 12, 20));
      const { leaseId } = await create(leases, leaseOn(GPU, 20, 22));
      const update = leases.update({ type: 'UpdateLease', data: { leaseId, changes: changes({ startDate: at(17) }) }, metadata: member() });
      await expect(update).rejects.toMatchObject({ code: 'ENFORCEMENT_LEASE_STACKING', message: REFUSAL(ON_GPU, 3, 17) });
      expect((await store.readStream(`lease-${leaseId}`)).map((e) => e.type)).toEqual(['Lease.Created']);
    });
  });

  it('Given three overlapping leases booked before the filter was enabled, When one is renamed or shortened, Then it passes', async () => {
    await withStore(async (store) => {
      const unlimited = processOf(store, 'before', {});
      for (const _ of [1, 2]) await create(unlimited, leaseOn(GPU, 10, 18));
      const { leaseId } = await create(unlimited, leaseOn(GPU, 10, 18));
      const leases = processOf(store, 'a');
      for (const fields of [{ name: 'renamed' }, { endDate: at(16) }])
        await leases.update({ type: 'UpdateLease', data: { leaseId, changes: changes(fields) }, metadata: member() });
      expect((await store.readStream(`lease-${leaseId}`)).map((e) => e.type)).toEqual([
        'Lease.Created',
        'Lease.Renamed',
        'Lease.Rescheduled',
      ]);
    });
  });

  it('Given two overlapping leases, When an admin of the project asks a third, Then the admin is held to the limit; an exempt project is not', async () => {
    await withStore(async (store) => {
      const leases = processOf(store, 'a');
      for (const metadata of [member(), member(), member('project-x'), member('project-x')]) await create(leases, leaseOn(GPU), metadata);
      await expect(create(leases, leaseOn(GPU), admin)).rejects.toMatchObject({ code: 'ENFORCEMENT_LEASE_STACKING' });
      await create(leases, leaseOn(GPU), member('project-x'));
    });
  });

  it('Given leases on GPU nodes asked by node_type, When a third asks a rack of GPU nodes, Then the node_type scope refuses it and the expression scope does not', async () => {
    await withStore(async (store) => {
      const byNodeType = processOf(store, 'a', BY_NODE_TYPE);
      await create(byNodeType, leaseOn(GPU));
      await create(byNodeType, leaseOn(GPU));
      await expect(create(byNodeType, leaseOn(RACK_2))).rejects.toMatchObject({
        code: 'ENFORCEMENT_LEASE_STACKING',
        message: REFUSAL('hosts with node_type=gpu', 3, 10),
      });
      await create(byNodeType, leaseOn(CPU));
      await create(processOf(store, 'b'), leaseOn(RACK_2));
    });
  });

  it('Given one lease on GPU nodes, When two processes each admit one on GPU nodes of another rack, decided on the same state, Then the later append is judged again and refused', async () => {
    await withStore(async (store) => {
      const { leaseId } = await create(processOf(store, 'given', BY_NODE_TYPE), leaseOn(GPU));
      const held = heldBack(store);
      // no host is wanted by both: only the project's quota stream stands between them
      const first = create(processOf(held.view, 'a', BY_NODE_TYPE), leaseOn(RACK_1));
      await held.decided;
      const second = await create(processOf(store, 'b', BY_NODE_TYPE), leaseOn(RACK_2));
      held.release();
      await expect(first).rejects.toMatchObject({
        code: 'ENFORCEMENT_LEASE_STACKING',
        message: REFUSAL('hosts with node_type=gpu', 3, 10),
      });
      expect(await leasesIn(store)).toEqual([leaseId, second.leaseId]);
    });
  });

  it('Given the filter off, When two processes do the same, Then both are recorded: the fence is what keeps the limit', async () => {
    await withStore(async (store) => {
      await create(processOf(store, 'given', {}), leaseOn(GPU));
      const held = heldBack(store);
      const first = create(processOf(held.view, 'a', {}), leaseOn(RACK_1));
      await held.decided;
      await create(processOf(store, 'b', {}), leaseOn(RACK_2));
      held.release();
      await first;
      expect(await leasesIn(store)).toHaveLength(3);
    });
  });
});
