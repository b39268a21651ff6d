import { once } from 'node:events';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { ServerResponse } from 'node:http';
import { Logger } from '@nestjs/common';
import { describeError, unavailable } from '#domain/index.js';
import type { Caller } from '#application/caller.js';
import { type EventFeed, FEED_LIMIT_MAX, type FeedQuery, type ScannedPage } from '#application/feed/event-feed.queries.js';
import type { HistoryEntry } from '#application/history/history-entry.js';
import type { LogHead } from '#application/feed/log-head.js';

export interface FeedStreamSettings {
  readonly maxStreams: number;
  readonly heartbeatMs: number;
}

/** One Server-Sent Event: the position as its id (what `Last-Event-ID` resumes from), the public type as its name. */
const frame = (entry: HistoryEntry): string => `id: ${entry.position}\nevent: ${entry.type}\ndata: ${JSON.stringify(entry)}\n\n`;

const HEARTBEAT = ': heartbeat\n\n';

/**
 * The feed as Server-Sent Events: the log from the caller's position (catch-up), then each event as
 * it is appended (live), until the client leaves or the process stops. Streams are counted, so a
 * process serves a bounded number of them; each holds the shared LogHead only while it is open.
 */
export class FeedStreams {
  private readonly logger = new Logger('feed');
  private readonly open = new Map<AbortController, Promise<void>>();

  constructor(
    private readonly feed: EventFeed,
    private readonly head: LogHead,
    private readonly settings: FeedStreamSettings,
  ) {}

  get count(): number {
    return this.open.size;
  }

  /**
   * Answers 503 beyond the bound, and a storage error before the first event as any request does;
   * then streams until the end. Resolves once the stream is closed and everything it held released.
   */
  async serve(response: ServerResponse, caller: Caller, query: FeedQuery): Promise<void> {
    if (this.open.size >= this.settings.maxStreams) {
      throw unavailable(
        'FEED_STREAMS_EXHAUSTED',
        `This server streams events to ${this.settings.maxStreams} clients at most; try again later`,
      );
    }
    const stop = new AbortController();
    const done = this.stream(response, caller, { ...query, limit: FEED_LIMIT_MAX }, stop);
    this.open.set(stop, done);
    try {
      await done;
    } finally {
      this.open.delete(stop);
    }
  }

  /** Ends every stream (the clients reconnect elsewhere with `Last-Event-ID`), so the server can close. */
  async closeAll(): Promise<void> {
    for (const stop of this.open.keys()) stop.abort();
    await Promise.allSettled(this.open.values());
  }

  private async stream(response: ServerResponse, caller: Caller, query: FeedQuery, stop: AbortController): Promise<void> {
    // from the start: a client gone while the first page is read must not leave a stream behind
    const leave = (): void => stop.abort();
    response.on('close', leave);
    this.head.hold();
    try {
      const first = await this.feed.page(caller, query);
      if (!stop.signal.aborted) await this.streamFrom(response, caller, query, first, stop.signal);
    } finally {
      response.off('close', leave);
      await this.head.release();
    }
  }

  private async streamFrom(
    response: ServerResponse,
    caller: Caller,
    query: FeedQuery,
    first: ScannedPage,
    signal: AbortSignal,
  ): Promise<void> {
    response.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' });
    response.flushHeaders();
    const heartbeat = setInterval(() => response.write(HEARTBEAT), this.settings.heartbeatMs);
    try {
      await this.pump(response, caller, query, first, signal);
    } catch (error) {
      // the headers are out: a failure can only end the stream, and the client resumes from its last id
      if (!signal.aborted) this.logger.warn(`event stream ended: ${describeError(error)}`);
    } finally {
      clearInterval(heartbeat);
      response.end();
    }
  }

  private async pump(response: ServerResponse, caller: Caller, query: FeedQuery, first: ScannedPage, signal: AbortSignal): Promise<void> {
    let page = first;
    while (!signal.aborted) {
      if (page.events.length > 0 && !response.write(page.events.map(frame).join(''))) await once(response, 'drain', { signal });
      // catching up, the next page waits for the process's other requests; at the head, for the log to grow
      if (page.atHead) await this.head.waitPast(page.next_after, signal);
      else await yieldToEventLoop();
      if (signal.aborted) return;
      page = await this.feed.page(caller, { ...query, after: page.next_after });
    }
  }
}
