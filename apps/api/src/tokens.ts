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

/** Snapshots of in-memory states beside the ledger (libs/event-store/src/snapshots/). */
export const SNAPSHOT_STORE = Symbol('SNAPSHOT_STORE');
/** The write index with its snapshot writer (stopped, so written, at shutdown). */
export const OPENED_WRITE_INDEX = Symbol('OPENED_WRITE_INDEX');
export const OPENED_QUOTA_INDEX = Symbol('OPENED_QUOTA_INDEX');
