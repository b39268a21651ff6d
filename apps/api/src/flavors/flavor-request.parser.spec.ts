import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { HOSTILE_TEXT, refusal, throughBoundary } from '../http/testing/request-tables.js';
import { parseCreateFlavor } from './flavor-request.parser.js';

const create = throughBoundary(parseCreateFlavor);
const FLAVOR = {
  name: 'm1.small',
  vcpus: 1,
  ram: 2048,
  disk: 20,
  id: 'm1.small',
  swap: 0,
  rxtx_factor: '1.0',
  extra_specs: { 'hw:cpu_policy': 'dedicated' },
};
const INT32 = 2 ** 31 - 1;

const atMost = (field: string) => `Malformed parameter ${field} (must be an integer <= ${INT32})`;

describe('POST /v1/flavors (CreateFlavorDto): a table per field', () => {
  it("takes a flavor as Nova does, up to Nova's 32-bit limits", () => {
    const big = create({
      flavor: {
        ...FLAVOR,
        vcpus: INT32,
        ram: String(INT32),
        disk: INT32,
        'OS-FLV-EXT-DATA:ephemeral': INT32,
        swap: INT32,
        rxtx_factor: 3.4e38,
      },
    });
    expect(big).toMatchObject({ vcpus: INT32, ram: INT32, disk: INT32, ephemeral: INT32, swap: INT32, rxtxFactor: 3.4e38 });
  });

  it.each([
    ...HOSTILE_TEXT.map(([, text, why]) => [['flavor', 'name'], text, `Malformed parameter flavor.name (${why})`] as const),
    [['flavor', 'name'], '', 'Malformed parameter name (must not be empty or blank)'],
    [['flavor', 'name'], '  ', 'Malformed parameter name (must not be empty or blank)'],
    [['flavor', 'vcpus'], 2 ** 31, atMost('vcpus')],
    [['flavor', 'vcpus'], 1e308, 'Malformed parameter vcpus (must be an integer >= 1)'],
    [['flavor', 'ram'], '9999999999', atMost('ram')],
    [['flavor', 'disk'], 2 ** 40, atMost('disk')],
    [['flavor', 'OS-FLV-EXT-DATA:ephemeral'], 2 ** 31, atMost('OS-FLV-EXT-DATA:ephemeral')],
    [['flavor', 'swap'], 2 ** 31, atMost('swap')],
    [['flavor', 'rxtx_factor'], '9'.repeat(400), 'Malformed parameter rxtx_factor (must be a number <= 3.40282e+38)'],
    [['flavor', 'rxtx_factor'], 1e308, 'Malformed parameter rxtx_factor (must be a number <= 3.40282e+38)'],
    ...HOSTILE_TEXT.map(([, text, why]) => [['flavor', 'id'], text, `Malformed parameter flavor.id (${why})`] as const),
    ...HOSTILE_TEXT.map(
      ([, text, why]) =>
        [['flavor', 'extra_specs', 'hw:cpu_policy'], text, `Malformed parameter flavor.extra_specs.hw:cpu_policy (${why})`] as const,
    ),
  ] as const)('%j = %j', ([, field, spec], value, message) => {
    const flavor = spec === undefined ? { ...FLAVOR, [field]: value } : { ...FLAVOR, extra_specs: { [spec]: value } };
    expect(refusal(() => create({ flavor }))).toEqual({ status: 400, message });
  });
});
