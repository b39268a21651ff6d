import type { CommandBus } from '@nestjs/cqrs';
import type { EventStore } from '#event-store/event-store.port.js';
import type { ReactorLogEntry } from '../scheduler.js';
import type { HealingConfig } from './healing.config.js';
import { HealingRunner } from './healing.runner.js';

export interface HealingStart {
  readonly store: EventStore;
  /** The process's CommandBus, opened with this healing (its calendars and settings: openReactorCommands). */
  readonly commands: CommandBus;
  readonly config: HealingConfig;
  readonly log: (entry: ReactorLogEntry) => void;
  readonly clock?: () => Date;
}

/** Healing in this process, or null when LEASEHOLD_HEALING_CHECK_SECONDS is 0. */
export const startHealing = async ({
  store,
  commands,
  config,
  log,
  clock = () => new Date(),
}: HealingStart): Promise<HealingRunner | null> => {
  if (config.checkMs <= 0) return null;
  return HealingRunner.start({ store, commands, checkMs: config.checkMs, clock, log });
};
