import { DateTime } from 'luxon';

/** The `max_lease_duration` filter's settings (upstream's [enforcement] options, plus Chameleon's extension window). */
export interface MaxLeaseDurationPolicy {
  readonly maxSeconds: number;
  readonly exemptProjectIds: ReadonlySet<string>;
  /** Chameleon's window: a lease longer than the maximum may be prolonged only in its last N hours (0: off). */
  readonly extensionWindowHours: number;
}

export interface LeaseDates {
  /** ISO-8601 UTC. */
  readonly startDate: string;
  readonly endDate: string;
}

const seconds = (from: string, to: string): number => Math.round((Date.parse(to) - Date.parse(from)) / 1000);

const tooLong = (duration: number, max: number): string =>
  `Lease duration of ${duration} seconds must be less than or equal to the maximum of ${max} seconds.`;

const sameDates = (a: LeaseDates, b: LeaseDates): boolean =>
  Date.parse(a.startDate) === Date.parse(b.startDate) && Date.parse(a.endDate) === Date.parse(b.endDate);

const blazarDate = (iso: string): string => DateTime.fromISO(iso, { zone: 'utc' }).toFormat('yyyy-MM-dd HH:mm');

/** Why a new lease is refused, or null: as upstream, its duration is at most the maximum. */
export const refuseCreate = (policy: MaxLeaseDurationPolicy, projectId: string, requested: LeaseDates): string | null => {
  if (policy.exemptProjectIds.has(projectId)) return null;
  const duration = seconds(requested.startDate, requested.endDate);
  return duration > policy.maxSeconds ? tooLong(duration, policy.maxSeconds) : null;
};

/**
 * Why an update is refused, or null. A lease that stays within the maximum may always be changed
 * (as upstream), and so may one whose dates stay as they are. Without the window, a longer one is refused (as upstream). With it, a longer
 * one is
 * allowed only as a prolongation asked within the last N hours before the current end, adding at most
 * the maximum beyond that end: a lease is renewed a period at a time, near its end.
 */
export const refuseUpdate = (
  policy: MaxLeaseDurationPolicy,
  projectId: string,
  current: LeaseDates,
  requested: LeaseDates,
  now: string,
): string | null => {
  if (policy.exemptProjectIds.has(projectId)) return null;
  // a rename, say, of a lease booked before the maximum was lowered
  if (sameDates(current, requested)) return null;
  const duration = seconds(requested.startDate, requested.endDate);
  if (duration <= policy.maxSeconds) return null;
  if (policy.extensionWindowHours === 0) return tooLong(duration, policy.maxSeconds);
  const extension = seconds(current.endDate, requested.endDate);
  if (extension <= 0) return tooLong(duration, policy.maxSeconds);
  const windowOpens = DateTime.fromISO(current.endDate, { zone: 'utc' }).minus({ hours: policy.extensionWindowHours });
  if (Date.parse(now) < windowOpens.toMillis()) {
    return `Lease duration of ${duration} seconds exceeds the maximum of ${policy.maxSeconds} seconds; a lease may be extended beyond it only within the last ${policy.extensionWindowHours} hours before its end, from ${blazarDate(windowOpens.toISO() as string)}.`;
  }
  if (extension > policy.maxSeconds) {
    return `Lease extension of ${extension} seconds must be less than or equal to the maximum of ${policy.maxSeconds} seconds.`;
  }
  return null;
};
