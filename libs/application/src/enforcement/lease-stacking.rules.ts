import { DateTime } from 'luxon';
import type { Reservation } from '#domain/index.js';
import type { EnforcementResources } from '#plugins/ports/external-enforcement.port.js';
import { reservationType } from '#plugins/reservation-types.js';

/**
 * Which reservations are on "the same properties": by default those of one reservation type asking
 * the same resource_properties expression; or those holding hosts with one value of a named host
 * property (Chameleon's node_type), whatever they asked.
 */
export type StackingScope = { readonly kind: 'resource_properties' } | { readonly kind: 'property'; readonly name: string };

/** The `lease_stacking` filter's settings: at most `max` leases of a project held at once per scope. */
export interface LeaseStackingPolicy {
  readonly max: number;
  readonly scope: StackingScope;
  readonly exemptProjectIds: ReadonlySet<string>;
}

/** A lease as stacking counts it: its window (epoch ms) and the scopes its reservations fall in, each named in words. */
export interface StackedLease {
  readonly start: number;
  readonly end: number;
  readonly scopes: ReadonlySet<string>;
}

/** One expression however it is spaced; a text that is not JSON as it is. */
const canonical = (expression: string): string => {
  try {
    return JSON.stringify(JSON.parse(expression));
  } catch {
    return expression.trim();
  }
};

const askedScope = (resources: EnforcementResources, r: Reservation): string => {
  const asked = reservationType(r.resourceType).enforcement.body(resources, r).resource_properties;
  const expression = typeof asked === 'string' ? canonical(asked) : '';
  return expression === ''
    ? `${r.resourceType} reservations without resource_properties`
    : `${r.resourceType} reservations with resource_properties ${expression}`;
};

/** One scope per value of the property among the hosts the reservation holds; none for hosts without it, or no hosts. */
const heldScopes = (resources: EnforcementResources, name: string, r: Reservation): string[] =>
  reservationType(r.resourceType)
    .resources(r)
    .filter((held) => held.kind === 'host')
    .flatMap((held) => {
      const value = resources.host(held.id)?.capabilities[name];
      return value === undefined ? [] : [`hosts with ${name}=${value}`];
    });

/** The scopes a lease's reservations fall in. */
export const stackingScopes = (
  scope: StackingScope,
  resources: EnforcementResources,
  reservations: readonly Reservation[],
): Set<string> => {
  switch (scope.kind) {
    case 'resource_properties':
      return new Set(reservations.map((r) => askedScope(resources, r)));
    case 'property':
      return new Set(reservations.flatMap((r) => heldScopes(resources, scope.name, r)));
    default: {
      const _never: never = scope;
      return _never;
    }
  }
};

interface Peak {
  readonly count: number;
  readonly at: number;
}

/**
 * The most of `spans` held at once within [from, to), and its first instant: a sweep in which an end
 * comes before a start at one instant (touching windows do not overlap).
 */
const peakWithin = (from: number, to: number, spans: readonly StackedLease[]): Peak => {
  const edges = spans
    .map((s) => ({ start: Math.max(s.start, from), end: Math.min(s.end, to) }))
    .filter((s) => s.start < s.end)
    .flatMap((s) => [
      { at: s.start, step: 1 },
      { at: s.end, step: -1 },
    ])
    .sort((a, b) => a.at - b.at || a.step - b.step);
  let held = 0;
  let peak: Peak = { count: 0, at: from };
  for (const { at, step } of edges) {
    held += step;
    if (held > peak.count) peak = { count: held, at };
  }
  return peak;
};

/** How many leases a lease makes the project hold at once in `scope` from `now` (itself included; 0 outside the scope or once ended). */
const stackOf = (lease: StackedLease | null, scope: string, now: number, others: readonly StackedLease[]): Peak => {
  const from = Math.max(now, lease?.start ?? now);
  if (lease === null || !lease.scopes.has(scope) || lease.end <= from) return { count: 0, at: from };
  const peak = peakWithin(
    from,
    lease.end,
    others.filter((o) => o.scopes.has(scope)),
  );
  return { count: peak.count + 1, at: peak.at };
};

export interface StackingExcess {
  readonly scope: string;
  readonly count: number;
  readonly at: number;
}

/**
 * The first scope (in name order) in which the lease as `after` would make the project hold more
 * than `max` leases at once from `now` on, and more than it did as `before` (null: a new lease). The
 * past is not counted (what ended ended); an update that adds to no stack passes, so a limit lowered
 * below what a project holds does not freeze its leases.
 */
export const stackingExcess = (
  max: number,
  now: number,
  before: StackedLease | null,
  after: StackedLease,
  others: readonly StackedLease[],
): StackingExcess | null => {
  for (const scope of [...after.scopes].sort()) {
    const { count, at } = stackOf(after, scope, now, others);
    if (count > max && count > stackOf(before, scope, now, others).count) return { scope, count, at };
  }
  return null;
};

const blazarDate = (ms: number): string => DateTime.fromMillis(ms, { zone: 'utc' }).toFormat('yyyy-MM-dd HH:mm');

/** The 403's message: the scope, the limit, and what this lease would have made it from when. */
export const stackingRefusal = (policy: LeaseStackingPolicy, projectId: string, { scope, count, at }: StackingExcess): string =>
  `Lease stacking limit exceeded for project ${projectId}: overlapping leases on ${scope} limit ${policy.max}, this lease would make it ${count} from ${blazarDate(at)}`;
