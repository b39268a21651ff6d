import type { MikroORM } from '@mikro-orm/core';
import { DateTime } from 'luxon';
import { invalid } from '#domain/index.js';
import type { EventStore } from '#event-store/event-store.port.js';
import { historyFrom } from '#read-model/index.js';
import { parseAsOf } from './as-of.js';

/** A GET's `as_of`: the instant asked for, and the log as it stood then (the last event recorded at or before it). */
export interface AsOf {
  readonly instant: string;
  readonly position: number;
}

/** Maps an `as_of` parameter to a log position the read models can answer at. */
export class PointInTime {
  constructor(
    private readonly orm: MikroORM,
    private readonly store: EventStore,
    private readonly clock: () => Date,
  ) {}

  async resolve(value: unknown): Promise<AsOf> {
    const instant = parseAsOf(value, DateTime.fromJSDate(this.clock(), { zone: 'utc' }));
    const position = await this.store.positionAt(instant);
    const from = await historyFrom(this.orm);
    // a read model projected by a release without versions has none before it was upgraded
    if (from === null || position < from) {
      const since = from === null ? 'now' : `position ${from}`;
      throw invalid(
        'AS_OF_NOT_RECORDED',
        `as_of=${String(value)}: this read model keeps past versions only from ${since}; rebuild it (npm run rebuild-read-models) to answer earlier instants`,
      );
    }
    return { instant, position };
  }
}
