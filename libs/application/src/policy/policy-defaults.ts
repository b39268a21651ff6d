/**
 * Upstream Blazar's policy-in-code defaults (blazar/policies/base.py, leases.py, oshosts.py; the
 * secure-RBAC defaults, not the deprecated `admin_or_owner` fallback). Same names, so an operator's
 * existing policy file overrides them the same way.
 */
export const DEFAULT_RULES: Readonly<Record<string, string>> = {
  admin: 'is_admin:True or role:admin',
  admin_or_owner: 'rule:admin or project_id:%(project_id)s',
  project_member_api: 'role:member and project_id:%(project_id)s',
  project_reader_api: 'role:reader and project_id:%(project_id)s',
  project_member_or_admin: 'rule:project_member_api or rule:admin',
  project_reader_or_admin: 'rule:project_reader_api or rule:admin',

  'blazar:leases:get': 'rule:project_reader_or_admin',
  'blazar:leases:post': 'rule:project_member_or_admin',
  'blazar:leases:put': 'rule:project_member_or_admin',
  'blazar:leases:delete': 'rule:project_member_or_admin',

  'blazar:oshosts:get': 'rule:admin',
  'blazar:oshosts:post': 'rule:admin',
  'blazar:oshosts:put': 'rule:admin',
  'blazar:oshosts:delete': 'rule:admin',
  'blazar:oshosts:get_allocations': 'rule:admin',
  'blazar:oshosts:reallocate': 'rule:admin',
  'blazar:oshosts:get_resource_properties': 'rule:admin',
  'blazar:oshosts:update_resource_properties': 'rule:admin',

  'blazar:floatingips:get': 'rule:project_reader_or_admin',
  'blazar:floatingips:post': 'rule:admin',
  'blazar:floatingips:delete': 'rule:admin',
  // Chameleon's network segments (blazar/policies/networks.py), admin only as for hosts; Chameleon checks `put` without
  // registering it
  'blazar:networks:get': 'rule:admin',
  'blazar:networks:post': 'rule:admin',
  'blazar:networks:put': 'rule:admin',
  'blazar:networks:delete': 'rule:admin',
  'blazar:networks:get_allocations': 'rule:admin',
  'blazar:networks:get_resource_properties': 'rule:admin',
  'blazar:networks:update_resource_properties': 'rule:admin',
  // Leasehold extensions: upstream has no floating-IP allocation view and no flavor catalog
  'blazar:floatingips:get_allocations': 'rule:admin',
  'leasehold:flavors:get': '@',
  'leasehold:flavors:post': 'rule:admin',
  'leasehold:flavors:delete': 'rule:admin',
  // Leasehold extensions: the event log's history of a resource, and refused writes
  'leasehold:oshosts:history': 'rule:admin',
  // Leasehold extension: maintenance windows on hosts, floating IPs and network segments (docs/maintenance.md)
  'leasehold:oshosts:get_maintenance': 'rule:admin',
  'leasehold:oshosts:post_maintenance': 'rule:admin',
  'leasehold:oshosts:delete_maintenance': 'rule:admin',
  'leasehold:floatingips:get_maintenance': 'rule:admin',
  'leasehold:floatingips:post_maintenance': 'rule:admin',
  'leasehold:floatingips:delete_maintenance': 'rule:admin',
  'leasehold:networks:get_maintenance': 'rule:admin',
  'leasehold:networks:post_maintenance': 'rule:admin',
  'leasehold:networks:delete_maintenance': 'rule:admin',
  'leasehold:floatingips:history': 'rule:admin',
  // Leasehold extension: lease requests, a lease asked for without dates (docs/queue.md); as for leases
  'leasehold:lease_requests:get': 'rule:project_reader_or_admin',
  'leasehold:lease_requests:post': 'rule:project_member_or_admin',
  'leasehold:lease_requests:delete': 'rule:project_member_or_admin',
  'leasehold:networks:history': 'rule:admin',
  'leasehold:audit:get': 'rule:admin',
  // Leasehold extension: tenant webhooks (docs/webhooks.md), a project's own like its leases
  'leasehold:webhooks:get': 'rule:project_reader_or_admin',
  'leasehold:webhooks:post': 'rule:project_member_or_admin',
  'leasehold:webhooks:delete': 'rule:project_member_or_admin',
  // Leasehold extension: the event feed; anyone authenticated, who then sees only their project's leases that `blazar:leases:get` lets them
  // read
  'leasehold:events:get': '@',
  // Leasehold extensions: usage reports (a project's own; every project's) and rate cards
  'leasehold:usage:get': 'rule:project_reader_or_admin',
  'leasehold:usage:get_all': 'rule:admin',
  'leasehold:rate_cards:get': '@',
  'leasehold:rate_cards:put': 'rule:admin',
  // Leasehold extensions: when a lease request would be admitted (those who may lease), how far one's own lease can grow
  'leasehold:availability:get': 'rule:project_member_or_admin',
  'leasehold:leases:extension': 'rule:project_reader_or_admin',
  // Leasehold extension: the operators' capacity table (every zone's hosts and every lease's failure domains)
  'leasehold:capacity:get': 'rule:admin',
  // Leasehold extension: per-project quotas (docs/operations.md), a project's own to read, set by admins
  'leasehold:quota:get': 'rule:project_reader_or_admin',
  'leasehold:quota:update': 'rule:admin',
  // Leasehold extension: fair-share shares and factors (docs/fair-share.md), a project's own to read, set by admins
  'leasehold:fair_share:get': 'rule:project_reader_or_admin',
  'leasehold:fair_share:get_all': 'rule:admin',
  'leasehold:fair_share:put': 'rule:admin',
  'leasehold:fair_share:delete': 'rule:admin',
};

/** The actions Leasehold checks, by route (docs and the policy tests use this table). */
export const ACTIONS = {
  leaseGet: 'blazar:leases:get',
  leasePost: 'blazar:leases:post',
  leasePut: 'blazar:leases:put',
  leaseDelete: 'blazar:leases:delete',
  hostGet: 'blazar:oshosts:get',
  hostPost: 'blazar:oshosts:post',
  hostPut: 'blazar:oshosts:put',
  hostDelete: 'blazar:oshosts:delete',
  hostAllocations: 'blazar:oshosts:get_allocations',
  propertiesGet: 'blazar:oshosts:get_resource_properties',
  propertiesUpdate: 'blazar:oshosts:update_resource_properties',
  floatingIpGet: 'blazar:floatingips:get',
  floatingIpPost: 'blazar:floatingips:post',
  floatingIpDelete: 'blazar:floatingips:delete',
  floatingIpAllocations: 'blazar:floatingips:get_allocations',
  networkGet: 'blazar:networks:get',
  networkPost: 'blazar:networks:post',
  networkPut: 'blazar:networks:put',
  networkDelete: 'blazar:networks:delete',
  networkAllocations: 'blazar:networks:get_allocations',
  networkPropertiesGet: 'blazar:networks:get_resource_properties',
  networkPropertiesUpdate: 'blazar:networks:update_resource_properties',
  flavorGet: 'leasehold:flavors:get',
  flavorPost: 'leasehold:flavors:post',
  flavorDelete: 'leasehold:flavors:delete',
  hostHistory: 'leasehold:oshosts:history',
  hostMaintenanceGet: 'leasehold:oshosts:get_maintenance',
  hostMaintenancePost: 'leasehold:oshosts:post_maintenance',
  hostMaintenanceDelete: 'leasehold:oshosts:delete_maintenance',
  floatingIpMaintenanceGet: 'leasehold:floatingips:get_maintenance',
  floatingIpMaintenancePost: 'leasehold:floatingips:post_maintenance',
  floatingIpMaintenanceDelete: 'leasehold:floatingips:delete_maintenance',
  networkMaintenanceGet: 'leasehold:networks:get_maintenance',
  networkMaintenancePost: 'leasehold:networks:post_maintenance',
  networkMaintenanceDelete: 'leasehold:networks:delete_maintenance',
  floatingIpHistory: 'leasehold:floatingips:history',
  leaseRequestGet: 'leasehold:lease_requests:get',
  leaseRequestPost: 'leasehold:lease_requests:post',
  leaseRequestDelete: 'leasehold:lease_requests:delete',
  networkHistory: 'leasehold:networks:history',
  auditGet: 'leasehold:audit:get',
  webhookGet: 'leasehold:webhooks:get',
  webhookPost: 'leasehold:webhooks:post',
  webhookDelete: 'leasehold:webhooks:delete',
  eventsGet: 'leasehold:events:get',
  usageGet: 'leasehold:usage:get',
  usageGetAll: 'leasehold:usage:get_all',
  rateCardGet: 'leasehold:rate_cards:get',
  rateCardPut: 'leasehold:rate_cards:put',
  availabilityGet: 'leasehold:availability:get',
  leaseExtension: 'leasehold:leases:extension',
  capacityGet: 'leasehold:capacity:get',
  quotaGet: 'leasehold:quota:get',
  quotaUpdate: 'leasehold:quota:update',
  fairShareGet: 'leasehold:fair_share:get',
  fairShareGetAll: 'leasehold:fair_share:get_all',
  fairShareSet: 'leasehold:fair_share:put',
  fairShareReset: 'leasehold:fair_share:delete',
} as const;

/**
 * Upstream's API code checks `blazar:oshosts:patch_resource_properties` for PATCH
 * /os-hosts/properties/{name} while its policy registers `update_resource_properties`; a policy
 * file may use either name (the registered one wins when both are given).
 */
export const ALIASES: Readonly<Record<string, string>> = {
  'blazar:oshosts:patch_resource_properties': 'blazar:oshosts:update_resource_properties',
  // Chameleon's older releases checked `list_allocations` for GET /v1/networks/allocations
  'blazar:networks:list_allocations': 'blazar:networks:get_allocations',
};
