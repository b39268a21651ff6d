import { type LeaseEvent, toMs } from '#domain/index.js';
import type { ZoneRule } from '#plugins/zone-rule.js';
import type { Caller } from '../caller.js';
import { type HeadroomShortfall, headroomRefused, headroomShortfalls } from './freepool-headroom.js';
import type { BookingPlan } from '../write-model/booking-plan.js';

const overridden = (leaseId: string, shortfall: HeadroomShortfall, now: string): LeaseEvent => {
  const { zone, freeHosts, keep, at: instant } = shortfall;
  return { type: 'Lease.GuardrailOverridden', data: { leaseId, rule: 'freepool_headroom', zone, freeHosts, keep, instant, at: now } };
};

/**
 * The headroom rule, judged in the admission's own decision (on the calendars' working copies, with
 * this lease's bookings in them) so what passes is what gets appended. A caller the policy's `admin`
 * rule holds for passes, and the lease records each zone it overrode; anyone else gets the 409.
 */
export const decideHeadroom = (
  rule: ZoneRule,
  plan: BookingPlan,
  lease: { readonly leaseId: string; readonly startDate: string; readonly endDate: string },
  caller: Caller,
  now: string,
): LeaseEvent[] => {
  if (rule.everyZone === null && rule.zones.size === 0) return [];
  const window = { fromMs: toMs(lease.startDate), toMs: toMs(lease.endDate), nowMs: toMs(now) };
  const shortfalls = headroomShortfalls(rule, { before: plan.registeredHosts(), after: plan.workingHosts() }, lease.leaseId, window);
  const [first] = shortfalls;
  if (first === undefined) return [];
  if (!caller.isAdmin) throw headroomRefused(first);
  return shortfalls.map((shortfall) => overridden(lease.leaseId, shortfall, now));
};
