import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { HealingPass, HealingUseCase } from '#application/healing/healing.use-case.js';
import { type FreepoolOutcome, FreepoolWatchUseCases } from '#application/reactions/freepool-watch.use-cases.js';
import { type EnrollmentRecorded, type HealthOutcome, HostReactionUseCases } from '#application/reactions/host-reactions.use-cases.js';
import {
  LeaseReactionUseCases,
  type OutcomeRecorded,
  type PhaseBegun,
  type ReconciliationRecorded,
} from '#application/reactions/lease-reactions.use-cases.js';
import {
  BeginLeasePhase,
  CompleteLeasePhase,
  CompleteReservationUpdates,
  HealReservations,
  ObserveFreepool,
  RecordHostActivity,
  RecordHostEnrollment,
  RecordLeftovers,
  RecordReconciliation,
  ReportHostHealth,
} from './reactor.commands.js';

/** This process's healing (null when LEASEHOLD_HEALING_CHECK_SECONDS is 0: nothing sends HealReservations). */
export const HEALING = Symbol('HEALING');

@CommandHandler(BeginLeasePhase)
export class BeginLeasePhaseHandler implements ICommandHandler<BeginLeasePhase> {
  constructor(@Inject(LeaseReactionUseCases) private readonly reactions: LeaseReactionUseCases) {}

  execute(command: BeginLeasePhase): Promise<PhaseBegun> {
    return this.reactions.beginPhase(command, command.known);
  }
}

@CommandHandler(CompleteLeasePhase)
export class CompleteLeasePhaseHandler implements ICommandHandler<CompleteLeasePhase> {
  constructor(@Inject(LeaseReactionUseCases) private readonly reactions: LeaseReactionUseCases) {}

  execute(command: CompleteLeasePhase): Promise<OutcomeRecorded> {
    return this.reactions.completePhase(command, command.known);
  }
}

@CommandHandler(CompleteReservationUpdates)
export class CompleteReservationUpdatesHandler implements ICommandHandler<CompleteReservationUpdates> {
  constructor(@Inject(LeaseReactionUseCases) private readonly reactions: LeaseReactionUseCases) {}

  execute(command: CompleteReservationUpdates): Promise<OutcomeRecorded> {
    return this.reactions.completeUpdates(command, command.known);
  }
}

@CommandHandler(RecordReconciliation)
export class RecordReconciliationHandler implements ICommandHandler<RecordReconciliation> {
  constructor(@Inject(LeaseReactionUseCases) private readonly reactions: LeaseReactionUseCases) {}

  execute(command: RecordReconciliation): Promise<ReconciliationRecorded> {
    return this.reactions.recordReconciliation(command);
  }
}

@CommandHandler(RecordLeftovers)
export class RecordLeftoversHandler implements ICommandHandler<RecordLeftovers> {
  constructor(@Inject(LeaseReactionUseCases) private readonly reactions: LeaseReactionUseCases) {}

  execute(command: RecordLeftovers): Promise<ReconciliationRecorded> {
    return this.reactions.recordLeftovers(command);
  }
}

@CommandHandler(RecordHostEnrollment)
export class RecordHostEnrollmentHandler implements ICommandHandler<RecordHostEnrollment> {
  constructor(@Inject(HostReactionUseCases) private readonly reactions: HostReactionUseCases) {}

  execute(command: RecordHostEnrollment): Promise<EnrollmentRecorded> {
    return this.reactions.recordEnrollment(command);
  }
}

@CommandHandler(ReportHostHealth)
export class ReportHostHealthHandler implements ICommandHandler<ReportHostHealth> {
  constructor(@Inject(HostReactionUseCases) private readonly reactions: HostReactionUseCases) {}

  execute(command: ReportHostHealth): Promise<HealthOutcome> {
    return this.reactions.reportHealth(command);
  }
}

@CommandHandler(RecordHostActivity)
export class RecordHostActivityHandler implements ICommandHandler<RecordHostActivity> {
  constructor(@Inject(HostReactionUseCases) private readonly reactions: HostReactionUseCases) {}

  execute(command: RecordHostActivity): Promise<'recorded' | 'duplicate'> {
    return this.reactions.recordActivity(command);
  }
}

@CommandHandler(ObserveFreepool)
export class ObserveFreepoolHandler implements ICommandHandler<ObserveFreepool> {
  constructor(@Inject(FreepoolWatchUseCases) private readonly watch: FreepoolWatchUseCases) {}

  execute(command: ObserveFreepool): Promise<FreepoolOutcome> {
    return this.watch.observe(command);
  }
}

@CommandHandler(HealReservations)
export class HealReservationsHandler implements ICommandHandler<HealReservations> {
  constructor(@Inject(HEALING) private readonly healing: HealingUseCase | null) {}

  async execute(command: HealReservations): Promise<HealingPass> {
    if (this.healing === null) throw new Error('HealReservations sent, but healing is off in this process');
    return this.healing.pass(command);
  }
}

export const REACTOR_HANDLERS = [
  BeginLeasePhaseHandler,
  CompleteLeasePhaseHandler,
  CompleteReservationUpdatesHandler,
  RecordReconciliationHandler,
  RecordLeftoversHandler,
  RecordHostEnrollmentHandler,
  ReportHostHealthHandler,
  RecordHostActivityHandler,
  ObserveFreepoolHandler,
  HealReservationsHandler,
];
