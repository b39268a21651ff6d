import { describe, expect, it } from 'vitest';
import {
  type CalendarData,
  buildRows,
  endActionOf,
  endedLeasesIn,
  matchesFilter,
  parseBlazarDate,
  parseFilter,
  parseRequestDate,
  resourcePropertiesOf,
  withBookings,
} from './calendar-model.js';

const lease = (id: string, reservationId: string) => ({
  id,
  name: `lease-${id}`,
  project_id: 'p',
  start_date: '2034-05-01T10:00:00.000000',
  end_date: '2034-05-01T12:00:00.000000',
  status: 'PENDING' as const,
  reservations: [{ id: reservationId, resource_type: 'physical:host', end_action: 'delete_servers_on_hosts', before_end: 'default' }],
});

const segment = (id: string, network_type: string, physical_network: string | null, segment_id: number | null, extra = {}) => ({
  created_at: '2034-04-01 10:00:00',
  updated_at: null,
  id,
  network_type,
  physical_network,
  segment_id,
  ...extra,
});

const DATA: CalendarData = {
  resources: {
    host: [
      { id: '2', hypervisor_hostname: 'b-host', rack: 'r2', vcpus: 8 },
      { id: '1', hypervisor_hostname: 'a-host', rack: 'r1', gpu: 'true' },
    ],
    floatingip: [{ id: 'ip-1', floating_ip_address: '10.0.0.1', floating_network_id: 'net' }],
    network: [
      segment('vlan-150', 'vlan', 'physnet1', 150, { fabric: 'ib' }),
      segment('vxlan', 'vxlan', null, 5000),
      segment('vlan-9', 'vlan', 'physnet1', 9),
      segment('vlan-2-100', 'vlan', 'physnet2', 100),
      segment('flat', 'flat', 'physnet3', null),
    ],
  },
  allocations: {
    host: [
      {
        resource_id: '1',
        reservations: [
          { id: 'res-a', lease_id: 'lease-a', start_date: '2034-05-01T10:00:00.000000', end_date: '2034-05-01T12:00:00.000000' },
        ],
      },
      {
        resource_id: '2',
        reservations: [
          { id: 'res-x', lease_id: 'hidden', start_date: '2034-05-01T11:00:00.000000', end_date: '2034-05-01T13:00:00.000000' },
        ],
      },
    ],
    floatingip: [{ resource_id: 'ip-1', reservations: [] }],
    network: [
      {
        resource_id: 'vlan-150',
        reservations: [
          { id: 'res-n', lease_id: 'lease-n', start_date: '2034-05-01T14:00:00.000000', end_date: '2034-05-01T16:00:00.000000' },
        ],
      },
      { resource_id: 'vlan-9', reservations: [] },
    ],
  },
  maintenance: {
    host: [{ id: 'mw-1', host_id: '2', start_date: '2034-05-01T14:00:00.000000', end_date: '2034-05-01T18:00:00.000000', reason: 'BIOS' }],
    floatingip: [],
    network: [],
  },
  leases: [lease('lease-a', 'res-a'), { ...lease('lease-n', 'res-n'), reservations: [{ id: 'res-n', resource_type: 'network' }] }],
};

const HOSTS_AND_IPS = [
  ['host', 'a-host'],
  ['host', 'b-host'],
  ['floatingip', '10.0.0.1'],
];

describe('the calendar model', () => {
  it('makes a row per host by name, then per floating IP, with a bar per booking and its lease when visible', () => {
    const rows = buildRows(DATA);
    expect(rows.map((row) => [row.kind, row.label]).slice(0, 3)).toEqual(HOSTS_AND_IPS);
    expect(rows[0]?.bars).toEqual([
      {
        leaseId: 'lease-a',
        reservationId: 'res-a',
        start: Date.parse('2034-05-01T10:00:00Z'),
        end: Date.parse('2034-05-01T12:00:00Z'),
        lease: DATA.leases[0],
      },
    ]);
    expect(rows[1]?.bars[0]?.lease).toBeNull();
    expect(rows[1]?.fields).toMatchObject({ rack: 'r2', vcpus: '8' });
    expect(endActionOf(rows[0]!.bars[0]!)).toBe('delete_servers_on_hosts (before end: default)');
    expect(endActionOf(rows[1]!.bars[0]!)).toBe('unknown');
  });

  it("puts each maintenance window on its host's row, and none elsewhere", () => {
    const rows = buildRows(DATA);
    expect(rows.find((row) => row.id === '2')?.maintenance).toEqual([
      { windowId: 'mw-1', start: Date.parse('2034-05-01T14:00:00Z'), end: Date.parse('2034-05-01T18:00:00Z'), reason: 'BIOS' },
    ]);
    expect(rows.filter((row) => row.id !== '2').flatMap((row) => row.maintenance)).toEqual([]);
  });

  it("puts a floating IP's maintenance window on its address's row, read by the kind's own id field", () => {
    const window = { id: 'mw-f', start_date: '2034-05-02T08:00:00.000000', end_date: '2034-05-02T09:00:00.000000', reason: 'router swap' };
    const rows = buildRows({
      ...DATA,
      maintenance: {
        ...DATA.maintenance,
        floatingip: [
          { ...window, floatingip_id: 'ip-1' },
          { ...window, id: 'mw-x', host_id: 'ip-1' },
        ],
      },
    });
    expect(rows.filter((row) => row.kind === 'floatingip').map((row) => [row.id, row.maintenance])).toEqual([
      [
        'ip-1',
        [{ windowId: 'mw-f', start: Date.parse('2034-05-02T08:00:00Z'), end: Date.parse('2034-05-02T09:00:00Z'), reason: 'router swap' }],
      ],
    ]);
    expect(rows.find((row) => row.id === '2')?.maintenance.map((block) => block.windowId)).toEqual(['mw-1']);
  });

  it('makes a row per network segment after the hosts and floating IPs, by type, physical network and segment id, with its bars', () => {
    const rows = buildRows(DATA);
    expect(rows.map((row) => [row.kind, row.label])).toEqual([
      ...HOSTS_AND_IPS,
      ['network', 'flat physnet3'],
      ['network', 'vlan physnet1 9'],
      ['network', 'vlan physnet1 150'],
      ['network', 'vlan physnet2 100'],
      ['network', 'vxlan 5000'],
    ]);
    const booked = rows.find((row) => row.id === 'vlan-150');
    expect(booked?.bars).toEqual([
      {
        leaseId: 'lease-n',
        reservationId: 'res-n',
        start: Date.parse('2034-05-01T14:00:00Z'),
        end: Date.parse('2034-05-01T16:00:00Z'),
        lease: DATA.leases[1],
      },
    ]);
    expect(endActionOf(booked!.bars[0]!)).toBe('none');
    expect(booked?.fields).toMatchObject({ network_type: 'vlan', physical_network: 'physnet1', segment_id: '150', fabric: 'ib' });
    expect(rows.filter((row) => row.kind === 'network' && row.id !== 'vlan-150').flatMap((row) => row.bars)).toEqual([]);
  });

  it('filters hosts and segments on key=value terms, all of which must hold; a filter hides floating IPs', () => {
    const rows = buildRows(DATA);
    const shown = (text: string) => {
      const parsed = parseFilter(text);
      if (!parsed.ok) throw new Error(parsed.problem);
      return rows.filter((row) => matchesFilter(row, parsed.terms)).map((row) => row.label);
    };
    expect(shown('').slice(0, 3)).toEqual(['a-host', 'b-host', '10.0.0.1']);
    expect(shown('rack=r1')).toEqual(['a-host']);
    expect(shown(' rack = r1 , gpu=true ')).toEqual(['a-host']);
    expect(shown('rack=r1, gpu=false')).toEqual([]);
    expect(shown('vcpus=8')).toEqual(['b-host']);
    // segments are filtered on their fields and extra capabilities as hosts are
    expect(shown('physical_network=physnet1')).toEqual(['vlan physnet1 9', 'vlan physnet1 150']);
    expect(shown('fabric=ib, segment_id=150')).toEqual(['vlan physnet1 150']);
    expect(parseFilter('rack')).toEqual({ ok: false, problem: '"rack" is not key=value' });
    expect(parseFilter('=r1')).toEqual({ ok: false, problem: '"=r1" is not key=value' });
  });

  it("writes the filter as Blazar's resource_properties query", () => {
    expect(resourcePropertiesOf([])).toBe('');
    expect(JSON.parse(resourcePropertiesOf([{ key: 'rack', value: 'r1' }]))).toEqual(['=', '$rack', 'r1']);
    expect(
      JSON.parse(
        resourcePropertiesOf([
          { key: 'rack', value: 'r1' },
          { key: 'gpu', value: 'true' },
        ]),
      ),
    ).toEqual(['and', ['=', '$rack', 'r1'], ['=', '$gpu', 'true']]);
  });

  it("reads Blazar's dates and the availability windows' dates as UTC", () => {
    expect(parseBlazarDate('2034-05-01T10:00:00.000000')).toBe(Date.parse('2034-05-01T10:00:00Z'));
    expect(parseRequestDate('2034-05-01 10:30')).toBe(Date.parse('2034-05-01T10:30:00Z'));
  });

  it('picks the ended leases that overlap the view, latest end first', () => {
    const ended = (id: string, start: string, end: string) => ({
      ...lease(id, `res-${id}`),
      start_date: `${start}:00.000000`,
      end_date: `${end}:00.000000`,
    });
    const leases = [
      ended('early', '2034-05-01T01:00', '2034-05-01T03:00'),
      ended('late', '2034-05-01T04:00', '2034-05-01T07:00'),
      ended('before-view', '2034-04-30T01:00', '2034-04-30T03:00'),
      ended('still-running', '2034-05-01T05:00', '2034-05-01T11:00'),
    ];
    const start = Date.parse('2034-05-01T02:00:00Z');
    const end = Date.parse('2034-05-02T02:00:00Z');
    expect(endedLeasesIn(leases, start, end, Date.parse('2034-05-01T10:00:00Z')).map((found) => found.id)).toEqual(['late', 'early']);
  });

  it("adds a lease's bookings fetched by id without doubling one already listed", () => {
    const booking = { id: 'res-old', lease_id: 'old', start_date: '2034-04-30T10:00:00.000000', end_date: '2034-04-30T12:00:00.000000' };
    const listed = DATA.allocations.host[0]!.reservations[0]!;
    const more = withBookings(DATA, {
      host: [
        { resource_id: '1', reservations: [booking, listed] },
        { resource_id: '2', reservations: [] },
      ],
      floatingip: [{ resource_id: 'ip-1', reservations: [{ ...booking, id: 'res-ip' }] }],
      network: [{ resource_id: 'vlan-9', reservations: [{ ...booking, id: 'res-segment' }] }],
    });
    expect(more.allocations.host.find((allocation) => allocation.resource_id === '1')?.reservations).toEqual([listed, booking]);
    expect(more.allocations.host.find((allocation) => allocation.resource_id === '2')?.reservations).toHaveLength(1);
    const barsOn = (id: string) =>
      buildRows(more)
        .find((row) => row.id === id)
        ?.bars.map((bar) => bar.reservationId);
    expect(barsOn('ip-1')).toEqual(['res-ip']);
    expect(barsOn('vlan-9')).toEqual(['res-segment']);
    expect(barsOn('vlan-150')).toEqual(['res-n']);
  });
});
