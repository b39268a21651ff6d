export const EVENT_STORE = Symbol('EVENT_STORE');
export const READ_MODEL_ORM = Symbol('READ_MODEL_ORM');
export const CLOCK = Symbol('CLOCK');
export const APPLICATION_CONTEXT = Symbol('APPLICATION_CONTEXT');
/** LEASEHOLD_CLOUD: standalone takes the request's word; openstack asks Nova and Neutron. */
export const CLOUD_CONFIG = Symbol('CLOUD_CONFIG');
export const OPENSTACK_SESSION = Symbol('OPENSTACK_SESSION');
export const HOST_INVENTORY = Symbol('HOST_INVENTORY');
export const FLOATING_IP_NETWORKS = Symbol('FLOATING_IP_NETWORKS');
/** The audit log of refused writes: a store of its own beside the ledger. */
export const AUDIT_STORE = Symbol('AUDIT_STORE');

/** The configured usage enforcement filters (LEASEHOLD_ENFORCEMENT_FILTERS). */
export const USAGE_ENFORCEMENT = Symbol('USAGE_ENFORCEMENT');
