export * from './openstack.errors.js';
export * from './openstack.session.js';
export * from './nova.client.js';
export * from './placement.client.js';
export * from './neutron.client.js';
export * from './keystone-trusts.client.js';
export * from './cloud-unavailable.js';
export * from './keystone-lease-trusts.js';
