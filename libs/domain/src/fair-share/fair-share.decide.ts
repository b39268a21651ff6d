import type { Command, Decider, DomainEvent } from '../shared/decider.js';
import { invalid, notFound } from '../shared/errors.js';

export const FAIR_SHARE_CATEGORY = 'fairshare';
/** One stream per project: the shares an admin gave it. */
export const fairShareStream = (projectId: string): string => `${FAIR_SHARE_CATEGORY}-${projectId}`;

/** What a project holds when no admin set its shares (Slurm's default `Fairshare=1`): every such project counts alike. */
export const DEFAULT_SHARES = 1;
export const MIN_SHARES = 0.001;
export const MAX_SHARES = 1_000_000;

export type FairShareShareSet = DomainEvent<
  'FairShare.ShareSet',
  { readonly projectId: string; readonly shares: number; readonly setAt: string }
>;
/** The project is back to the default shares. */
export type FairShareShareReset = DomainEvent<'FairShare.ShareReset', { readonly projectId: string; readonly resetAt: string }>;

export type FairShareEvent = FairShareShareSet | FairShareShareReset;
export const FAIR_SHARE_EVENT_TYPES: readonly FairShareEvent['type'][] = ['FairShare.ShareSet', 'FairShare.ShareReset'];

export type FairShareCommand =
  | Command<'SetShares', { readonly projectId: string; readonly shares: number; readonly now: string }>
  | Command<'ResetShares', { readonly projectId: string; readonly now: string }>;

export type FairShareState = { readonly status: 'default' } | { readonly status: 'set'; readonly shares: number };

/** Shares are relative weights; the bounds keep a project's normalised share within what a double tells apart. */
const checkShares = (shares: number): void => {
  if (!Number.isFinite(shares) || shares < MIN_SHARES || shares > MAX_SHARES)
    throw invalid('INVALID_SHARES', `shares must be a number from ${MIN_SHARES} to ${MAX_SHARES}`);
};

const decide = (command: FairShareCommand, state: FairShareState): readonly FairShareEvent[] => {
  switch (command.type) {
    case 'SetShares': {
      const { projectId, shares, now } = command.data;
      checkShares(shares);
      return [{ type: 'FairShare.ShareSet', data: { projectId, shares, setAt: now } }];
    }
    case 'ResetShares': {
      const { projectId, now } = command.data;
      if (state.status === 'default')
        throw notFound('FAIR_SHARE_NOT_SET', `Project ${projectId} has no shares set: it already holds the default`);
      return [{ type: 'FairShare.ShareReset', data: { projectId, resetAt: now } }];
    }
    default: {
      const _never: never = command;
      return _never;
    }
  }
};

/** A project's shares: set by an admin, or the default until then and after a reset. */
export const fairShareDecider: Decider<FairShareState, FairShareCommand, FairShareEvent> = {
  initialState: () => ({ status: 'default' }),
  decide,
  evolve: (_state, event) => (event.type === 'FairShare.ShareSet' ? { status: 'set', shares: event.data.shares } : { status: 'default' }),
};
