import { type DomainError, type RegisteredHost, conflict } from '#domain/index.js';
import { type ZoneRule, amountFor, hostsOf, zoneName } from '#plugins/zone-rule.js';
import type { ApplicationSettings } from '../application-context.js';

/** The first instant of a lease's window where its zone would keep fewer free hosts than the rule says. */
export interface HeadroomShortfall {
  readonly zone: string;
  readonly freeHosts: number;
  readonly keep: number;
  /** ISO 8601 UTC. */
  readonly at: string;
}

const counts = (host: RegisteredHost): boolean => host.reservable && host.health.status === 'up';
const holds = (host: RegisteredHost, at: number): boolean => host.bookings.some((b) => b.start <= at && b.end > at);
const freeAt = (hosts: readonly RegisteredHost[], zone: string, at: number): number =>
  hosts.filter((host) => host.info.availabilityZone === zone && counts(host) && !holds(host, at)).length;

/** The calendars before the write and as the write would leave them (its own bookings in). */
export interface HeadroomCalendars {
  readonly before: readonly RegisteredHost[];
  readonly after: readonly RegisteredHost[];
}

/** The free count only drops where a booking begins, so the window's start and those starts are the instants to look at. */
const instantsOf = (hosts: readonly RegisteredHost[], fromMs: number, toMs: number): number[] => {
  const starts = hosts.flatMap((host) => host.bookings.map((b) => b.start).filter((start) => start > fromMs && start < toMs));
  return [fromMs, ...new Set(starts)].sort((a, b) => a - b);
};

/** The first instant short of `keep` that the write made worse: a lease that shrinks or leaves a short zone alone is not refused for it. */
const zoneShortfall = (
  zone: string,
  calendars: HeadroomCalendars,
  keep: number,
  fromMs: number,
  toMs: number,
): HeadroomShortfall | null => {
  const inZone = calendars.after.filter((h) => h.info.availabilityZone === zone);
  for (const at of instantsOf(inZone, fromMs, toMs)) {
    const freeHosts = freeAt(inZone, zone, at);
    if (freeHosts < keep && freeHosts < freeAt(calendars.before, zone, at))
      return { zone, freeHosts, keep, at: new Date(at).toISOString() };
  }
  return null;
};

/**
 * Per zone where the lease holds a host (whole or slots) after the write: the first instant of
 * [fromMs, toMs) at which fewer than the rule's free hosts would remain, and fewer than before the
 * write. Instants before `nowMs` are history and are not judged.
 */
export const headroomShortfalls = (
  rule: ZoneRule,
  calendars: HeadroomCalendars,
  leaseId: string,
  window: { readonly fromMs: number; readonly toMs: number; readonly nowMs: number },
): HeadroomShortfall[] => {
  const fromMs = Math.max(window.fromMs, window.nowMs);
  if (fromMs >= window.toMs) return [];
  const held = calendars.after.filter((h) => h.bookings.some((b) => b.leaseId === leaseId && b.start < window.toMs && b.end > fromMs));
  return [...new Set(held.map((h) => h.info.availabilityZone))].sort().flatMap((zone) => {
    const amount = amountFor(rule, zone);
    const zoneHosts = calendars.after.filter((h) => h.info.availabilityZone === zone).length;
    const shortfall = amount === null ? null : zoneShortfall(zone, calendars, hostsOf(amount, zoneHosts), fromMs, window.toMs);
    return shortfall === null ? [] : [shortfall];
  });
};

/** The headroom rule that applies to a caller's leases: none for admins (theirs pass, see decideHeadroom) or when none is configured. */
export const headroomRuleFor = (settings: ApplicationSettings, caller: { readonly isAdmin: boolean }): ZoneRule | null => {
  const rule = settings.guardrails?.freepoolHeadroom;
  if (rule === undefined || caller.isAdmin || (rule.everyZone === null && rule.zones.size === 0)) return null;
  return rule;
};

const freeHosts = (n: number): string => (n === 1 ? '1 free host' : `${n} free hosts`);

/** 409 naming the rule, the zone, the instant and the counts; nothing is written. */
export const headroomRefused = ({ zone, freeHosts: free, keep, at }: HeadroomShortfall): DomainError =>
  conflict(
    'FREEPOOL_HEADROOM',
    `Lease refused by the freepool headroom rule (LEASEHOLD_FREEPOOL_HEADROOM): it would leave ${freeHosts(free)} in ${zoneName(zone)} (at ${at}), the rule keeps ${keep}`,
  );
