import { describe, expect, it } from 'vitest';
import type { Server } from '../nova.client.js';
import { isPreemptible, preemptibleOptionsOf } from './preemptible.openstack-effects.js';

const server = (extraSpecs: Readonly<Record<string, string>> | undefined): Server => ({
  id: 'srv-1',
  name: 'srv-1',
  status: 'ACTIVE',
  tenant_id: 'project-1',
  user_id: 'user-1',
  'OS-EXT-SRV-ATTR:host': 'fake-host-1',
  'OS-EXT-SRV-ATTR:hypervisor_hostname': 'fake-host-1',
  'OS-EXT-STS:task_state': null,
  flavor: { original_name: 'f', vcpus: 1, ram: 512, disk: 1, ...(extraSpecs === undefined ? {} : { extra_specs: extraSpecs }) },
});

describe('isPreemptible: which servers on a host a lease takes are reaped', () => {
  it('is a server whose flavor asks for the preemptible class', () => {
    expect(isPreemptible(server({ 'resources:CUSTOM_LEASEHOLD_PREEMPTIBLE': '1', 'trait:CUSTOM_BLAZAR_FREEPOOL': 'required' }))).toBe(true);
  });

  it('is not a server whose flavor only requires the trait: an image can require a trait, only a flavor can ask for the class', () => {
    expect(isPreemptible(server({ 'trait:CUSTOM_LEASEHOLD_PREEMPTIBLE': 'required', 'trait:CUSTOM_BLAZAR_FREEPOOL': 'required' }))).toBe(
      false,
    );
  });

  it('is not a reservation server, a regular one, nor one whose flavor asks for none of the class', () => {
    expect(isPreemptible(server({ 'trait:CUSTOM_RESERVATION_RES_1': 'required' }))).toBe(false);
    expect(isPreemptible(server({ 'resources:CUSTOM_RESERVATION_RES_1': '1', 'trait:CUSTOM_BLAZAR_FREEPOOL': 'required' }))).toBe(false);
    expect(isPreemptible(server({}))).toBe(false);
    expect(isPreemptible(server({ 'resources:CUSTOM_LEASEHOLD_PREEMPTIBLE': '0' }))).toBe(false);
  });

  it('is not a server whose extra specs Nova did not show (a caller without the admin view)', () => {
    expect(isPreemptible(server(undefined))).toBe(false);
  });
});

describe('preemptibleOptionsOf', () => {
  it('is off without settings, and waits the grace period in milliseconds with them', () => {
    expect(preemptibleOptionsOf(null)).toBeNull();
    expect(preemptibleOptionsOf({ graceSeconds: 45 })).toMatchObject({ graceMs: 45_000 });
  });
});
