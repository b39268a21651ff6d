import { AUDIT_HANDLERS } from '../audit/audit.handlers.js';
import { AVAILABILITY_HANDLERS } from '../availability/availability.handlers.js';
import { CAPACITY_HANDLERS } from '../capacity/capacity.handlers.js';
import { FEED_HANDLERS } from '../feed/feed.handlers.js';
import { FLAVOR_HANDLERS } from '../flavors/flavor.handlers.js';
import { FLOATING_IP_HANDLERS } from '../floatingips/floating-ip.handlers.js';
import { BOOKING_HANDLERS } from '../graphql/bookings.handlers.js';
import { HISTORY_HANDLERS } from '../history/history.handlers.js';
import { HOST_HANDLERS } from '../hosts/host.handlers.js';
import { MAINTENANCE_HANDLERS } from '../maintenance/maintenance.handlers.js';
import { LEASE_HANDLERS } from '../leases/lease.handlers.js';
import { LEASE_REQUEST_HANDLERS } from '../lease-requests/lease-request.handlers.js';
import { NETWORK_HANDLERS } from '../networks/network.handlers.js';
import { QUOTA_HANDLERS } from '../quotas/quota.handlers.js';
import { FAIR_SHARE_HANDLERS } from '../fair-share/fair-share.handlers.js';
import { USAGE_HANDLERS } from '../usage/usage.handlers.js';
import { WEBHOOK_HANDLERS } from '../webhooks/webhook.handlers.js';

/** Every command and query handler of the API: the buses find them among the providers (CqrsModule). */
export const BUS_HANDLERS = [
  ...LEASE_HANDLERS,
  ...LEASE_REQUEST_HANDLERS,
  ...HOST_HANDLERS,
  ...MAINTENANCE_HANDLERS,
  ...FLOATING_IP_HANDLERS,
  ...NETWORK_HANDLERS,
  ...FLAVOR_HANDLERS,
  ...QUOTA_HANDLERS,
  ...FAIR_SHARE_HANDLERS,
  ...USAGE_HANDLERS,
  ...WEBHOOK_HANDLERS,
  ...AVAILABILITY_HANDLERS,
  ...CAPACITY_HANDLERS,
  ...HISTORY_HANDLERS,
  ...AUDIT_HANDLERS,
  ...FEED_HANDLERS,
  ...BOOKING_HANDLERS,
];
