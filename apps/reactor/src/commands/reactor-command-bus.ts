import { randomUUID } from 'node:crypto';
import { type DynamicModule, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CommandBus, CqrsModule } from '@nestjs/cqrs';
import type { CommandHandler } from '#application/command-handler.js';
import { HealingUseCase } from '#application/healing/healing.use-case.js';
import { FreepoolWatchUseCases } from '#application/reactions/freepool-watch.use-cases.js';
import { HostReactionUseCases } from '#application/reactions/host-reactions.use-cases.js';
import { LeaseReactionUseCases } from '#application/reactions/lease-reactions.use-cases.js';
import type { WriteIndex } from '#application/write-model/write-index.js';
import type { HealingConfig } from '../healing/healing.config.js';
import { HEALING, REACTOR_HANDLERS } from './reactor.handlers.js';

export interface ReactorCommandsOptions {
  /** The process's one command handler: every outcome the reactor records is appended through it. */
  readonly handler: CommandHandler;
  /** Healing in this process (its hosts' calendars and settings); null when it is off. */
  readonly healing: { readonly index: WriteIndex; readonly config: HealingConfig } | null;
}

/** The reactor's CommandBus, in a Nest application context of its own (no HTTP: the reactor serves only its probes). */
export interface ReactorCommands {
  readonly bus: CommandBus;
  close(): Promise<void>;
}

const healingUseCase = ({ handler, healing }: ReactorCommandsOptions): HealingUseCase | null =>
  healing === null
    ? null
    : new HealingUseCase(
        { handler, index: healing.index, settings: healing.config.settings, newId: () => randomUUID() },
        { intervalMinutes: healing.config.intervalMinutes },
      );

@Module({})
class ReactorCommandsModule {
  static forRoot(options: ReactorCommandsOptions): DynamicModule {
    const { handler } = options;
    return {
      module: ReactorCommandsModule,
      imports: [CqrsModule.forRoot()],
      providers: [
        { provide: LeaseReactionUseCases, useFactory: () => new LeaseReactionUseCases({ handler }) },
        { provide: HostReactionUseCases, useFactory: () => new HostReactionUseCases({ handler }) },
        { provide: FreepoolWatchUseCases, useFactory: () => new FreepoolWatchUseCases({ handler }) },
        { provide: HEALING, useFactory: () => healingUseCase(options) },
        ...REACTOR_HANDLERS,
      ],
    };
  }
}

/** Nest logs nothing here (the reactor's stdout is its JSON lines) and never exits the process: a failed start is thrown. */
export const openReactorCommands = async (options: ReactorCommandsOptions): Promise<ReactorCommands> => {
  const context = await NestFactory.createApplicationContext(ReactorCommandsModule.forRoot(options), {
    logger: false,
    abortOnError: false,
  });
  return { bus: context.get(CommandBus), close: () => context.close() };
};
