import type { WriteIndex } from '../write-model/write-index.js';
import type { EnforcementResources } from '#plugins/ports/external-enforcement.port.js';

/** The allocated resources' details, from the write side's registry (caught up by the decision that chose them). */
export const indexResources = (index: WriteIndex): EnforcementResources => ({
  host: (hostId) => {
    const { state } = index.host(hostId);
    return state.status === 'Registered' ? { hypervisorHostname: state.info.hypervisorHostname, capabilities: state.capabilities } : null;
  },
  floatingIp: (floatingIpId) => {
    const { state } = index.floatingIp(floatingIpId);
    return state.status === 'Registered' ? { networkId: state.networkId, address: state.address } : null;
  },
});
