import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { HOSTILE_TEXT, refusal, throughBoundary } from '../http/testing/request-tables.js';
import { parseRegisterFloatingIp } from './floating-ip-request.parser.js';

const NET = '3f0b6a52-1c1e-4d7e-9a43-0d1f6e2b7a01';
const register = throughBoundary(parseRegisterFloatingIp);
const VALID = { floating_network_id: NET, floating_ip_address: '172.24.4.10' };
const NOT_A_NETWORK = 'Malformed parameter floating_network_id (must be a network UUID)';

describe('POST /v1/floatingips (RegisterFloatingIpDto): a table per field', () => {
  it('registers the address of a network named by its UUID, kept in lower case', () => {
    expect(register(VALID)).toEqual({ networkId: NET, address: '172.24.4.10' });
    expect(register({ ...VALID, floating_network_id: NET.toUpperCase(), floating_ip_address: '2001:DB8::A' })).toEqual({
      networkId: NET,
      address: '2001:db8::a',
    });
  });

  it.each([
    ...HOSTILE_TEXT.map(([, text, why]) => ['floating_network_id', text, `Malformed parameter floating_network_id (${why})`] as const),
    ['floating_network_id', 'not-a-uuid', NOT_A_NETWORK],
    ['floating_network_id', '', NOT_A_NETWORK],
    ['floating_network_id', ` ${NET}`, NOT_A_NETWORK],
    ['floating_network_id', NET.replaceAll('-', ''), NOT_A_NETWORK],
    ['floating_network_id', `urn:uuid:${NET}`, NOT_A_NETWORK],
    ['floating_network_id', `${NET.slice(0, -1)}g`, NOT_A_NETWORK],
    ['floating_network_id', 7, 'Malformed parameter floating_network_id'],
    ['floating_network_id', null, 'Missing parameter floating_network_id'],
    ...HOSTILE_TEXT.map(([, text, why]) => ['floating_ip_address', text, `Malformed parameter floating_ip_address (${why})`] as const),
    ['floating_ip_address', '172.24.4.256', 'Malformed parameter floating_ip_address: 172.24.4.256 is not an IPv4 or IPv6 address'],
    ['floating_ip_address', '1'.repeat(65), 'Malformed parameter floating_ip_address'],
    ['floating_ip_address', 167_772_161, 'Malformed parameter floating_ip_address'],
  ] as const)('%s = %j', (field, value, message) => {
    expect(refusal(() => register({ ...VALID, [field]: value }))).toEqual({ status: 400, message });
  });
});
