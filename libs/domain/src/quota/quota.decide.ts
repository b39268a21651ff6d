import type { Command, Decider, DomainEvent } from '../shared/decider.js';
import { DomainError, invalid } from '../shared/errors.js';
import type { QuotaExcess } from './quota.rules.js';
import { MAX_QUOTA_LIMIT, type QuotaCatalogue, type QuotaLimits, type QuotaName } from './quota.types.js';

export const QUOTA_CATEGORY = 'quota';
/** One stream per project: its settings, and the fence every lease admission of the project appends to. */
export const quotaStream = (projectId: string): string => `${QUOTA_CATEGORY}-${projectId}`;

/** The project's own limits after the change, every quota named (null: the configured default). */
export type QuotaSet = DomainEvent<'Quota.Set', { readonly projectId: string; readonly limits: QuotaLimits; readonly setAt: string }>;
/**
 * A lease of the project was admitted (created or changed) within its limits. Written in the same
 * append as the lease's events under the stream's revision the check read, so two admissions of one
 * project decided on the same state cannot both be recorded.
 */
export type QuotaLeaseAdmitted = DomainEvent<
  'Quota.LeaseAdmitted',
  { readonly projectId: string; readonly leaseId: string; readonly at: string }
>;

export type QuotaEvent = QuotaSet | QuotaLeaseAdmitted;
export const QUOTA_EVENT_TYPES: readonly QuotaEvent['type'][] = ['Quota.Set', 'Quota.LeaseAdmitted'];

/** Per quota: a new limit, null to clear it back to the default, absent to leave it. */
export type QuotaChanges = Readonly<Partial<Record<QuotaName, number | null>>>;

export type QuotaCommand =
  | Command<'SetQuota', { readonly projectId: string; readonly changes: QuotaChanges; readonly now: string }>
  | Command<'AdmitLease', { readonly projectId: string; readonly leaseId: string; readonly now: string }>;

export interface QuotaState {
  /** The project's own limits (null: the default applies). */
  readonly limits: QuotaLimits;
}

const checkLimit = (name: QuotaName, value: number | null): void => {
  if (value === null) return;
  if (!Number.isSafeInteger(value) || value < 0 || value > MAX_QUOTA_LIMIT) {
    throw invalid('MALFORMED_PARAMETER', `Malformed parameter ${name} (must be an integer from 0 to ${MAX_QUOTA_LIMIT}, or null)`);
  }
};

const decide = (quotas: QuotaCatalogue, command: QuotaCommand, state: QuotaState): readonly QuotaEvent[] => {
  switch (command.type) {
    case 'SetQuota': {
      const { projectId, changes, now } = command.data;
      for (const [name, value] of Object.entries(changes) as [QuotaName, number | null][]) checkLimit(name, value);
      const limits = Object.fromEntries(
        quotas.names.map((name) => [name, changes[name] === undefined ? state.limits[name] : changes[name]]),
      ) as QuotaLimits;
      return [{ type: 'Quota.Set', data: { projectId, limits, setAt: now } }];
    }
    case 'AdmitLease': {
      const { projectId, leaseId, now } = command.data;
      return [{ type: 'Quota.LeaseAdmitted', data: { projectId, leaseId, at: now } }];
    }
    default: {
      const _never: never = command;
      return _never;
    }
  }
};

/**
 * A project's quota settings, over the quotas of `quotas`. A Quota.Set recorded before a quota existed leaves it at the
 * default, and one naming a quota no longer declared keeps it out of the limits.
 */
export const quotaDecider = (quotas: QuotaCatalogue): Decider<QuotaState, QuotaCommand, QuotaEvent> => ({
  initialState: () => ({ limits: quotas.noLimits }),
  decide: (command, state) => decide(quotas, command, state),
  evolve: (state, event) =>
    event.type === 'Quota.Set'
      ? { limits: Object.fromEntries(quotas.names.map((name) => [name, event.data.limits[name] ?? null])) as QuotaLimits }
      : state,
});

/** A project's effective limits: its own where set, else the default. */
export const effectiveLimits = (quotas: QuotaCatalogue, own: QuotaLimits, defaults: QuotaLimits): QuotaLimits =>
  Object.fromEntries(quotas.names.map((name) => [name, own[name] ?? defaults[name]])) as QuotaLimits;

/** The 403 of a quota: which one, its limit, and what the request would have made it. */
export const quotaExceeded = (quotas: QuotaCatalogue, projectId: string, { quota, limit, wouldBe, month }: QuotaExcess): DomainError => {
  const { words } = quotas.wording[quota];
  const which = month === null ? words : `${words} (${month})`;
  return new DomainError(
    'QUOTA_EXCEEDED',
    'forbidden',
    `Quota exceeded for project ${projectId}: ${which} limit ${limit}, this lease would make it ${wouldBe}`,
  );
};
