import type { MikroORM } from '@mikro-orm/core';
import type { EventStore } from '#event-store/event-store.port.js';
import { CheckpointEntity, type CheckpointRow, READ_MODELS, type ReadModelName } from '#read-model/index.js';

const POLL_MS = 2;

/** What a stale read says about itself (the `stale` field of the body; the headers carry the lag). */
export interface StaleMarker {
  readonly read_models: readonly ReadModelName[];
  /** Events in the log that these read models do not show yet. */
  readonly lag_positions: number;
  /** How long ago the oldest of them was recorded. */
  readonly lag_seconds: number;
  /** Read models stopped on an event they cannot project (the projector retries them). */
  readonly failures: readonly {
    readonly read_model: string;
    readonly position: number;
    readonly event_type: string | null;
    readonly error: string | null;
    readonly since: string | null;
  }[];
}

/**
 * Reads that see writes: remembers the highest log position this process wrote and makes each read
 * wait (bounded) until the read models it reads have passed it. Clients never need to sleep. A read
 * model that did not get there in time, or that is stopped on an event, serves its reads at once and
 * marked stale (with the lag) until it has caught up: one slow read model never makes every request
 * wait its timeout.
 */
export class ReadYourWrites {
  private written = 0;
  /** Read models whose wait timed out, and the position they were waited for. */
  private readonly lagging = new Map<ReadModelName, number>();

  constructor(
    private readonly orm: MikroORM,
    private readonly store: EventStore,
    private readonly timeoutMs: number,
    private readonly clock: () => Date = () => new Date(),
    /** Milliseconds on a clock that never steps: the wait's timeout is measured on it, not on the wall clock. */
    private readonly monotonic: () => number = () => performance.now(),
  ) {}

  noteWrite(position: number): void {
    if (position > this.written) this.written = position;
  }

  /** Notes a write and tells the client its position (`X-Leasehold-Position`), for its reads elsewhere. */
  answerWrite(position: number, reply: { header(name: string, value: string): unknown }): void {
    this.noteWrite(position);
    reply.header('X-Leasehold-Position', String(position));
  }

  lastWrite(): number {
    return this.written;
  }

  async checkpoints(names: readonly ReadModelName[] = READ_MODELS): Promise<Map<ReadModelName, CheckpointRow | null>> {
    const rows = await this.orm.em.fork().find(CheckpointEntity, { name: { $in: [...names] } });
    return new Map(names.map((name) => [name, rows.find((row) => row.name === name) ?? null]));
  }

  /**
   * Waits until the read models `names` include `position` (default: this process's last write).
   * Resolves null for a fresh read, or the marker of a stale one. A read model stopped on an event
   * makes a live read stale even when it has passed `position` (the present is beyond it); a read
   * `asOf` that position is whole once it has passed it.
   */
  async waitFor(names: readonly ReadModelName[], position: number = this.written, asOf = false): Promise<StaleMarker | null> {
    const deadline = this.monotonic() + this.timeoutMs;
    for (;;) {
      const rows = await this.checkpoints(names);
      const at = (name: ReadModelName): number => Number(rows.get(name)?.position ?? 0);
      const behind = names.filter((name) => at(name) < position);
      const failed = names.filter((name) => rows.get(name)?.failedPosition != null && (!asOf || at(name) < position));
      for (const name of names) if (at(name) >= (this.lagging.get(name) ?? Infinity)) this.lagging.delete(name);
      const hopeless = behind.some((name) => failed.includes(name) || this.lagging.has(name));
      if (behind.length === 0 || hopeless || this.monotonic() >= deadline) {
        for (const name of behind) this.lagging.set(name, Math.max(position, this.lagging.get(name) ?? 0));
        const stale = [...new Set([...behind, ...failed])];
        return stale.length === 0 ? null : this.marker(stale, rows);
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  /** Ready while the log and the read models answer and no read model is stopped on an event or known to lag. */
  async readiness(): Promise<{ readonly ready: boolean; readonly head: number; readonly read_models: readonly Record<string, unknown>[] }> {
    const [head, rows] = await Promise.all([this.store.headPosition(), this.checkpoints()]);
    const readModels = READ_MODELS.map((name) => {
      const row = rows.get(name) ?? null;
      const position = Number(row?.position ?? 0);
      const failure =
        row?.failedPosition == null
          ? null
          : { position: Number(row.failedPosition), event_type: row.failedEventType, error: row.error, since: row.failedAt };
      return { name, position, lag_positions: head - position, lagging: this.lagging.has(name), failure };
    });
    return { ready: readModels.every((model) => model.failure === null && !model.lagging), head, read_models: readModels };
  }

  private async marker(names: readonly ReadModelName[], rows: Map<ReadModelName, CheckpointRow | null>): Promise<StaleMarker> {
    const from = Math.min(...names.map((name) => Number(rows.get(name)?.position ?? 0)));
    const head = await this.store.headPosition();
    const [oldest] = head > from ? await this.store.readAll({ from, limit: 1 }) : [];
    const seconds = oldest === undefined ? 0 : Math.max(0, (this.clock().getTime() - Date.parse(oldest.recordedAt)) / 1000);
    return {
      read_models: names,
      lag_positions: Math.max(0, head - from),
      lag_seconds: Math.round(seconds * 1000) / 1000,
      failures: names.flatMap((name) => {
        const row = rows.get(name);
        if (row?.failedPosition == null) return [];
        return [
          {
            read_model: name,
            position: Number(row.failedPosition),
            event_type: row.failedEventType,
            error: row.error,
            since: row.failedAt,
          },
        ];
      }),
    };
  }
}
