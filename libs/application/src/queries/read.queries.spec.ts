import type { MikroORM } from '@mikro-orm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FlavorEntity, HostEntity, LeaseEntity, type LeaseView, ReadModelQueries, openReadModel } from '#read-model/index.js';
import { testCaller } from '../testing/application.specification.js';
import { ReadQueries } from './read.queries.js';

/** Rows as the projector writes them; only what the queries look at. */
const leaseRow = (id: string, projectId: string) => ({
  id,
  projectId,
  userId: `${projectId}-user`,
  name: id,
  startDate: '2030-01-01T00:00:00.000Z',
  endDate: '2030-01-02T00:00:00.000Z',
  status: 'PENDING',
  // recorded at position 5: as of an earlier one it did not exist yet
  since: 5,
  doc: {
    id,
    project_id: projectId,
    user_id: `${projectId}-user`,
    name: id,
    created_at: '2029-12-31T10:00:00.000000',
  } as unknown as LeaseView,
});

describe('read queries: who may read what (upstream policy)', () => {
  let orm: MikroORM;
  let queries: ReadQueries;
  const admin = testCaller('admin', 'admin-project');
  const member = testCaller('member', 'project-1');
  const other = testCaller('member', 'project-2');

  beforeAll(async () => {
    orm = await openReadModel({ kind: 'sqlite', file: ':memory:' });
    const em = orm.em.fork();
    em.create(LeaseEntity, leaseRow('lease-1', 'project-1'));
    em.create(LeaseEntity, leaseRow('lease-2', 'project-2'));
    em.create(HostEntity, { id: '1', hypervisorHostname: 'h1', sortKey: 1, doc: { id: '1' }, capabilities: {} });
    const flavor = (id: string, isPublic: boolean) => ({ id, name: id, isPublic, doc: { id } as never });
    em.create(FlavorEntity, flavor('public', true));
    em.create(FlavorEntity, flavor('private', false));
    await em.flush();
    queries = new ReadQueries(new ReadModelQueries(orm));
  });

  afterAll(async () => {
    await orm.close();
  });

  it("leases: an admin sees every project, a member its own; another project's lease is a 403, a missing one a 404", async () => {
    expect((await queries.leases(admin)).map((l) => l.id)).toEqual(['lease-1', 'lease-2']);
    expect((await queries.leases(member)).map((l) => l.id)).toEqual(['lease-1']);
    await expect(queries.lease(member, 'lease-1')).resolves.toMatchObject({ id: 'lease-1' });
    await expect(queries.lease(other, 'lease-1')).rejects.toMatchObject({ code: 'POLICY_NOT_AUTHORIZED' });
    await expect(queries.lease(member, 'nope')).rejects.toMatchObject({ code: 'LEASE_NOT_FOUND' });
  });

  it('as of an instant before a lease existed: still a 404, which says it did not exist yet and when it was created', async () => {
    const past = queries.asOf({ position: 1, instant: '2029-12-01T00:00:00.000Z' });
    await expect(past.lease(member, 'lease-1')).rejects.toMatchObject({
      kind: 'not_found',
      code: 'LEASE_NOT_YET_CREATED',
      message:
        "Object with {'lease_id': 'lease-1'} not found as of 2029-12-01T00:00:00.000Z: the lease did not exist yet (created at 2029-12-31T10:00:00.000000)",
    });
    await expect(past.lease(other, 'lease-1')).rejects.toMatchObject({ code: 'POLICY_NOT_AUTHORIZED' });
    await expect(past.lease(member, 'nope')).rejects.toMatchObject({
      code: 'LEASE_NOT_FOUND',
      message: "Object with {'lease_id': 'nope'} not found",
    });
  });

  it('hosts and their allocations are admin-only, and the policy comes before the 404', async () => {
    expect(await queries.hosts(admin)).toHaveLength(1);
    await expect(queries.hosts(member)).rejects.toMatchObject({ code: 'POLICY_NOT_AUTHORIZED' });
    await expect(queries.host(member, '999')).rejects.toMatchObject({ code: 'POLICY_NOT_AUTHORIZED' });
    await expect(queries.host(admin, '999')).rejects.toMatchObject({ code: 'HOST_NOT_FOUND' });
    await expect(queries.hostAllocations(member, { leaseId: null, reservationId: null }, '2030-01-01T00:00:00.000Z')).rejects.toMatchObject(
      { kind: 'forbidden' },
    );
  });

  it('flavors: a private one is not found by a member, listed for an admin', async () => {
    expect((await queries.flavors(member)).map((f) => f.id)).toEqual(['public']);
    expect((await queries.flavors(admin)).map((f) => f.id)).toEqual(['private', 'public']);
    await expect(queries.flavor(member, 'private')).rejects.toMatchObject({ code: 'FLAVOR_NOT_FOUND' });
    await expect(queries.flavor(admin, 'private')).resolves.toMatchObject({ id: 'private' });
  });
});
