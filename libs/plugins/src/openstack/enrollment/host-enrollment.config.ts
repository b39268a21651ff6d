import type { CloudConfig } from '../../cloud-config.js';
import { NovaClient } from '../nova.client.js';
import { OpenStackSession } from '../openstack.session.js';
import { PlacementClient } from '../placement.client.js';
import { type HostEnrollmentEffects, OpenStackHostEnrollment } from './host-enrollment.adapter.js';

/** The reactor's host enrollment for the configured cloud; undefined in standalone mode, whose free pool is implicit. */
export const hostEnrollmentFor = (cloud: CloudConfig): HostEnrollmentEffects | undefined => {
  if (cloud.kind === 'standalone') return undefined;
  const session = OpenStackSession.create(cloud.openstack.credentials, { interface: cloud.openstack.interface });
  const { freepoolName, freepoolPerZone, preemptible } = cloud.openstack;
  return new OpenStackHostEnrollment(
    new NovaClient(session),
    new PlacementClient(session),
    { name: freepoolName, perZone: freepoolPerZone },
    preemptible !== null,
  );
};
