import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MetricPrices, RateCardPublished, Reservation } from '#domain/index.js';
import { USAGE_METRICS } from '#plugins/reservation-holdings.js';
import { created, floatingIpReservation, reservation, virtualInstanceReservation } from '#domain/lease/testing/lease.fixtures.js';
import type { EventMetadata, EventStore } from '#event-store/event-store.port.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { testCaller } from '../testing/application.specification.js';
import { UsageIndex } from './usage-index.js';
import { type UsageRequest, UsageQueries } from './usage.queries.js';

const META: EventMetadata = { correlationId: 'c', causationId: 'c', actor: null, system: 'test' };
/** 2020-01-01 at hh:mm, UTC: in the past, so what the store records now comes after every fixture instant. */
const t = (hours: number, minutes = 0): string =>
  `2020-01-01T${String(hours).padStart(2, '0')}:${String(minutes).padStart(2, '0')}:00.000Z`;
const HOUR = 3_600_000;
const hoursBetween = (from: string, to: string): number => (Date.parse(to) - Date.parse(from)) / HOUR;
const hostInfo = (vcpus: number, memoryMb: number, localGb: number) => ({
  hypervisorHostname: `h${vcpus}`,
  serviceName: 'h',
  vcpus,
  memoryMb,
  localGb,
  cpuInfo: '',
  hypervisorType: 'QEMU',
  hypervisorVersion: 1,
  availabilityZone: 'nova',
});
const ZERO = Object.fromEntries(USAGE_METRICS.metrics.map((metric) => [metric, 0]));
const admin = testCaller('admin', 'project-admin');

let store: EventStore;
let queries: UsageQueries;
let ids = 0;

const append = async (streamId: string, type: string, data: unknown): Promise<number> =>
  (await store.appendToStream(streamId, 'any', [{ id: `e-${++ids}`, type, data, metadata: META }])).position;

const registerHost = (hostId: string, info: ReturnType<typeof hostInfo>, capabilities: Record<string, string> = {}) =>
  append(`host-${hostId}`, 'Host.Registered', { hostId, info, capabilities, registeredAt: t(0) });

const createLease = (leaseId: string, projectId: string, reservations: Reservation[]) =>
  append(`lease-${leaseId}`, 'Lease.Created', { ...created({ reservations }).data, leaseId, projectId });

const phase = (leaseId: string, type: string, at: string, extra: object = {}) =>
  append(`lease-${leaseId}`, type, { leaseId, at, ...extra });

/** A lease of `reservations` that the reactor started at `from` and ended at `to`. */
const ran = async (leaseId: string, projectId: string, reservations: Reservation[], from: string, to: string): Promise<number> => {
  await createLease(leaseId, projectId, reservations);
  await phase(leaseId, 'Lease.Started', from);
  return phase(leaseId, 'Lease.EndRequested', to, { reason: 'scheduled' });
};

const publish = (card: Partial<RateCardPublished['data']> & { name: string; version: number }) =>
  append(`ratecard-${card.name}`, 'RateCard.Published', {
    currency: 'EUR',
    effectiveFrom: t(0),
    prices: Object.fromEntries(USAGE_METRICS.metrics.map((metric) => [metric, '0'])),
    capabilityPrices: [],
    publishedAt: t(0),
    ...card,
  });

const request = (overrides: Partial<UsageRequest> = {}): UsageRequest => ({
  start: t(0),
  end: '2020-01-02T00:00:00.000Z',
  projectId: null,
  groupBy: null,
  rateCard: null,
  asOfPosition: null,
  until: null,
  now: new Date().toISOString(),
  ...overrides,
});
const report = async (overrides: Partial<UsageRequest> = {}, caller = admin): Promise<any> =>
  (await queries.report(caller, request(overrides))).usage;

beforeEach(async () => {
  store = SqliteEventStore.open({ file: ':memory:' });
  queries = new UsageQueries(store, new UsageIndex(store));
  ids = 0;
  await registerHost('7', hostInfo(48, 196_608, 900), { node_type: 'compute' });
  await registerHost('8', hostInfo(64, 262_144, 1800), { node_type: 'gpu' });
});

afterEach(async () => {
  await store.close();
});

describe('usage report: every resource type, from recorded facts', () => {
  it('hours of hosts (their registered size), instances (their slot size) and floating IPs, per reservation', async () => {
    const instances = virtualInstanceReservation('res-v', {
      amount: 3,
      vcpus: 2,
      memoryMb: 4096,
      diskGb: 20,
      allocations: [{ hostId: '7', count: 3 }],
    });
    await ran(
      'lease-1',
      'project-1',
      [reservation('res-h', { hostIds: ['8'] }), instances, floatingIpReservation('res-ip')],
      t(10),
      t(12, 30),
    );
    const usage = await report({ groupBy: 'reservation' });
    const h = hoursBetween(t(10), t(12, 30));
    const line = (reservationId: string, resourceType: string, metrics: object) => ({
      project_id: 'project-1',
      lease_id: 'lease-1',
      reservation_id: reservationId,
      resource_type: resourceType,
      ...ZERO,
      ...metrics,
    });
    expect(usage.lines).toEqual([
      line('res-h', 'physical:host', { host_hours: h, vcpu_hours: 64 * h, memory_mb_hours: 262_144 * h, disk_gb_hours: 1800 * h }),
      line('res-ip', 'virtual:floatingip', { floating_ip_hours: h }),
      line('res-v', 'virtual:instance', {
        instance_hours: 3 * h,
        vcpu_hours: 6 * h,
        memory_mb_hours: 3 * 4096 * h,
        disk_gb_hours: 3 * 20 * h,
      }),
    ]);
    expect(usage.totals.vcpu_hours).toBe(70 * h);
  });

  it('a window cutting a lease on both sides counts only the part inside', async () => {
    await ran('lease-1', 'project-1', [reservation('res-1', { hostIds: ['7'] })], t(10), t(18));
    const usage = await report({ start: t(12, 15), end: t(15) });
    expect(usage.lines).toEqual([
      {
        project_id: 'project-1',
        resource_type: 'physical:host',
        ...ZERO,
        host_hours: 2.75,
        vcpu_hours: 48 * 2.75,
        memory_mb_hours: 196_608 * 2.75,
        disk_gb_hours: 900 * 2.75,
      },
    ]);
  });

  it('a project with many leases: one line per project, one per lease when grouped so', async () => {
    const minutes = [7, 13, 29, 31, 45, 59, 60, 61, 90, 119];
    for (const [i, length] of minutes.entries()) {
      const from = t(i * 2);
      await ran(
        `lease-${i}`,
        'project-many',
        [reservation(`res-${i}`, { hostIds: ['7'] })],
        from,
        new Date(Date.parse(from) + length * 60_000).toISOString(),
      );
    }
    await ran('lease-other', 'project-other', [reservation('res-o', { hostIds: ['8'] })], t(1), t(2));
    const expected = minutes.reduce((sum, m) => sum + m, 0) / 60;
    const usage = await report({ projectId: 'project-many' });
    expect(usage.lines).toHaveLength(1);
    expect(usage.lines[0].host_hours).toBeCloseTo(expected, 6);
    const byLease = await report({ projectId: 'project-many', groupBy: 'lease' });
    expect(byLease.lines.map((line: { lease_id: string; host_hours: number }) => [line.lease_id, line.host_hours])).toEqual(
      minutes.map((m, i) => [`lease-${i}`, Number((m / 60).toFixed(6))]),
    );
    const byHost = await report({ groupBy: 'resource' });
    expect(byHost.lines.map((line: { resource_id: string; host_hours: number }) => [line.resource_id, line.host_hours])).toEqual([
      ['7', Number(expected.toFixed(6))],
      ['8', 1],
    ]);
  });
});

describe('usage report: positions make it reproducible', () => {
  it('a lease still running counts up to the instant the report is asked for, says so, and that instant with the position reproduces it', async () => {
    await createLease('lease-1', 'project-1', [reservation('res-1', { hostIds: ['7'] })]);
    const startedAt = await phase('lease-1', 'Lease.Started', t(10));
    const first = await queries.report(admin, request({ end: '2030-01-01T00:00:00.000Z', now: t(12, 30) }));
    expect(first.usage).toMatchObject({ as_of_position: startedAt, until: t(12, 30), lines: [{ host_hours: 2.5 }] });

    await phase('lease-1', 'Lease.EndRequested', t(11), { reason: 'scheduled' });
    const later = await report({ end: '2030-01-01T00:00:00.000Z' });
    expect(later.lines[0].host_hours).toBe(1);
    const pinned = { end: '2030-01-01T00:00:00.000Z', asOfPosition: String(startedAt), until: t(12, 30), now: t(23) };
    expect(JSON.stringify(await queries.report(admin, request(pinned)))).toBe(JSON.stringify(first));
  });

  it('until: an earlier instant counts everything up to it, a window that ends first counts up to its end, a future one is refused', async () => {
    await ran('lease-1', 'project-1', [reservation('res-1', { hostIds: ['7'] })], t(10), t(13));
    expect(await report({ until: t(11, 30), now: t(20) })).toMatchObject({ until: t(11, 30), lines: [{ host_hours: 1.5 }] });
    expect(await report({ end: t(12), now: t(20) })).toMatchObject({ until: t(12), lines: [{ host_hours: 2 }] });
    expect((await report({ until: t(9), now: t(20) })).lines).toEqual([]);
    await expect(queries.report(admin, request({ until: t(21), now: t(20) }))).rejects.toMatchObject({
      code: 'INVALID_DATE',
      message: 'until must not be in the future',
    });
  });
});

describe('usage report: who sees what', () => {
  beforeEach(async () => {
    await ran('lease-a', 'project-a', [reservation('res-a', { hostIds: ['7'] })], t(1), t(2));
    await ran('lease-b', 'project-b', [reservation('res-b', { hostIds: ['8'] })], t(1), t(3));
  });

  it('a member sees their own project without asking, and is refused another', async () => {
    const member = testCaller('member', 'project-a');
    const own = await report({}, member);
    expect(own.project_id).toBe('project-a');
    expect(own.lines.map((line: { project_id: string }) => line.project_id)).toEqual(['project-a']);
    await expect(queries.report(member, request({ projectId: 'project-b' }))).rejects.toMatchObject({ code: 'POLICY_NOT_AUTHORIZED' });
  });

  it('an admin sees every project', async () => {
    expect((await report()).lines.map((line: { project_id: string }) => line.project_id)).toEqual(['project-a', 'project-b']);
  });
});

describe('usage report: bad input', () => {
  it.each([
    [{ end: t(0) }, 'INVALID_WINDOW'],
    [{ start: 'yesterday' }, 'INVALID_DATE'],
    [{ end: '9999-12-31T23:00:00-05:00' }, 'INVALID_DATE'],
    [{ groupBy: 'user' }, 'INVALID_GROUP_BY'],
    [{ asOfPosition: '999999' }, 'INVALID_POSITION'],
    [{ asOfPosition: '-1' }, 'INVALID_POSITION'],
    [{ rateCard: 'nope' }, 'RATE_CARD_NOT_FOUND'],
  ])('%j is refused with %s', async (overrides, code) => {
    await expect(queries.report(admin, request(overrides))).rejects.toMatchObject({ code });
  });
});

describe('rating and re-rating', () => {
  const prices = (hostHours: string, floatingIpHours = '0'): MetricPrices =>
    Object.fromEntries(
      USAGE_METRICS.metrics.map((m) => [m, m === 'host_hours' ? hostHours : m === 'floating_ip_hours' ? floatingIpHours : '0']),
    ) as MetricPrices;

  beforeEach(async () => {
    await ran('lease-1', 'project-1', [reservation('res-1', { hostIds: ['7'] }), floatingIpReservation('res-ip')], t(10), t(13));
    await ran('lease-2', 'project-1', [reservation('res-2', { hostIds: ['8'] })], t(10), t(12));
  });

  it('prices each line, with the capability price for hosts that match it, and totals the lines in the currency', async () => {
    await publish({
      name: 'std',
      version: 1,
      prices: prices('1.25', '0.010001'),
      capabilityPrices: [{ capability: 'node_type', value: 'gpu', prices: prices('4') }],
    });
    const usage = await report({ rateCard: 'std', groupBy: 'lease' });
    expect(usage.rate_card).toEqual({ name: 'std', version: 1, currency: 'EUR', effective_from: t(0) });
    // lease-1: 3 h of a compute host at 1.25, 3 h of an address at 0.010001; lease-2: 2 h of a gpu host at 4
    expect(
      usage.lines.map((line: { lease_id: string; resource_type: string; cost: string }) => [line.lease_id, line.resource_type, line.cost]),
    ).toEqual([
      ['lease-1', 'physical:host', '3.750000'],
      ['lease-1', 'virtual:floatingip', '0.030003'],
      ['lease-2', 'physical:host', '8.000000'],
    ]);
    expect(usage.totals).toMatchObject({ cost: '11.780003', currency: 'EUR' });
  });

  it("a capability price overrides only the metrics it names: a gpu host's vCPU-hours keep the card's price", async () => {
    await publish({
      name: 'std',
      version: 1,
      prices: { ...prices('1'), vcpu_hours: '0.01' },
      capabilityPrices: [{ capability: 'node_type', value: 'gpu', prices: { host_hours: '4' } }],
    });
    const usage = await report({ rateCard: 'std', groupBy: 'lease' });
    // lease-2: 2 h of a gpu host (64 vCPUs) at 4 per host-hour and 0.01 per vCPU-hour
    expect(usage.lines.find((line: { lease_id: string }) => line.lease_id === 'lease-2').cost).toBe('9.280000');
  });

  it('a new version never changes a report made with the old one; naming the old version re-rates explicitly', async () => {
    const v1 = await publish({ name: 'std', version: 1, prices: prices('1') });
    const old = await queries.report(admin, request({ rateCard: 'std' }));
    await publish({ name: 'std', version: 2, prices: prices('2') });
    const current = await report({ rateCard: 'std' });
    expect([current.rate_card.version, current.totals.cost]).toEqual([2, '10.000000']);
    expect(JSON.stringify(await queries.report(admin, request({ rateCard: 'std', asOfPosition: String(v1) })))).toBe(JSON.stringify(old));
    const rerated = await report({ rateCard: 'std:1' });
    expect([rerated.rate_card.version, rerated.totals.cost]).toEqual([1, '5.000000']);
    await expect(queries.report(admin, request({ rateCard: 'std:3' }))).rejects.toMatchObject({ code: 'RATE_CARD_NOT_FOUND' });
  });

  it('by name, the version in effect at the window start is used, not a later one', async () => {
    await publish({ name: 'std', version: 1, prices: prices('1') });
    await publish({ name: 'std', version: 2, prices: prices('2'), effectiveFrom: '2020-06-01T00:00:00.000Z' });
    expect((await report({ rateCard: 'std' })).rate_card.version).toBe(1);
    expect((await report({ rateCard: 'std', start: '2020-06-01T00:00:00.000Z', end: '2020-07-01T00:00:00.000Z' })).rate_card.version).toBe(
      2,
    );
  });
});
