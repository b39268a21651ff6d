import { randomUUID } from 'node:crypto';
import { CommandHandler } from '#application/command-handler.js';
import { HealingUseCase } from '#application/healing/healing.use-case.js';
import { WriteIndex } from '#application/write-model/write-index.js';
import type { EventStore } from '#event-store/event-store.port.js';
import type { ReactorLogEntry } from '../scheduler.js';
import type { HealingConfig } from './healing.config.js';
import { HealingRunner } from './healing.runner.js';

export interface HealingStart {
  readonly store: EventStore;
  readonly config: HealingConfig;
  readonly log: (entry: ReactorLogEntry) => void;
  readonly clock?: () => Date;
  /** The process's one command handler, when it has one already. */
  readonly handler?: CommandHandler;
  /** The hosts' calendars as restored from a snapshot (the first pass reads the events after it); a new one when absent. */
  readonly index?: WriteIndex;
}

/** Healing in this process, or null when LEASEHOLD_HEALING_CHECK_SECONDS is 0. */
export const startHealing = async ({
  store,
  config,
  log,
  clock = () => new Date(),
  handler = new CommandHandler(store),
  index = new WriteIndex(store),
}: HealingStart): Promise<HealingRunner | null> => {
  if (config.checkMs <= 0) return null;
  const healing = new HealingUseCase(
    { handler, index, settings: config.settings, newId: () => randomUUID() },
    { intervalMinutes: config.intervalMinutes },
  );
  return HealingRunner.start({ store, healing, checkMs: config.checkMs, clock, log });
};
