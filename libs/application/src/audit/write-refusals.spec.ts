import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { conflict } from '#domain/index.js';
import type { EventStore } from '#event-store/event-store.port.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { policyNotAuthorized } from '../caller.js';
import { commandMetadata, testCaller } from '../testing/application.specification.js';
import { WriteRefusals } from './write-refusals.js';

let audit: EventStore;
let refusals: WriteRefusals;
let ids = 0;

const member = (projectId: string) => testCaller('member', projectId);
const admin = testCaller('admin', 'admin-project');

const refuse = (projectId: string, now: string, status: 403 | 409) =>
  refusals.record(commandMetadata(member(projectId), now), {
    operation: 'updateLease',
    method: 'PUT',
    path: '/v1/leases/l-1',
    status,
    lease: { id: 'l-1', name: null },
    error: status === 403 ? policyNotAuthorized('blazar:leases:put') : conflict('HOST_RESERVED', 'Host 7 is reserved'),
  });

beforeEach(() => {
  audit = SqliteEventStore.open({ file: ':memory:' });
  refusals = new WriteRefusals(audit, () => `audit-id-${++ids}`);
});

afterEach(async () => {
  await audit.close();
});

describe('the audit log of refused writes', () => {
  it('records who, what and why, one stream per UTC day, and lists a range oldest first', async () => {
    await refuse('project-1', '2030-01-01T23:59:00.000Z', 403);
    await refuse('project-2', '2030-01-02T00:01:00.000Z', 409);
    await refuse('project-1', '2030-01-03T12:00:00.000Z', 409);
    expect((await audit.readStream('audit-2030-01-01')).length).toBe(1);
    expect((await audit.readStream('audit-2030-01-02')).length).toBe(1);

    const listed = await refusals.list(admin, { start: '2030-01-01T00:00:00.000Z', end: '2030-01-03T00:00:00.000Z', projectId: null });
    expect(listed.map((entry) => [entry.type, entry.data['status'], entry.actor.project_id])).toEqual([
      ['audit.write_refused', 403, 'project-1'],
      ['audit.write_refused', 409, 'project-2'],
    ]);
    expect(listed[0]).toMatchObject({
      actor: { user_id: 'member-user', project_id: 'project-1', system: null },
      request_id: 'request-1',
      data: {
        operation: 'updateLease',
        method: 'PUT',
        path: '/v1/leases/l-1',
        code: 'POLICY_NOT_AUTHORIZED',
        reason: "Policy doesn't allow blazar:leases:put to be performed",
        at: '2030-01-01T23:59:00.000Z',
      },
    });
    expect(listed[1]?.summary).toBe('PUT /v1/leases/l-1 refused (409 HOST_RESERVED) for lease l-1: Host 7 is reserved');
  });

  it('names the refused lease: its id when it had one, or the name asked for (a refused create)', async () => {
    const now = '2030-01-04T12:00:00.000Z';
    await refuse('project-1', now, 409);
    await refusals.record(commandMetadata(member('project-1'), now), {
      operation: 'createLease',
      method: 'POST',
      path: '/v1/leases',
      status: 409,
      lease: { id: null, name: 'nightly-build' },
      error: conflict('NOT_ENOUGH_HOSTS', 'Not enough hosts available'),
    });
    const listed = await refusals.list(admin, { start: now, end: '2030-01-05T00:00:00.000Z', projectId: null });
    expect(listed.map((entry) => [entry.data['lease_id'], entry.data['lease_name']])).toEqual([
      ['l-1', null],
      [null, 'nightly-build'],
    ]);
    expect(listed[0]?.summary).toBe('PUT /v1/leases/l-1 refused (409 HOST_RESERVED) for lease l-1: Host 7 is reserved');
    expect(listed[1]?.summary).toBe('POST /v1/leases refused (409 NOT_ENOUGH_HOSTS) for lease "nightly-build": Not enough hosts available');
  });

  it('reads a refusal recorded before leases were named (its version 1) as naming none', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'leasehold-audit-'));
    const file = join(dir, 'audit.sqlite');
    const older = SqliteEventStore.open({ file });
    try {
      const now = '2030-01-05T12:00:00.000Z';
      const data = { operation: 'createHost', method: 'POST', path: '/v1/os-hosts', status: 409, code: 'X', reason: 'r', at: now };
      await older.appendToStream('audit-2030-01-05', 'any', [
        { id: 'old-1', type: 'Audit.WriteRefused', data, metadata: { correlationId: 'c', causationId: 'c', actor: null } },
      ]);
      const db = new Database(file);
      db.prepare('UPDATE events SET schema_version = 1').run();
      db.close();
      const [entry] = await new WriteRefusals(older, () => 'unused').list(admin, {
        start: now,
        end: '2030-01-06T00:00:00.000Z',
        projectId: null,
      });
      expect(entry?.data).toMatchObject({ lease_id: null, lease_name: null });
      expect(entry?.summary).toBe('POST /v1/os-hosts refused (409 X): r');
    } finally {
      await older.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('filters by project and bounds the range: start inclusive, end exclusive', async () => {
    await refuse('project-1', '2030-01-01T10:00:00.000Z', 403);
    await refuse('project-2', '2030-01-01T11:00:00.000Z', 409);
    await refuse('project-1', '2030-01-01T12:00:00.000Z', 409);
    const ofProject = await refusals.list(admin, {
      start: '2030-01-01T10:00:00.000Z',
      end: '2030-01-01T12:00:00.000Z',
      projectId: 'project-1',
    });
    expect(ofProject.map((entry) => entry.data['at'])).toEqual(['2030-01-01T10:00:00.000Z']);
  });

  it('is admin only, and refuses an empty or over-long range', async () => {
    const range = { start: '2030-01-01T00:00:00.000Z', end: '2030-01-02T00:00:00.000Z', projectId: null };
    await expect(refusals.list(member('project-1'), range)).rejects.toMatchObject({ code: 'POLICY_NOT_AUTHORIZED' });
    await expect(refusals.list(admin, { ...range, end: range.start })).rejects.toMatchObject({ code: 'AUDIT_RANGE_EMPTY' });
    await expect(refusals.list(admin, { ...range, end: '2031-01-03T00:00:00.000Z' })).rejects.toMatchObject({
      code: 'AUDIT_RANGE_TOO_LONG',
    });
  });
});
