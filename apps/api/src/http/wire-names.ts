import type { DomainError } from '#domain/index.js';
import { renderMessage } from '#domain/index.js';

/** Blazar's names of the fields the domain names in its messages (`{field:memoryMb}` -> `memory_mb`). */
export const WIRE_NAMES: Readonly<Record<string, string>> = {
  min: 'min',
  max: 'max',
  hypervisorProperties: 'hypervisor_properties',
  resourceProperties: 'resource_properties',
  beforeEnd: 'before_end',
  amount: 'amount',
  vcpus: 'vcpus',
  memoryMb: 'memory_mb',
  diskGb: 'disk_gb',
  affinity: 'affinity',
  flavorId: 'flavor_id',
  networkId: 'network_id',
  requiredFloatingIps: 'required_floatingips',
  resourceType: 'resource_type',
};

/** A domain error's message in Blazar's words: its fields by their wire names. */
export const wireMessage = (error: DomainError): string => renderMessage(error.template, (name) => WIRE_NAMES[name] ?? name);
