import { invalid } from '#domain/index.js';
import type { HostDescription, HostInventory, HostToRegister } from '../ports/host-inventory.port.js';
import { NO_ZONE_RULE, type ZoneRule, amountFor, hostsOf } from '../zone-rule.js';

/**
 * Standalone mode: nobody to ask, so the registration states what Nova would report, and the operator
 * states how many compute hosts each zone of the simulated cloud has (LEASEHOLD_STANDALONE_ZONE_HOSTS);
 * a zone it does not name has only the hosts registered so far.
 */
export class StandaloneHostInventory implements HostInventory {
  constructor(private readonly zoneHosts: ZoneRule = NO_ZONE_RULE) {}

  computeHostsIn(zone: string): Promise<number | null> {
    const amount = amountFor(this.zoneHosts, zone);
    return Promise.resolve(amount === null ? null : hostsOf(amount, 0));
  }

  describe(host: HostToRegister): Promise<HostDescription> {
    if (host.source !== 'request') {
      return Promise.reject(
        invalid(
          'HOST_FACTS_MISSING',
          `No cloud reports the facts of host ${host.name} in standalone mode: the registration must state them`,
        ),
      );
    }
    const { info, capabilities } = host;
    return Promise.resolve({ info, capabilities });
  }

  /** The simulated cloud runs no servers outside reservations. */
  checkRemovable(): Promise<void> {
    return Promise.resolve();
  }
}
