import type { ServerDeletion } from './openstack-effects.support.js';
import type { PreemptibleOptions } from './preemptible.openstack-effects.js';

/** What every reservation type's OpenStack adapter may be configured with (each takes the part it knows). */
export interface OpenStackEffectsOptions {
  readonly freepoolName: string;
  readonly freepoolPerZone?: boolean;
  readonly defaultBeforeEnd?: 'snapshot' | '';
  readonly serverDeletion?: ServerDeletion;
  readonly preemptible?: PreemptibleOptions | null;
}
