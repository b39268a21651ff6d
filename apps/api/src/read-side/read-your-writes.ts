import type { MikroORM } from '@mikro-orm/core';
import { CheckpointEntity, READ_MODEL_CHECKPOINT } from '../../../../libs/read-model/src/index.js';

const POLL_MS = 2;

/**
 * Reads that see writes: remembers the highest log position this process wrote and makes each read
 * wait (bounded) until the projector's checkpoint has passed it. Clients never need to sleep.
 */
export class ReadYourWrites {
  private written = 0;

  constructor(
    private readonly orm: MikroORM,
    private readonly timeoutMs: number,
  ) {}

  noteWrite(position: number): void {
    if (position > this.written) this.written = position;
  }

  /** Notes a write and tells the client its position (`X-Leasehold-Position`), for its reads elsewhere. */
  answerWrite(position: number, response: { setHeader(name: string, value: string): unknown }): void {
    this.noteWrite(position);
    response.setHeader('X-Leasehold-Position', String(position));
  }

  lastWrite(): number {
    return this.written;
  }

  async checkpoint(): Promise<number> {
    const row = await this.orm.em.fork().findOne(CheckpointEntity, { name: READ_MODEL_CHECKPOINT });
    return row?.position ?? 0;
  }

  /** Resolves true once the read model includes `position` (default: this process's last write). */
  async waitFor(position: number = this.written): Promise<boolean> {
    if (position <= 0) return true;
    const deadline = Date.now() + this.timeoutMs;
    for (;;) {
      if ((await this.checkpoint()) >= position) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
}
