import 'reflect-metadata';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import type { FieldPath } from '../http/input-rules.js';
import { cases, hostileText, refusal, throughBoundary, withValue } from '../http/testing/request-tables.js';
import { parseCreateLease, parseUpdateLease } from './lease-request.parser.js';

const NOW = DateTime.fromISO('2030-06-08T12:00:00Z', { zone: 'utc' });
const NET = '3f0b6a52-1c1e-4d7e-9a43-0d1f6e2b7a01';
const INT32 = 2 ** 31 - 1;

const create = throughBoundary((body) => parseCreateLease(body, NOW));
const update = throughBoundary((body) => parseUpdateLease(body, NOW));

/** One reservation of each type, as the clients send them. */
const HOSTS = { resource_type: 'physical:host', min: 1, max: 2, hypervisor_properties: '', resource_properties: '', before_end: 'default' };
const INSTANCES = {
  resource_type: 'virtual:instance',
  vcpus: 2,
  memory_mb: 2048,
  disk_gb: 20,
  amount: 3,
  affinity: 'None',
  resource_properties: '',
};
const FLAVOR = { resource_type: 'flavor:instance', flavor_id: 'm1.small', amount: 1, affinity: null };
const FLOATING_IPS = { resource_type: 'virtual:floatingip', network_id: NET, amount: 2, required_floatingips: ['172.24.4.2'] };

const LEASE = {
  name: 'lease-1',
  start_date: '2030-07-01 10:00',
  end_date: '2030-07-02 10:00',
  before_end_date: null,
  events: [],
  reservations: [HOSTS, INSTANCES, FLAVOR, FLOATING_IPS],
};

const at = (index: number, field: string): FieldPath => ['reservations', index, field];

const invalidDate = (text: string) => `${text} is an invalid date. Required format: %Y-%m-%d %H:%M`;
const notBlank = (field: string) => `Malformed parameter ${field} (must not be empty or blank)`;
const notNetwork = 'Malformed parameter network_id (must be a network UUID)';
const amountRange = `Malformed parameter amount (must be between 1 and ${INT32})`;
/** A property query whose JSON holds an escaped control character: the raw text is clean, the parsed one is not. */
const escapedNul = '["==", "$gpu", "\\u0000"]';

describe('POST /v1/leases: a table per field (boundary + DTO + parser, no HTTP)', () => {
  it('the valid lease passes, pretty-printed property queries included', () => {
    const pretty = { ...HOSTS, hypervisor_properties: '[\n\t">=", "$vcpus", "4"\r\n]' };
    const parsed = create(withValue(LEASE, ['reservations', 0], pretty));
    expect(parsed.name).toBe('lease-1');
    expect(parsed.reservations.map((r) => r.resourceType)).toEqual([
      'physical:host',
      'virtual:instance',
      'flavor:instance',
      'virtual:floatingip',
    ]);
  });

  it('keeps a network id in lower case, so one network is one id', () => {
    const parsed = create(withValue(LEASE, at(3, 'network_id'), NET.toUpperCase()));
    expect(parsed.reservations[3]).toMatchObject({ resourceType: 'virtual:floatingip', networkId: NET });
  });

  describe('CreateLeaseDto', () => {
    it.each(
      cases([
        ...hostileText(['name']),
        [['name'], '', notBlank('name')],
        [['name'], '   ', notBlank('name')],
        [['name'], '\u00a0\u2003', notBlank('name')],
        [['name'], 5, 'Malformed parameter name'],
        [['name'], 'n'.repeat(81), 'Malformed parameter name: at most 80 characters'],
        [['name'], null, 'Missing parameter name'],
        ...hostileText(['start_date']),
        [['start_date'], '2030-07-01 24:00', invalidDate('2030-07-01 24:00')],
        [['start_date'], '2030-07-01 25:00', invalidDate('2030-07-01 25:00')],
        [['start_date'], '2030-02-30 10:00', invalidDate('2030-02-30 10:00')],
        [['start_date'], '2030-07-01T10:00', invalidDate('2030-07-01T10:00')],
        [['start_date'], 1_900_000_000, invalidDate('1900000000')],
        [['start_date'], null, 'Missing parameter start_date'],
        ...hostileText(['end_date']),
        [['end_date'], '2030-07-02 24:00', invalidDate('2030-07-02 24:00')],
        [['end_date'], '2030-07-02 10:00:00', invalidDate('2030-07-02 10:00:00')],
        ...hostileText(['before_end_date']),
        [['before_end_date'], '2030-07-01 24:00', invalidDate('2030-07-01 24:00')],
        [['reservations'], 'physical:host', 'Malformed parameter reservations'],
        [['reservations', 0], 'physical:host', 'Malformed reservation: a JSON object is required'],
        [['events'], {}, 'Malformed parameter events'],
        ...hostileText(['events', 0]),
      ]),
    )('$field = $shown', ({ path, value, message }) => {
      expect(refusal(() => create(withValue(LEASE, path, value)))).toEqual({ status: 400, message });
    });
  });

  describe('ReservationTypeDto', () => {
    it.each(
      cases([
        ...hostileText(at(0, 'resource_type')),
        [at(0, 'resource_type'), 'physical:hosts', 'The physical:hosts resource type is not supported'],
        [at(0, 'resource_type'), 1, 'Malformed parameter resource_type'],
        [at(0, 'resource_type'), null, 'Missing parameter resource_type'],
      ]),
    )('$field = $shown', ({ path, value, message }) => {
      expect(refusal(() => create(withValue(LEASE, path, value)))).toEqual({ status: 400, message });
    });
  });

  describe('HostReservationDto (physical:host)', () => {
    const minMax = 'Malformed parameter min and max (must be greater than or equal to 1)';
    it.each(
      cases([
        ...hostileText(at(0, 'min')),
        [at(0, 'min'), 0, minMax],
        [at(0, 'min'), -4, minMax],
        [at(0, 'min'), 1.5, 'Malformed parameter min'],
        [at(0, 'min'), 1e308, 'Malformed parameter min'],
        [at(0, 'min'), '1e3', 'Malformed parameter min'],
        [at(0, 'min'), '9'.repeat(16), 'Malformed parameter min'],
        [at(0, 'min'), 'NaN', 'Malformed parameter min'],
        [at(0, 'max'), 2 ** 31, `Malformed parameter min and max (must be at most ${INT32})`],
        [at(0, 'max'), Number.MAX_SAFE_INTEGER, `Malformed parameter min and max (must be at most ${INT32})`],
        [at(0, 'max'), true, 'Malformed parameter max'],
        ...hostileText(at(0, 'hypervisor_properties'), true),
        [at(0, 'hypervisor_properties'), escapedNul, 'Malformed parameter hypervisor_properties (contains the control character U+0000)'],
        [
          at(0, 'hypervisor_properties'),
          '["==", "$\\ud800", "1"]',
          'Malformed parameter hypervisor_properties (contains a lone UTF-16 surrogate U+D800)',
        ],
        [at(0, 'hypervisor_properties'), 7, 'Malformed parameter hypervisor_properties'],
        ...hostileText(at(0, 'resource_properties'), true),
        [at(0, 'resource_properties'), escapedNul, 'Malformed parameter resource_properties (contains the control character U+0000)'],
        ...hostileText(at(0, 'before_end')),
        [at(0, 'before_end'), 'reboot', 'Malformed parameter before_end'],
      ]),
    )('$field = $shown', ({ path, value, message }) => {
      expect(refusal(() => create(withValue(LEASE, path, value)))).toEqual({ status: 400, message });
    });
  });

  describe('InstanceReservationDto (virtual:instance)', () => {
    it.each(
      cases([
        ...hostileText(at(1, 'vcpus')),
        [at(1, 'vcpus'), 0, 'Malformed parameter vcpus (must be an integer >= 1)'],
        [at(1, 'vcpus'), -4, 'Malformed parameter vcpus (must be an integer >= 1)'],
        [at(1, 'vcpus'), 2 ** 31, `Malformed parameter vcpus (must be an integer <= ${INT32})`],
        [at(1, 'vcpus'), 1e308, 'Malformed parameter vcpus'],
        [at(1, 'vcpus'), 0.5, 'Malformed parameter vcpus'],
        [at(1, 'memory_mb'), 0, 'Malformed parameter memory_mb (must be an integer >= 1)'],
        [at(1, 'memory_mb'), '99999999999', `Malformed parameter memory_mb (must be an integer <= ${INT32})`],
        [at(1, 'memory_mb'), 'lots', 'Malformed parameter memory_mb'],
        ...hostileText(at(1, 'disk_gb')),
        [at(1, 'disk_gb'), -1, 'Malformed parameter disk_gb (must be an integer >= 0)'],
        [at(1, 'disk_gb'), 2 ** 40, `Malformed parameter disk_gb (must be an integer <= ${INT32})`],
        ...hostileText(at(1, 'amount')),
        [at(1, 'amount'), 0, amountRange],
        [at(1, 'amount'), 2 ** 31, amountRange],
        [at(1, 'amount'), 1e5 + 0.5, 'Malformed parameter amount'],
        [at(1, 'amount'), null, 'Missing parameter amount'],
        ...hostileText(at(1, 'affinity')),
        [at(1, 'affinity'), 'maybe', 'Malformed parameter affinity (must be a bool value or None)'],
        ...hostileText(at(1, 'resource_properties'), true),
        [at(1, 'resource_properties'), escapedNul, 'Malformed parameter resource_properties (contains the control character U+0000)'],
      ]),
    )('$field = $shown', ({ path, value, message }) => {
      expect(refusal(() => create(withValue(LEASE, path, value)))).toEqual({ status: 400, message });
    });
  });

  describe('FlavorInstanceReservationDto (flavor:instance)', () => {
    it.each(
      cases([
        ...hostileText(at(2, 'flavor_id')),
        [at(2, 'flavor_id'), 'a/b', 'Malformed parameter flavor_id'],
        [at(2, 'flavor_id'), ' m1', 'Malformed parameter flavor_id'],
        [at(2, 'flavor_id'), -1, 'Malformed parameter flavor_id'],
        [at(2, 'flavor_id'), 1e308, 'Malformed parameter flavor_id'],
        [at(2, 'amount'), 0, amountRange],
        [at(2, 'amount'), 2 ** 31, amountRange],
        [at(2, 'affinity'), 'x\u0085', 'Malformed parameter reservations[2].affinity (contains the control character U+0085)'],
      ]),
    )('$field = $shown', ({ path, value, message }) => {
      expect(refusal(() => create(withValue(LEASE, path, value)))).toEqual({ status: 400, message });
    });
  });

  describe('FloatingIpReservationDto (virtual:floatingip)', () => {
    it.each(
      cases([
        ...hostileText(at(3, 'network_id')),
        [at(3, 'network_id'), 'not-a-uuid', notNetwork],
        [at(3, 'network_id'), ' ', notNetwork],
        [at(3, 'network_id'), NET.replaceAll('-', ''), notNetwork],
        [at(3, 'network_id'), `{${NET}}`, notNetwork],
        [at(3, 'network_id'), 7, 'Malformed parameter network_id'],
        [at(3, 'amount'), 0, amountRange],
        [at(3, 'amount'), 2 ** 31, amountRange],
        ...hostileText(at(3, 'required_floatingips')),
        ...hostileText([...at(3, 'required_floatingips'), 0]),
        [
          [...at(3, 'required_floatingips'), 0],
          '172.24.4.256',
          'Malformed parameter required_floatingips: 172.24.4.256 is not an IP address',
        ],
        [at(3, 'required_floatingips'), [1], 'Malformed parameter required_floatingips'],
      ]),
    )('$field = $shown', ({ path, value, message }) => {
      expect(refusal(() => create(withValue(LEASE, path, value)))).toEqual({ status: 400, message });
    });
  });
});

describe('PUT /v1/leases/{id}: a table per field', () => {
  const RESERVATION = '5b2d7c1e-8f3a-4e6b-9c0d-1a2b3c4d5e6f';
  const CHANGES = { name: 'renamed', end_date: '2030-07-03 10:00', reservations: [{ id: RESERVATION, amount: 2 }] };

  it('a body that changes nothing is 400 No data to update, as upstream answers for hosts', () => {
    for (const body of [
      undefined,
      {},
      { bogus: 1 },
      { name: null },
      { reservations: [] },
      { reservations: [{ id: RESERVATION }] },
      { reservations: [{ id: RESERVATION, bogus: 1 }] },
    ]) {
      expect(
        refusal(() => update(body)),
        JSON.stringify(body),
      ).toEqual({ status: 400, message: 'No data to update' });
    }
  });

  it('one field is enough; naming the reservation type counts (a different one is refused later, 409)', () => {
    expect(update({ name: 'renamed' }).name).toBe('renamed');
    expect(update({ end_date: 'now' }).endDate).toBe('2030-06-08T12:00:00.000Z');
    expect(update({ reservations: [{ id: RESERVATION, resource_type: 'physical:host' }] }).reservations).toHaveLength(1);
    expect(update({ reservations: [{ id: RESERVATION, required_floatingips: [] }] }).reservations[0]?.changes.requiredFloatingIps).toEqual(
      [],
    );
    expect(update({ reservations: [{ id: RESERVATION, network_id: NET.toUpperCase() }] }).reservations[0]?.changes.networkId).toBe(NET);
  });

  describe('UpdateLeaseDto and ReservationUpdateDto', () => {
    const patch = (field: string): FieldPath => ['reservations', 0, field];
    it.each(
      cases([
        ...hostileText(['name']),
        [['name'], '', notBlank('name')],
        [['name'], ' \t ', 'Malformed parameter name (contains the control character U+0009)'],
        [['name'], '  ', notBlank('name')],
        [['name'], 'n'.repeat(81), 'Malformed parameter name: at most 80 characters'],
        ...hostileText(['start_date']),
        [['start_date'], '2030-07-01 24:00', invalidDate('2030-07-01 24:00')],
        ...hostileText(['end_date']),
        [['end_date'], '2030-07-03 24:00', invalidDate('2030-07-03 24:00')],
        ...hostileText(['before_end_date']),
        [['reservations'], {}, 'Malformed parameter reservations'],
        ...hostileText(patch('id')),
        [patch('id'), null, 'Missing parameter reservation ID'],
        [patch('id'), 7, 'Malformed parameter id'],
        ...hostileText(patch('resource_type')),
        ...hostileText(patch('min')),
        [patch('min'), 1e308, 'Malformed parameter min'],
        [patch('max'), 1.5, 'Malformed parameter max'],
        ...hostileText(patch('hypervisor_properties'), true),
        ...hostileText(patch('resource_properties'), true),
        ...hostileText(patch('before_end')),
        [patch('amount'), 1e308, 'Malformed parameter amount'],
        [patch('vcpus'), '2.5', 'Malformed parameter vcpus'],
        [patch('memory_mb'), Number.MAX_SAFE_INTEGER + 1, 'Malformed parameter memory_mb'],
        [patch('disk_gb'), [], 'Malformed parameter disk_gb'],
        [patch('affinity'), 'sometimes', 'Malformed parameter affinity (must be a bool value or None)'],
        ...hostileText(patch('flavor_id')),
        [patch('flavor_id'), 'a/b', 'Malformed parameter flavor_id'],
        ...hostileText(patch('network_id')),
        [patch('network_id'), 'net-a', notNetwork],
        [
          [...patch('required_floatingips'), 0],
          'x\u0000',
          'Malformed parameter reservations[0].required_floatingips[0] (contains the control character U+0000)',
        ],
      ]),
    )('$field = $shown', ({ path, value, message }) => {
      expect(refusal(() => update(withValue(CHANGES, path, value)))).toEqual({ status: 400, message });
    });

    it('several bad fields: the sizes are judged before the queries and before_end, whatever order the body has', () => {
      const bad = { before_end: 'x', resource_properties: 1, hypervisor_properties: 1, required_floatingips: 'x', min: 'x', amount: 'x' };
      const first = (fields: Readonly<Record<string, unknown>>) =>
        refusal(() => update({ reservations: [{ id: RESERVATION, ...fields }] }));
      expect(first(bad)).toEqual({ status: 400, message: 'Malformed parameter min' });
      const { min: _min, ...noMin } = bad;
      expect(first(noMin)).toEqual({ status: 400, message: 'Malformed parameter amount' });
      const { amount: _amount, ...noAmount } = noMin;
      expect(first(noAmount)).toEqual({ status: 400, message: 'Malformed parameter required_floatingips' });
      const { required_floatingips: _ips, ...queries } = noAmount;
      expect(first(queries)).toEqual({ status: 400, message: 'Malformed parameter hypervisor_properties' });
    });
  });
});
