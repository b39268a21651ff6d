import { invalid } from '#domain/index.js';
import type { HostDescription, HostInventory, HostToRegister } from '#application/hosts/host-inventory.port.js';

/** Standalone mode: nobody to ask, so the registration states what Nova would report. */
export class StandaloneHostInventory implements HostInventory {
  describe(host: HostToRegister): Promise<HostDescription> {
    if (host.source !== 'request') {
      return Promise.reject(invalid('HOST_FACTS_MISSING', `No cloud reports the facts of host ${host.name} in standalone mode: the registration must state them`));
    }
    const { info, capabilities } = host;
    return Promise.resolve({ info, capabilities });
  }

  /** The simulated cloud runs no servers outside reservations. */
  checkRemovable(): Promise<void> {
    return Promise.resolve();
  }
}
