import type { Capabilities } from '#domain/index.js';
import { hostBlazarReader } from '#plugins/physical-host/host.blazar.js';
import type { ImportNote, ImportProblem, ImportedFloatingIp, ImportedHost, ImportedProperty } from './blazar-import.model.js';
import type { BlazarRow, BlazarRows } from './blazar-source.port.js';
import { BlazarValueError, flag, groupBy, instant, instantOrNull, integer, text, textOrNull } from '#plugins/blazar/blazar-values.js';

export interface Inventory {
  readonly hosts: readonly ImportedHost[];
  readonly floatingIps: readonly ImportedFloatingIp[];
  readonly privateProperties: readonly ImportedProperty[];
  readonly problems: readonly ImportProblem[];
  readonly notes: readonly ImportNote[];
}

/** A row the import cannot read is a problem of its own (the row is left out), never a crash of the whole import. */
export const readable = <T>(problems: ImportProblem[], what: string, leaseId: string | null, read: () => T): T | null => {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof BlazarValueError)) throw error;
    problems.push({ kind: 'unreadable_row', leaseId, message: `${what}: ${error.message}` });
    return null;
  }
};

const capabilitiesOf = (
  rows: readonly BlazarRow[],
  propertyNames: ReadonlyMap<string, string>,
  problems: ImportProblem[],
  hostId: string,
): Capabilities => {
  const capabilities: Record<string, string> = {};
  for (const row of rows) {
    const name = propertyNames.get(text(row, 'property_id'));
    if (name === undefined) {
      problems.push({
        kind: 'dangling_reference',
        leaseId: null,
        message: `computehost_extra_capabilities ${text(row, 'id')} of host ${hostId} names resource property ${text(row, 'property_id')}, which does not exist`,
      });
      continue;
    }
    capabilities[name] = text(row, 'capability_value');
  }
  return capabilities;
};

const hostOf = (row: BlazarRow, capabilities: Capabilities): ImportedHost => {
  const hostId = text(row, 'id');
  const hypervisorHostname = text(row, 'hypervisor_hostname');
  return {
    hostId,
    info: {
      hypervisorHostname,
      serviceName: textOrNull(row, 'service_name') ?? hypervisorHostname,
      vcpus: integer(row, 'vcpus'),
      memoryMb: integer(row, 'memory_mb'),
      localGb: integer(row, 'local_gb'),
      cpuInfo: text(row, 'cpu_info'),
      hypervisorType: text(row, 'hypervisor_type'),
      hypervisorVersion: integer(row, 'hypervisor_version'),
      availabilityZone: text(row, 'availability_zone'),
    },
    capabilities,
    reservable: flag(row, 'reservable'),
    createdAt: instant(row, 'created_at'),
    updatedAt: instantOrNull(row, 'updated_at'),
  };
};

const hostsOf = (rows: BlazarRows, problems: ImportProblem[]): ImportedHost[] => {
  const propertyNames = new Map(rows.resource_properties.map((row) => [text(row, 'id'), text(row, 'property_name')]));
  const capabilityRows = groupBy(rows.computehost_extra_capabilities, 'computehost_id');
  const hostIds = new Set(rows.computehosts.map((row) => text(row, 'id')));
  for (const [hostId, orphans] of capabilityRows) {
    if (hostIds.has(hostId)) continue;
    for (const orphan of orphans) {
      const message = `computehost_extra_capabilities ${text(orphan, 'id')} belongs to host ${hostId}, which does not exist`;
      problems.push({ kind: 'dangling_reference', leaseId: null, message });
    }
  }
  return rows.computehosts.flatMap((row) => {
    const hostId = text(row, 'id');
    if (!/^[1-9]\d*$/.test(hostId)) {
      problems.push({
        kind: 'unsupported',
        leaseId: null,
        message: `host ${hostId}: Leasehold numbers hosts 1, 2, ...; this id is not one`,
      });
      return [];
    }
    const host = readable(problems, `host ${hostId}`, null, () =>
      hostOf(row, capabilitiesOf(capabilityRows.get(hostId) ?? [], propertyNames, problems, hostId)),
    );
    return host === null ? [] : [host];
  });
};

const floatingIpsOf = (rows: BlazarRows, problems: ImportProblem[], notes: ImportNote[]): ImportedFloatingIp[] =>
  rows.floatingips.flatMap((row) => {
    const floatingIp = readable(problems, `floating IP ${String(row.id)}`, null, () => ({
      floatingIpId: text(row, 'id'),
      networkId: text(row, 'floating_network_id'),
      subnetId: text(row, 'subnet_id'),
      address: text(row, 'floating_ip_address'),
      createdAt: instant(row, 'created_at'),
    }));
    if (floatingIp === null) return [];
    if (!flag(row, 'reservable')) {
      notes.push({
        message: `floating IP ${floatingIp.address} is not reservable in Blazar; Leasehold has no such flag: imported as reservable`,
      });
    }
    return [floatingIp];
  });

/** Private host properties; a private property no host has is not one Leasehold can record (it names known ones only). */
const privatePropertiesOf = (rows: BlazarRows, hosts: readonly ImportedHost[], notes: ImportNote[]): ImportedProperty[] => {
  const used = new Set(hosts.flatMap((host) => Object.keys(host.capabilities)));
  return rows.resource_properties.flatMap((row) => {
    if (!flag(row, 'private')) return [];
    const name = text(row, 'property_name');
    if (text(row, 'resource_type') !== hostBlazarReader.resourceType || !used.has(name)) {
      notes.push({ message: `private resource property ${name} (${text(row, 'resource_type')}) is on no host: not imported` });
      return [];
    }
    return [{ id: text(row, 'id'), name, createdAt: instant(row, 'created_at') }];
  });
};

export const inventoryOf = (rows: BlazarRows): Inventory => {
  const problems: ImportProblem[] = [];
  const notes: ImportNote[] = [];
  const hosts = hostsOf(rows, problems);
  return {
    hosts,
    floatingIps: floatingIpsOf(rows, problems, notes),
    privateProperties: privatePropertiesOf(rows, hosts, notes),
    problems,
    notes,
  };
};
