import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import {
  HOSTILE_TEXT,
  type Row,
  cases,
  hostileText as hostileAt,
  refusal,
  throughBoundary,
  withValue,
} from '../http/testing/request-tables.js';
import { validateBody } from '../http/validate-body.js';
import { PropertyPrivacyDto } from './host.dto.js';
import { parseNamedHost, parseRegisterHost, parseUpdateHost } from './host-request.parser.js';

const INT32 = 2 ** 31 - 1;
const register = throughBoundary(parseRegisterHost);
const registerNamed = throughBoundary(parseNamedHost);
const update = throughBoundary(parseUpdateHost);

const HOST = {
  name: 'compute-1',
  vcpus: 16,
  memory_mb: '65536',
  local_gb: 500,
  hypervisor_version: 8_000_000,
  hypervisor_type: 'QEMU',
  cpu_info: '{"arch": "x86_64"}',
  service_name: 'compute-1',
  availability_zone: 'az1',
  gpu: 'true',
};

const hostileText = (field: string, jsonText = false): Row[] => hostileAt([field], jsonText);

const bounds = (field: string, min: number, max: number) => `Malformed parameter ${field} (must be an integer between ${min} and ${max})`;
const notAtRegistration = (key: string) => `${key} cannot be set at registration: it is a host field, not an extra capability`;
const notUpdatable = (key: string) =>
  `${key} cannot be updated: a host's fields come from its registration; only extra capabilities and reservable can change`;

describe('POST /v1/os-hosts, standalone (RegisterHostDto): a table per field', () => {
  it('registers the valid host; absent capacity is 0 ("not reported"), for whole-host leases', () => {
    expect(register(HOST)).toEqual({
      info: {
        hypervisorHostname: 'compute-1',
        serviceName: 'compute-1',
        vcpus: 16,
        memoryMb: 65_536,
        localGb: 500,
        cpuInfo: '{"arch": "x86_64"}',
        hypervisorType: 'QEMU',
        hypervisorVersion: 8_000_000,
        availabilityZone: 'az1',
      },
      capabilities: { gpu: 'true' },
    });
    expect(register({ name: 'bare' }).info).toMatchObject({ vcpus: 0, memoryMb: 0, localGb: 0, hypervisorVersion: 0 });
    expect(register({ id: 'by-id' }).info.hypervisorHostname).toBe('by-id');
    expect(register({ ...HOST, vcpus: 65_536, memory_mb: INT32, local_gb: INT32, hypervisor_version: 0 }).info.vcpus).toBe(65_536);
    expect(register({ ...HOST, cpu_info: '{\n\t"arch": "x86_64"\r\n}' }).info.cpuInfo).toContain('\n');
  });

  it.each(
    cases([
      ...hostileText('name'),
      [['name'], '', 'Malformed parameter name (must not be empty or blank)'],
      [['name'], '   ', 'Malformed parameter name (must not be empty or blank)'],
      [['name'], 'h'.repeat(256), 'Malformed parameter name'],
      [['name'], 7, 'Malformed parameter name'],
      [['name'], null, 'Missing parameter name'],
      ...hostileText('vcpus'),
      [['vcpus'], -4, bounds('vcpus', 1, 65_536)],
      [['vcpus'], 0, bounds('vcpus', 1, 65_536)],
      [['vcpus'], 65_537, bounds('vcpus', 1, 65_536)],
      [['vcpus'], 1e308, bounds('vcpus', 1, 65_536)],
      [['vcpus'], 2.5, bounds('vcpus', 1, 65_536)],
      [['vcpus'], '1e3', bounds('vcpus', 1, 65_536)],
      [['vcpus'], 'NaN', bounds('vcpus', 1, 65_536)],
      [['vcpus'], true, bounds('vcpus', 1, 65_536)],
      ...hostileText('memory_mb'),
      [['memory_mb'], 0, bounds('memory_mb', 1, INT32)],
      [['memory_mb'], 2 ** 31, bounds('memory_mb', 1, INT32)],
      [['memory_mb'], '-1', bounds('memory_mb', 1, INT32)],
      ...hostileText('local_gb'),
      [['local_gb'], 0, bounds('local_gb', 1, INT32)],
      [['local_gb'], Number.MAX_SAFE_INTEGER, bounds('local_gb', 1, INT32)],
      [['hypervisor_version'], -1, bounds('hypervisor_version', 0, INT32)],
      [['hypervisor_version'], 8.5, bounds('hypervisor_version', 0, INT32)],
      ...hostileText('hypervisor_type'),
      [['hypervisor_type'], 't'.repeat(256), 'Malformed parameter hypervisor_type'],
      ...hostileText('cpu_info', true),
      [['cpu_info'], { arch: 'x86_64' }, 'Malformed parameter cpu_info'],
      ...hostileText('service_name'),
      [['service_name'], 's'.repeat(256), 'Malformed parameter service_name'],
      ...hostileText('availability_zone'),
      ...hostileText('gpu'),
      [['gpu'], { nested: true }, 'Malformed parameter gpu: extra capability values must be strings, numbers or booleans'],
      [['x\u0000'], 'true', 'Malformed parameter ["x\\u0000"] (the name contains the control character U+0000)'],
      [['  '], 'true', 'Malformed parameter ["  "] (an extra capability name must not be empty or blank)'],
      [[''], 'true', 'Malformed parameter [""] (an extra capability name must not be empty or blank)'],
      [['reservable'], false, notAtRegistration('reservable')],
      [['hypervisor_hostname'], 'other', notAtRegistration('hypervisor_hostname')],
      [['created_at'], '2020-01-01', notAtRegistration('created_at')],
      [['status'], 'up', notAtRegistration('status')],
      [['trust_id'], 't', notAtRegistration('trust_id')],
    ]),
  )('$field = $shown', ({ path, value, message }) => {
    expect(refusal(() => register(withValue(HOST, path, value)))).toEqual({ status: 400, message });
  });
});

describe('POST /v1/os-hosts with a cloud (Nova reports the fields)', () => {
  it('reads the name (or id); every other key is an extra capability', () => {
    expect(registerNamed({ name: 'compute-1', gpu: 'true' })).toEqual({ name: 'compute-1', capabilities: { gpu: 'true' } });
  });

  it.each(
    cases([
      ...hostileText('name'),
      [['name'], ' ', 'Malformed parameter name (must not be empty or blank)'],
      [['name'], '', 'Malformed parameter name (must not be empty or blank)'],
      [['vcpus'], 4, "vcpus cannot be set at registration: the host's fields come from Nova"],
      [['memory_mb'], 4, "memory_mb cannot be set at registration: the host's fields come from Nova"],
      [['cpu_info'], '{}', "cpu_info cannot be set at registration: the host's fields come from Nova"],
      [['reservable'], true, "reservable cannot be set at registration: the host's fields come from Nova"],
    ]),
  )('$field = $shown', ({ path, value, message }) => {
    expect(refusal(() => registerNamed(withValue({ name: 'compute-1' }, path, value)))).toEqual({ status: 400, message });
  });
});

describe('PUT /v1/os-hosts/{id}: a table per field', () => {
  it('extra capabilities and reservable change; nothing else is an update', () => {
    expect(update({ gpu: 'false', rack: 4, fast: true, reservable: 'False' })).toEqual({
      capabilities: { gpu: 'false', rack: '4', fast: 'True' },
      reservable: false,
    });
    expect(refusal(() => update({}))).toEqual({ status: 400, message: 'No data to update' });
    expect(refusal(() => update(undefined))).toEqual({ status: 400, message: 'No data to update' });
  });

  it.each(
    cases([
      ...['vcpus', 'memory_mb', 'local_gb', 'cpu_info', 'hypervisor_type', 'hypervisor_version', 'hypervisor_hostname', 'service_name'].map(
        (key): Row => [[key], 8, notUpdatable(key)],
      ),
      ...['availability_zone', 'name', 'id', 'status', 'trust_id', 'created_at', 'updated_at'].map((key): Row => [
        [key],
        'x',
        notUpdatable(key),
      ]),
      ...hostileText('gpu'),
      [['gpu'], ['a'], 'Malformed parameter gpu: extra capability values must be strings, numbers or booleans'],
      [['gpu'], 1e400, 'Malformed parameter gpu (not a finite number)'],
      [['\u009bgpu'], 'x', 'Malformed parameter ["\\u009bgpu"] (the name contains the control character U+009B)'],
      [['\t'], 'x', 'Malformed parameter ["\\t"] (the name contains the control character U+0009)'],
      [[' '], 'x', 'Malformed parameter [" "] (an extra capability name must not be empty or blank)'],
      ...hostileText('reservable'),
      [['reservable'], 'maybe', 'Malformed parameter reservable: must be true or false'],
      [['values'], { gpu: 'x' }, 'Malformed parameter values: send extra capabilities as top-level keys, e.g. {"gpu": "true"}'],
    ]),
  )('$field = $shown', ({ path, value, message }) => {
    expect(refusal(() => update(withValue({ rack: 'r1' }, path, value)))).toEqual({ status: 400, message });
  });
});

describe('PATCH /v1/os-hosts/properties/{name} (PropertyPrivacyDto)', () => {
  const privacy = throughBoundary((body) => validateBody(PropertyPrivacyDto, body));

  it.each([
    ...HOSTILE_TEXT.map(([, text, why]) => [text, `Malformed parameter private (${why})`] as const),
    ['true', 'Malformed parameter private: must be true or false'],
    [1, 'Malformed parameter private: must be true or false'],
    [null, 'Missing parameter private'],
  ] as const)('private = %j', (value, message) => {
    expect(refusal(() => privacy({ private: value }))).toEqual({ status: 400, message });
  });

  it('takes a boolean', () => {
    expect(privacy({ private: true }).private).toBe(true);
  });
});
