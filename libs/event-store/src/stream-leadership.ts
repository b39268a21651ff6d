import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { WrongExpectedRevisionError, type EventData, type EventStore } from './event-store.port.js';

/** A held lease (the same shape as ./leadership.ts's Leadership, which uses this). */
export interface StreamLeadership {
  /** Called at most once, if the lease is lost while held: the holder must stop acting at once. */
  onLost(listener: (reason: string) => void): void;
  release(): Promise<void>;
}

export interface StreamLeadershipOptions {
  /** A log of its own: the lease's renewals are not events anyone else should follow. */
  readonly store: EventStore;
  readonly role: string;
  /** How long a claim or renewal holds; the holder renews every third of it. */
  readonly leaseMs?: number;
  /** How often a standby looks again. */
  readonly retryMs?: number;
  readonly onStandby?: () => void;
  readonly signal?: AbortSignal;
  readonly clock?: () => Date;
}

const DEFAULT_LEASE_MS = 30_000;
const DEFAULT_RETRY_MS = 1_000;
const CLAIMED = 'Leadership.Claimed';
const RENEWED = 'Leadership.Renewed';
const RELEASED = 'Leadership.Released';

interface Lease {
  readonly holder: string;
  readonly until: string;
}

const leaderStream = (role: string): string => `leadership-${role}`;

const leaseEvent = (type: string, holder: string, until: number): EventData => ({
  id: randomUUID(),
  type,
  data: { holder, until: new Date(until).toISOString() } satisfies Lease,
  metadata: { correlationId: holder, causationId: holder, actor: null },
});

/** The revision of our claim, or null while another holds an unexpired lease (or won the race to claim). */
const claim = async (options: StreamLeadershipOptions, holder: string, leaseMs: number, now: () => number): Promise<number | null> => {
  const streamId = leaderStream(options.role);
  const revision = await options.store.streamRevision(streamId);
  const [last] = revision === -1 ? [] : await options.store.readStream(streamId, { fromRevision: revision });
  if (last !== undefined && last.type !== RELEASED && Date.parse((last.data as Lease).until) > now()) return null;
  try {
    await options.store.appendToStream(streamId, revision === -1 ? 'no_stream' : revision, [leaseEvent(CLAIMED, holder, now() + leaseMs)]);
    return revision + 1;
  } catch (error) {
    if (error instanceof WrongExpectedRevisionError) return null;
    throw error;
  }
};

/**
 * Renews every third of the lease with the revision it last wrote. A renewal refused on that revision
 * means another process claimed the lease; a lease within a third of running out without a renewal
 * (the store unreachable, or a renewal hanging) is given up before anyone else's clock can see it
 * expire, which leaves a third of the lease for clock differences between machines. The give-up has
 * a timer of its own, set for that moment at each renewal: checked on the renewal ticks alone, it
 * fell a tick late whenever the tick came a moment early, at the very end of the lease.
 */
const hold = (
  options: StreamLeadershipOptions,
  holder: string,
  claimed: number,
  leaseMs: number,
  now: () => number,
  claimedUntil: number,
): StreamLeadership => {
  const streamId = leaderStream(options.role);
  let revision = claimed;
  let until = claimedUntil;
  let ended = false;
  let lostListener: ((reason: string) => void) | null = null;
  let renewing: Promise<void> | null = null;
  let giveUp: NodeJS.Timeout | null = null;
  const stopTimers = (): void => {
    clearInterval(timer);
    if (giveUp !== null) clearTimeout(giveUp);
  };
  const lose = (reason: string): void => {
    if (ended) return;
    ended = true;
    stopTimers();
    lostListener?.(reason);
  };
  /** Gives the lease up a third of it before `expires`, unless a renewal moves it on first. */
  const expiresAt = (expires: number): void => {
    if (giveUp !== null) clearTimeout(giveUp);
    giveUp = setTimeout(() => lose('the leadership lease could not be renewed in time'), Math.max(0, expires - leaseMs / 3 - now()));
    giveUp.unref();
  };
  const renew = async (): Promise<void> => {
    const next = now() + leaseMs;
    try {
      await options.store.appendToStream(streamId, revision, [leaseEvent(RENEWED, holder, next)]);
      revision += 1;
      until = next;
      if (!ended) expiresAt(until);
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError) lose('another process took the leadership');
    }
  };
  const tick = (): void => {
    if (ended) return;
    if (now() >= until - leaseMs / 3) return lose('the leadership lease could not be renewed in time');
    if (renewing !== null) return;
    renewing = renew().finally(() => {
      renewing = null;
    });
  };
  const timer = setInterval(tick, leaseMs / 3);
  timer.unref();
  expiresAt(until);
  return {
    onLost: (listener) => {
      lostListener = listener;
    },
    release: async () => {
      if (ended) return;
      ended = true;
      stopTimers();
      await renewing;
      await options.store.appendToStream(streamId, revision, [leaseEvent(RELEASED, holder, now())]).catch(() => undefined);
    },
  };
};

/**
 * Leadership as a lease in a stream, for a store without locks (KurrentDB): a claim or renewal is an
 * append on the revision last seen, so of two processes claiming at once exactly one succeeds. A
 * holder killed without releasing is replaced once its lease runs out (30 s by default), not at once
 * as with PostgreSQL's lock.
 */
export const streamLeadership = async (options: StreamLeadershipOptions): Promise<StreamLeadership> => {
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const clock = options.clock ?? (() => new Date());
  const now = (): number => clock().getTime();
  const holder = randomUUID();
  let announced = false;
  for (;;) {
    options.signal?.throwIfAborted();
    const claimedUntil = now() + leaseMs;
    const revision = await claim(options, holder, leaseMs, now).catch(() => null);
    if (revision !== null) return hold(options, holder, revision, leaseMs, now, claimedUntil);
    if (!announced) options.onStandby?.();
    announced = true;
    await sleep(options.retryMs ?? DEFAULT_RETRY_MS, undefined, options.signal ? { signal: options.signal } : {});
  }
};
