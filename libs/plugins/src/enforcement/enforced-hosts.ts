import type { EnforcementResources } from '../ports/external-enforcement.port.js';

/** Each host once, as upstream's lease body lists a reservation's allocations on hosts. */
export const enforcedHosts = (resources: EnforcementResources, hostIds: readonly string[]) =>
  [...new Set(hostIds)].map((id) => {
    const host = resources.host(id);
    return { id, hypervisor_hostname: host?.hypervisorHostname ?? null, extra: host?.capabilities ?? {} };
  });
