import { describe, expect, it } from 'vitest';
import { type LeaseEvent, type QuotaChanges, type QuotaLimits, quotaStream } from '#domain/index.js';
import { QUOTAS } from '#plugins/reservation-holdings.js';
import type { EventStore } from '#event-store/event-store.port.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { buildHostRequest } from '#plugins/physical-host/host-reservation.request.js';
import { patchOf } from '#plugins/testing/reservation-patch.fixture.js';
import { LeaseUseCases } from '../leases/lease.use-cases.js';
import { commandMetadata, testCaller } from '../testing/application.specification.js';
import { at, hostRegistered } from '../testing/calendars.fixture.js';
import { appendGiven } from '../testing/given-events.js';
import { heldBack, leaseChanges as changes, leasesIn, processContext } from '../testing/api-processes.js';
import { QuotaIndex } from './quota-index.js';
import { QuotaUseCases } from './quota.use-cases.js';
import { Quotas } from './quotas.js';

const member = commandMetadata(testCaller('member', 'project-1', 'member-user'), at(9));
const admin = commandMetadata(testCaller('admin', 'admin-project', 'admin-user'), at(9));
const onSide = (side: string) =>
  buildHostRequest({ min: 1, max: 1, hypervisorProperties: '', resourceProperties: `["=", "$side", "${side}"]`, beforeEnd: 'default' });
const leaseOn = (side: string, from = 10, to = 18) => ({
  name: `lease-${side}`,
  startDate: at(from),
  endDate: at(to),
  beforeEndDate: null,
  reservations: [onSide(side)],
});

/** One API process: its own handler and indexes over the shared log. */
const processOf = (store: EventStore, name: string, limits: QuotaLimits = { ...QUOTAS.noLimits, hosts: 1 }) => {
  const context = processContext(store, name);
  const quotas = new Quotas(new QuotaIndex(store), { defaults: limits, metricTopN: 10 });
  return { leases: new LeaseUseCases(context, undefined, undefined, quotas), quotas: new QuotaUseCases(context, quotas) };
};
const apiProcess = (store: EventStore, name: string, limits?: QuotaLimits) => processOf(store, name, limits).leases;

const setQuota = (store: EventStore, name: string, quota: QuotaChanges) =>
  processOf(store, name, QUOTAS.noLimits).quotas.set({
    type: 'SetQuota',
    data: { projectId: 'project-1', changes: quota },
    metadata: admin,
  });

const createdLease = async (store: EventStore, side: string, from = 10, to = 18, limits?: QuotaLimits) => {
  const { leaseId, events } = await apiProcess(store, `given-${side}`, limits).create({
    type: 'CreateLease',
    data: leaseOn(side, from, to),
    metadata: member,
  });
  const created = events.find((e): e is Extract<LeaseEvent, { type: 'Lease.Created' }> => e.type === 'Lease.Created');
  return { leaseId, reservationId: created?.data.reservations[0]?.id ?? '' };
};

describe('the quota fence between two processes', () => {
  it('Given a limit of 1 host and two processes each admitting a lease on a host of its own, When one appends after the other decided, Then it is decided again and refused', async () => {
    const store = SqliteEventStore.open({ file: ':memory:' });
    try {
      await appendGiven(store, [hostRegistered('1', { side: 'a' }), hostRegistered('2', { side: 'b' })]);
      const held = heldBack(store);
      const first = apiProcess(held.view, 'a').create({ type: 'CreateLease', data: leaseOn('a'), metadata: member });
      // the first has decided on an empty project and waits to append; the second is admitted meanwhile
      await held.decided;
      const second = await apiProcess(store, 'b').create({ type: 'CreateLease', data: leaseOn('b'), metadata: member });
      held.release();
      await expect(first).rejects.toMatchObject({
        code: 'QUOTA_EXCEEDED',
        message: 'Quota exceeded for project project-1: hosts held at once limit 1, this lease would make it 2',
      });
      const events = await store.readAll({ from: 0 });
      expect(events.filter((e) => e.type === 'Lease.Created').map((e) => (e.data as { leaseId: string }).leaseId)).toEqual([
        second.leaseId,
      ]);
      expect(events.filter((e) => e.streamId === quotaStream('project-1')).map((e) => e.type)).toEqual(['Quota.LeaseAdmitted']);
    } finally {
      await store.close();
    }
  });

  it('Given a project without limits, When two processes admit leases the same way, Then both are recorded and nothing is fenced', async () => {
    const store = SqliteEventStore.open({ file: ':memory:' });
    try {
      await appendGiven(store, [hostRegistered('1', { side: 'a' }), hostRegistered('2', { side: 'b' })]);
      const held = heldBack(store);
      const first = apiProcess(held.view, 'a', QUOTAS.noLimits).create({ type: 'CreateLease', data: leaseOn('a'), metadata: member });
      await held.decided;
      await apiProcess(store, 'b', QUOTAS.noLimits).create({ type: 'CreateLease', data: leaseOn('b'), metadata: member });
      held.release();
      await first;
      const events = await store.readAll({ from: 0 });
      expect(events.filter((e) => e.type === 'Lease.Created')).toHaveLength(2);
      expect(events.filter((e) => e.streamId.startsWith('quota-'))).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('Given a limit of 2 hosts and one held, When one process admits a second while another lowers the limit to 1, Then the admission is decided again and refused', async () => {
    const store = SqliteEventStore.open({ file: ':memory:' });
    try {
      await appendGiven(store, [hostRegistered('1', { side: 'a' }), hostRegistered('2', { side: 'b' })]);
      await setQuota(store, 'setup', { hosts: 2 });
      const { leaseId } = await createdLease(store, 'a', 10, 18, QUOTAS.noLimits);
      const held = heldBack(store);
      const first = apiProcess(held.view, 'a', QUOTAS.noLimits).create({ type: 'CreateLease', data: leaseOn('b'), metadata: member });
      await held.decided;
      await setQuota(store, 'b', { hosts: 1 });
      held.release();
      await expect(first).rejects.toMatchObject({
        code: 'QUOTA_EXCEEDED',
        message: 'Quota exceeded for project project-1: hosts held at once limit 1, this lease would make it 2',
      });
      expect(await leasesIn(store)).toEqual([leaseId]);
    } finally {
      await store.close();
    }
  });

  it('Given a limit of 1 host and a lease until 12:00, When one process extends it to 16:00 while another admits a lease from 14:00, Then the extension is decided again and refused', async () => {
    const store = SqliteEventStore.open({ file: ':memory:' });
    try {
      await appendGiven(store, [hostRegistered('1', { side: 'a' }), hostRegistered('2', { side: 'b' })]);
      const { leaseId } = await createdLease(store, 'a', 10, 12);
      const held = heldBack(store);
      const extension = apiProcess(held.view, 'a').update({
        type: 'UpdateLease',
        data: { leaseId, changes: changes({ endDate: at(16) }) },
        metadata: member,
      });
      await held.decided;
      const other = await apiProcess(store, 'b').create({ type: 'CreateLease', data: leaseOn('b', 14, 16), metadata: member });
      held.release();
      await expect(extension).rejects.toMatchObject({
        code: 'QUOTA_EXCEEDED',
        message: 'Quota exceeded for project project-1: hosts held at once limit 1, this lease would make it 2',
      });
      expect(await leasesIn(store)).toEqual([leaseId, other.leaseId]);
      expect((await store.readStream(`lease-${leaseId}`)).map((e) => e.type)).toEqual(['Lease.Created']);
    } finally {
      await store.close();
    }
  });

  it('Given a limit of 2 hosts and a lease of 1, When one process grows its reservation to 2 hosts while another admits a lease of 1, Then the growth is decided again and refused', async () => {
    const store = SqliteEventStore.open({ file: ':memory:' });
    const twoHosts = { ...QUOTAS.noLimits, hosts: 2 };
    try {
      await appendGiven(store, [
        hostRegistered('1', { side: 'a' }),
        hostRegistered('3', { side: 'a' }),
        hostRegistered('2', { side: 'b' }),
      ]);
      const { leaseId, reservationId } = await createdLease(store, 'a', 10, 18, twoHosts);
      const held = heldBack(store);
      const growth = apiProcess(held.view, 'a', twoHosts).update({
        type: 'UpdateLease',
        data: { leaseId, changes: changes({ reservations: [patchOf(reservationId, { min: 2, max: 2 })] }) },
        metadata: member,
      });
      await held.decided;
      await apiProcess(store, 'b', twoHosts).create({ type: 'CreateLease', data: leaseOn('b'), metadata: member });
      held.release();
      await expect(growth).rejects.toMatchObject({
        code: 'QUOTA_EXCEEDED',
        message: 'Quota exceeded for project project-1: hosts held at once limit 2, this lease would make it 3',
      });
      expect((await store.readStream(`lease-${leaseId}`)).map((e) => e.type)).toEqual(['Lease.Created']);
    } finally {
      await store.close();
    }
  });

  it('Given a project without limits, When a limit of 1 host is set while an admission decided without it waits, and another process admits under it, Then the waiting one is decided again and refused', async () => {
    const store = SqliteEventStore.open({ file: ':memory:' });
    try {
      await appendGiven(store, [hostRegistered('1', { side: 'a' }), hostRegistered('2', { side: 'b' })]);
      const held = heldBack(store);
      const first = apiProcess(held.view, 'a', QUOTAS.noLimits).create({ type: 'CreateLease', data: leaseOn('a'), metadata: member });
      await held.decided;
      await setQuota(store, 'admin', { hosts: 1 });
      const second = await apiProcess(store, 'b', QUOTAS.noLimits).create({ type: 'CreateLease', data: leaseOn('b'), metadata: member });
      held.release();
      await expect(first).rejects.toMatchObject({
        code: 'QUOTA_EXCEEDED',
        message: 'Quota exceeded for project project-1: hosts held at once limit 1, this lease would make it 2',
      });
      expect(await leasesIn(store)).toEqual([second.leaseId]);
    } finally {
      await store.close();
    }
  });
});
