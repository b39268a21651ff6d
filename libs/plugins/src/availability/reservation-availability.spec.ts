import { describe, expect, it } from 'vitest';
import { floatingIpReservation, reservation, virtualInstanceReservation } from '#domain/lease/testing/lease.fixtures.js';
import { buildFlavorInstanceRequest, buildInstanceRequest } from '../instance/instance-reservation.request.js';
import { buildHostRequest } from '../physical-host/host-reservation.request.js';
import { EMPTY_QUERY, parseQuery } from '../query/blazar-query.js';
import { RESERVATION_TYPES, reservationType } from '../reservation-types.js';
import type { HostCapacityPool } from './availability.port.js';

const gpu = '["=", "$gpu", "true"]';
const hosts = buildHostRequest({ min: 2, max: 3, hypervisorProperties: '', resourceProperties: gpu, beforeEnd: 'default' });
const instances = buildInstanceRequest({ amount: 4, vcpus: 1, memoryMb: 512, diskGb: 1, affinity: null, resourceProperties: gpu });
const flavored = buildFlavorInstanceRequest('flavor-1', 5, null);
const addresses = { resourceType: 'virtual:floatingip', networkId: 'net-1', amount: 6, requiredFloatingIps: [] } as const;

describe("each type's part of the availability search", () => {
  it('counts what a request asks for as a window reports it: min hosts, or the amount', () => {
    expect(
      [hosts, instances, flavored, addresses].map((request) => reservationType(request.resourceType).availability.requested(request)),
    ).toEqual([2, 4, 5, 6]);
  });

  it('reaches the hosts its properties match, any reservable host for a catalog flavor, the floating IPs of its network', () => {
    const scopes = [hosts, instances, flavored, addresses].map((request) =>
      reservationType(request.resourceType).availability.scopes(request),
    );
    expect(scopes).toEqual([
      [{ kind: 'host', hosts: parseQuery(gpu) }],
      [{ kind: 'host', hosts: parseQuery(gpu) }],
      [{ kind: 'host', hosts: EMPTY_QUERY }],
      [{ kind: 'floatingip', networkId: 'net-1' }],
    ]);
  });

  it('lets a pending reservation on hosts move to any host, and one of addresses only within its network', () => {
    const held = [reservation('res-1'), virtualInstanceReservation('res-2'), floatingIpReservation('res-3', { networkId: 'net-2' })];
    expect(held.map((r) => reservationType(r.resourceType).availability.heldScopes(r))).toEqual([
      [{ kind: 'host', hosts: 'every' }],
      [{ kind: 'host', hosts: 'every' }],
      [{ kind: 'floatingip', networkId: 'net-2' }],
    ]);
  });

  it('sweeps whole hosts only: min hosts of the query, proved alone on one host', () => {
    const swept = RESERVATION_TYPES.filter((module) => module.availability.sweep !== null).map((module) => module.resourceType);
    expect(swept).toEqual(['physical:host']);
    const sweep = reservationType('physical:host').availability.sweep;
    expect(sweep?.demand(hosts)).toEqual({ query: hosts.query, min: 2 });
    expect(sweep?.single(hosts)).toEqual({ ...hosts, min: 1, max: 1 });
  });

  it('names a refusal for lack of capacity for every type, so the search tries later instead of answering it', () => {
    for (const module of RESERVATION_TYPES) expect(module.availability.shortages.length, module.resourceType).toBeGreaterThan(0);
  });
});

describe("each type's part of the capacity report and the calendar page", () => {
  it('reports each view of the host capacity under exactly one type, in upstream order', () => {
    const pools = RESERVATION_TYPES.flatMap(({ resourceType, availability: { capacityPool } }) =>
      capacityPool === null ? [] : [[resourceType, capacityPool] as const],
    );
    expect(pools).toEqual([
      ['physical:host', 'whole-hosts'],
      ['virtual:instance', 'slots'],
    ] satisfies [string, HostCapacityPool][]);
  });

  it("offers the page's free-window search for whole hosts: min = max = N, the filter as resource_properties", () => {
    const offered = RESERVATION_TYPES.filter((module) => module.availability.calendarSearch !== null);
    expect(offered.map((module) => [module.resourceType, module.availability.calendarSearch])).toEqual([
      ['physical:host', { countFields: ['min', 'max'], filterField: 'resource_properties', fixedFields: { hypervisor_properties: '' } }],
    ]);
  });
});
