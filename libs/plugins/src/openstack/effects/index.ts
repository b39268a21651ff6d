export * from './openstack-effects.support.js';
export * from './physical-host.openstack-effects.js';
export * from './instance.openstack-effects.js';
export * from './floating-ip.openstack-effects.js';
export * from './openstack-effects.registry.js';
export * from './trust.openstack-effects.js';
