import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { quotaStream } from '#domain/index.js';
import { QUOTAS } from '#plugins/reservation-holdings.js';
import type { AppendRequest, AppendResult, EventStore } from '#event-store/event-store.port.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { OtherConnection, commitBeforeIndexRun } from '#event-store/testing/sqlite-interleaving.js';
import { buildHostRequest } from '#plugins/physical-host/host-reservation.request.js';
import { CommandHandler } from '../command-handler.js';
import { LeaseUseCases } from '../leases/lease.use-cases.js';
import { DEFAULT_SETTINGS, commandMetadata, testCaller } from '../testing/application.specification.js';
import { at, hostRegistered } from '../testing/calendars.fixture.js';
import { appendGiven } from '../testing/given-events.js';
import { WriteIndex } from '../write-model/write-index.js';
import { QuotaIndex } from './quota-index.js';
import { Quotas } from './quotas.js';

const member = commandMetadata(testCaller('member', 'project-1', 'member-user'), at(9));
const leaseOn = (side: string) => ({
  name: `lease-${side}`,
  startDate: at(10),
  endDate: at(18),
  beforeEndDate: null,
  reservations: [
    buildHostRequest({ min: 1, max: 1, hypervisorProperties: '', resourceProperties: `["=", "$side", "${side}"]`, beforeEnd: 'default' }),
  ],
});

/** One API process: its own handler and indexes over the log, under a limit of one host held at once. */
const apiProcess = (store: EventStore, name: string) => {
  let ids = 0;
  const context = {
    handler: new CommandHandler(store),
    index: new WriteIndex(store),
    settings: DEFAULT_SETTINGS,
    newId: () => `${name}-${++ids}`,
  };
  const quotas = new Quotas(new QuotaIndex(store), { defaults: { ...QUOTAS.noLimits, hosts: 1 }, metricTopN: 10 });
  return new LeaseUseCases(context, undefined, undefined, quotas);
};

/** The store as a process sees it whose append is taken from it once decided: the test commits it, where it chooses. */
const decidedOnly = (store: EventStore) => {
  let hand = (_requests: readonly AppendRequest[]): void => undefined;
  let committed = (): void => undefined;
  const decided = new Promise<readonly AppendRequest[]>((resolve) => (hand = resolve));
  const done = new Promise<void>((resolve) => (committed = resolve));
  const view = new Proxy(store, {
    get(target, name, receiver) {
      if (name !== 'appendMultiple') return Reflect.get(target, name, receiver) as unknown;
      return async (requests: readonly AppendRequest[]): Promise<AppendResult> => {
        hand(requests);
        await done;
        return { streams: [], position: await target.headPosition(), idempotentReplay: false };
      };
    },
  });
  return { view, decided, committed };
};

let dir: string;
let file: string;
let store: SqliteEventStore;
let other: OtherConnection;
let unhook = (): void => undefined;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'leasehold-quota-interleaving-'));
  file = join(dir, 'events.sqlite');
  store = SqliteEventStore.open({ file });
  other = new OtherConnection(file);
  await appendGiven(store, [hostRegistered('1', { side: 'a' }), hostRegistered('2', { side: 'b' })]);
});

afterEach(async () => {
  unhook();
  other.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the quota index catching up while another process commits an admission', () => {
  it('Given a limit of 1 host, When the other process commits a lease and its fence while this one reads the log, Then this one is refused', async () => {
    const elsewhere = decidedOnly(store);
    const second = apiProcess(elsewhere.view, 'b').create({ type: 'CreateLease', data: leaseOn('b'), metadata: member });
    const admitted = await elsewhere.decided;
    // the other process commits between this one's reads of the lease and the quota streams
    unhook = commitBeforeIndexRun('quota', () => {
      other.append(admitted);
      elsewhere.committed();
    });
    const first = apiProcess(store, 'a').create({ type: 'CreateLease', data: leaseOn('a'), metadata: member });
    await expect(first).rejects.toMatchObject({
      code: 'QUOTA_EXCEEDED',
      message: 'Quota exceeded for project project-1: hosts held at once limit 1, this lease would make it 2',
    });
    const { leaseId } = await second;
    const events = await store.readAll({ from: 0 });
    expect(events.filter((e) => e.type === 'Lease.Created').map((e) => (e.data as { leaseId: string }).leaseId)).toEqual([leaseId]);
    expect(events.filter((e) => e.streamId === quotaStream('project-1')).map((e) => e.type)).toEqual(['Quota.LeaseAdmitted']);
  });
});
