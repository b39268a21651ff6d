import { once } from 'node:events';
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { Logger } from '@nestjs/common';
import { describeError, unavailable } from '#domain/index.js';
import type { Caller } from '#application/caller.js';
import { type EventFeed, FEED_LIMIT_MAX, type FeedQuery } from '#application/feed/event-feed.queries.js';
import type { LiveEntries } from '#application/feed/live-entries.js';
import { followFeed } from '#application/feed/live-follow.js';
import type { LiveLog } from '#application/feed/live-log.js';
import type { HistoryEntry } from '#application/history/history-entry.js';
import { HeldCounts } from '../http/held-counts.js';

export interface FeedStreamSettings {
  readonly maxStreams: number;
  /** One project's share of `maxStreams`. */
  readonly maxStreamsPerTenant: number;
  readonly heartbeatMs: number;
}

/** Where a stream is written: Fastify's reply, handed over (`hijack`) once the stream starts, with the headers set so far. */
export interface StreamReply {
  readonly raw: ServerResponse;
  hijack(): unknown;
  getHeaders(): Record<string, number | string | string[] | undefined>;
}

/** One Server-Sent Event: the position as its id (what `Last-Event-ID` resumes from), the public type as its name. */
const frame = (entry: HistoryEntry): string => `id: ${entry.position}\nevent: ${entry.type}\ndata: ${JSON.stringify(entry)}\n\n`;

const HEARTBEAT = ': heartbeat\n\n';

/**
 * The feed as Server-Sent Events: the log from the caller's position (catch-up), then each event as
 * it is appended (live, from the process's LiveLog), until the client leaves or the process stops.
 * Streams are counted, so a process serves a bounded number of them, and each project a bounded share.
 */
export class FeedStreams {
  private readonly logger = new Logger('feed');
  private readonly open = new Map<AbortController, Promise<void>>();
  private readonly perTenant = new HeldCounts<string>();

  constructor(
    private readonly feed: EventFeed,
    private readonly log: LiveLog,
    private readonly settings: FeedStreamSettings,
  ) {}

  get count(): number {
    return this.open.size;
  }

  /**
   * Answers 503 beyond the bounds, and a storage error before the first event as any request does;
   * then streams until the end. Resolves once the stream is closed and everything it held released.
   */
  async serve(reply: StreamReply, caller: Caller, query: FeedQuery): Promise<void> {
    const tenant = caller.projectId;
    this.admit(tenant);
    const stop = new AbortController();
    const done = this.stream(reply, caller, { ...query, limit: FEED_LIMIT_MAX }, stop);
    this.open.set(stop, done);
    this.perTenant.add(tenant);
    try {
      await done;
    } finally {
      this.open.delete(stop);
      this.perTenant.remove(tenant);
    }
  }

  /** Ends every stream (the clients reconnect elsewhere with `Last-Event-ID`), so the server can close. */
  async closeAll(): Promise<void> {
    for (const stop of this.open.keys()) stop.abort();
    await Promise.allSettled(this.open.values());
  }

  private admit(tenant: string): void {
    const { maxStreams, maxStreamsPerTenant } = this.settings;
    if (this.open.size >= maxStreams)
      throw unavailable('FEED_STREAMS_EXHAUSTED', `This server streams events to ${maxStreams} clients at most; try again later`);
    if (this.perTenant.of(tenant) >= maxStreamsPerTenant) {
      throw unavailable(
        'FEED_TENANT_STREAMS_EXHAUSTED',
        `Project ${tenant} already streams events to ${maxStreamsPerTenant} clients, its share of this server's ${maxStreams}; close one or try again later`,
      );
    }
  }

  private async stream(reply: StreamReply, caller: Caller, query: FeedQuery, stop: AbortController): Promise<void> {
    // from the start: a client gone while the first page is read must not leave a stream behind
    const leave = (): void => stop.abort();
    const response = reply.raw;
    response.on('close', leave);
    try {
      const entries = await followFeed(this.log, this.feed, caller, query);
      try {
        if (!stop.signal.aborted) await this.streamFrom(reply, entries, stop.signal);
      } finally {
        await entries.return();
      }
    } finally {
      response.off('close', leave);
    }
  }

  /** From here the stream writes to the socket itself: Fastify hands the response over, with the headers set so far. */
  private async streamFrom(reply: StreamReply, entries: LiveEntries, signal: AbortSignal): Promise<void> {
    reply.hijack();
    const response = reply.raw;
    const headers: OutgoingHttpHeaders = {
      ...reply.getHeaders(),
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
    };
    response.writeHead(200, headers);
    response.flushHeaders();
    const heartbeat = setInterval(() => response.write(HEARTBEAT), this.settings.heartbeatMs);
    // a client that leaves while the stream waits for the log ends the wait at once
    const end = (): void => void entries.return();
    signal.addEventListener('abort', end, { once: true });
    try {
      for await (const batch of entries) {
        if (!response.write(batch.map(frame).join(''))) await once(response, 'drain', { signal });
      }
    } catch (error) {
      // the headers are out: a failure can only end the stream, and the client resumes from its last id
      if (!signal.aborted) this.logger.warn(`event stream ended: ${describeError(error)}`);
    } finally {
      signal.removeEventListener('abort', end);
      clearInterval(heartbeat);
      response.end();
    }
  }
}
