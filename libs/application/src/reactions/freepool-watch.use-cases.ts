import {
  type FreepoolObservation,
  type FreepoolWatchEvent,
  type RegisteredHost,
  freepoolWatchDecider,
  freepoolWatchStream,
} from '#domain/index.js';
import type { ApplicationContext } from '../application-context.js';
import { type AppCommand, appendTo } from '../command.js';
import { reactionMetadata, requireService } from './reaction.js';
import { deterministicId, idSequence } from './reaction-ids.js';

export type ObserveFreepoolReaction = AppCommand<'ObserveFreepool', FreepoolObservation>;

/** What the watch recorded for a zone: a crossing of the threshold, or nothing new. */
export type FreepoolOutcome = FreepoolWatchEvent['type'] | 'unchanged';

/** One zone's freepool over [fromMs, toMs): hosts taking bookings and those no booking holds then. */
export interface ZoneSupply {
  readonly zone: string;
  readonly reservableHosts: number;
  readonly freeHosts: number;
}

const overlaps = (host: RegisteredHost, fromMs: number, toMs: number): boolean =>
  host.bookings.some((booking) => booking.start < toMs && booking.end > fromMs);

/**
 * Per availability zone, from the write side's calendars: a host counts if it is reservable and up,
 * and is free if no booking (whole host or instance slots) touches the window.
 */
export const freepoolSupply = (hosts: readonly RegisteredHost[], fromMs: number, toMs: number): ZoneSupply[] => {
  const zones = new Map<string, { reservableHosts: number; freeHosts: number }>();
  for (const host of hosts) {
    const zone = zones.get(host.info.availabilityZone) ?? { reservableHosts: 0, freeHosts: 0 };
    zones.set(host.info.availabilityZone, zone);
    if (!host.reservable || host.health.status !== 'up') continue;
    zone.reservableHosts += 1;
    if (!overlaps(host, fromMs, toMs)) zone.freeHosts += 1;
  }
  return [...zones].map(([zone, counts]) => ({ zone, ...counts }));
};

/** The freepool watch's one reaction: records a zone crossing its threshold, either way. */
export class FreepoolWatchUseCases {
  constructor(private readonly context: Pick<ApplicationContext, 'handler'>) {}

  async observe(command: ObserveFreepoolReaction): Promise<FreepoolOutcome> {
    requireService(command.metadata.actor, command.type);
    const { handler } = this.context;
    const streamId = freepoolWatchStream(command.data.zone);
    const { result, replayed } = await handler.handle(async () => {
      const watch = await handler.load(freepoolWatchDecider, streamId);
      const events = freepoolWatchDecider.decide({ type: 'ObserveFreepool', data: command.data }, watch.state);
      const [event] = events;
      if (event === undefined) return { appends: [], result: 'unchanged' as FreepoolOutcome };
      // named by the revision it follows: two watchers seeing the same crossing write it once
      const id = deterministicId(`freepool-watch:${command.data.zone}:${watch.revision}`);
      const metadata = reactionMetadata(command.metadata, 'freepool-watch', { correlationId: id, causationId: id });
      return { appends: [appendTo(streamId, watch.revision, events, metadata, idSequence([id]))], result: event.type as FreepoolOutcome };
    });
    // another watcher wrote this very crossing first: the store took ours as its replay
    return replayed ? 'unchanged' : result;
  }
}
