import { MINUTE_MS, invalid } from '#domain/index.js';
import { RESOURCE_KINDS } from '#plugins/resource-kinds.js';
import type { ApplicationContext } from '../application-context.js';
import { calendarIndexOf } from '../availability/calendar-index.js';
import { type Caller, authorize } from '../caller.js';
import { ACTIONS } from '../policy/policy-defaults.js';
import { type CapacityFrame, type ZoneCapacity, stepCount, zoneCapacity } from './capacity-report.js';
import { type LeaseConcentration, failureDomainConcentration } from './failure-domains.js';
import { type KindPool, kindCapacity } from './kind-capacity.js';

/** Most steps one report may have (a month in hours is 744). */
export const MAX_CAPACITY_STEPS = 2000;

/** What a report covers: ISO-8601 UTC dates, whole minutes, and the capability naming failure domains (null: none). */
export interface CapacityRequest {
  readonly start: string;
  readonly end: string;
  readonly stepMinutes: number;
  readonly requestMinutes: number;
  readonly failureDomain: string | null;
}

export interface CapacityReport {
  readonly request: CapacityRequest;
  readonly zones: readonly ZoneCapacity[];
  /** Every registered resource kind's pools (network segments by type and physical network). */
  readonly kinds: readonly KindPool[];
  /** Null when no failure domain was asked for. */
  readonly leases: readonly LeaseConcentration[] | null;
}

/**
 * The operators' capacity table: answered from the write side's calendars (caught up to the log's head,
 * the ones admission decides on), so its "largest request" is what a lease would be given.
 */
export class CapacityQueries {
  constructor(private readonly app: ApplicationContext) {}

  async report(caller: Caller, request: CapacityRequest): Promise<CapacityReport> {
    authorize(caller, ACTIONS.capacityGet);
    const frame = this.frameOf(request);
    await this.app.index.catchUp();
    const calendars = calendarIndexOf(this.app.index);
    const { hosts } = calendars;
    const zones = [...new Set(hosts.members.map((host) => host.info.availabilityZone))].sort();
    return {
      request,
      zones: zones.map((zone) => zoneCapacity(hosts, zone, frame)),
      kinds: RESOURCE_KINDS.flatMap((kind) => kindCapacity(calendars.kind(kind.kind), kind, frame)),
      leases:
        request.failureDomain === null ? null : failureDomainConcentration(hosts.members, request.failureDomain, frame.start, frame.end),
    };
  }

  private frameOf(request: CapacityRequest): CapacityFrame {
    const start = Date.parse(request.start);
    const end = Date.parse(request.end);
    const stepMs = request.stepMinutes * MINUTE_MS;
    if (end <= start) throw invalid('INVALID_RANGE', 'end must be later than start');
    if (stepCount({ start, end, stepMs }) > MAX_CAPACITY_STEPS) {
      throw invalid(
        'TOO_MANY_STEPS',
        `Too many steps: at most ${MAX_CAPACITY_STEPS} steps of ${request.stepMinutes} minute(s) fit between start and end`,
      );
    }
    const { cleaningTimeMinutes, allocationRatios } = this.app.settings;
    return {
      start,
      end,
      stepMs,
      requestMs: request.requestMinutes * MINUTE_MS,
      cleaningMs: cleaningTimeMinutes * MINUTE_MS,
      ratios: allocationRatios,
    };
  }
}
