import { DateTime } from 'luxon';
import type { Reservation } from '#domain/index.js';
import type { EnforcementResources } from '#plugins/ports/external-enforcement.port.js';
import { reservationType } from '#plugins/reservation-types.js';

/** Who asks (upstream's context: the caller on create and update, the lease's owner on end). */
export interface EnforcementContext {
  readonly userId: string;
  readonly projectId: string;
  readonly authUrl: string | null;
  readonly regionName: string | null;
}

/** A lease as the filters see it: its dates (ISO-8601 UTC) and reservations with their allocations. */
export interface EnforcedLease {
  readonly startDate: string;
  readonly endDate: string;
  readonly reservations: readonly Reservation[];
}

const blazarDate = (iso: string): string => DateTime.fromISO(iso, { zone: 'utc' }).toFormat('yyyy-MM-dd HH:mm');

/** A reservation's type, then what its type's module shows of it: its user-controllable fields and its allocations. */
const reservationBody = (resources: EnforcementResources, r: Reservation): Record<string, unknown> => ({
  resource_type: r.resourceType,
  ...reservationType(r.resourceType).enforcement.body(resources, r),
});

/** Upstream's lease body: dates as `YYYY-MM-DD HH:MM`, each reservation with its allocations. */
export const leaseBody = (resources: EnforcementResources, lease: EnforcedLease): Record<string, unknown> => ({
  start_date: blazarDate(lease.startDate),
  end_date: blazarDate(lease.endDate),
  reservations: lease.reservations.map((r) => reservationBody(resources, r)),
});

export const contextBody = (context: EnforcementContext): Record<string, unknown> => ({
  user_id: context.userId,
  project_id: context.projectId,
  auth_url: context.authUrl,
  region_name: context.regionName,
});
