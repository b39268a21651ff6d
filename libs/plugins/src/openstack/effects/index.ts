export * from './openstack-effects.support.js';
export * from './openstack-effects.options.js';
export * from './openstack-effects.registry.js';
export * from './trust.openstack-effects.js';
