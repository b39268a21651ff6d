import type { HealReservations as HealReservationsCommand, HealingPass } from '#application/healing/healing.use-case.js';
import type { FreepoolOutcome, ObserveFreepoolReaction } from '#application/reactions/freepool-watch.use-cases.js';
import type {
  EnrollmentRecorded,
  HealthOutcome,
  RecordHostActivityReaction,
  RecordHostEnrollmentReaction,
  ReportHostHealthReaction,
} from '#application/reactions/host-reactions.use-cases.js';
import type { LeaseReactionView } from '#application/reactions/lease-reaction.view.js';
import type {
  BeginLeasePhaseReaction,
  CompleteLeasePhaseReaction,
  CompleteReservationUpdatesReaction,
  OutcomeRecorded,
  PhaseBegun,
  ReconciliationRecorded,
  RecordLeftoversReaction,
  RecordReconciliationReaction,
} from '#application/reactions/lease-reactions.use-cases.js';
import type { CommandMetadata } from '#application/command.js';
import { ReactorCommand } from './reactor-command.js';

/** A lease reaction decided first on the reactor's own view of the lease (`known`), then on the ledger's after a conflict. */
abstract class LeaseReaction<
  Sent extends BeginLeasePhaseReaction | CompleteLeasePhaseReaction | CompleteReservationUpdatesReaction,
  Result,
> extends ReactorCommand<Sent, Result> {
  constructor(
    data: Sent['data'],
    metadata: CommandMetadata,
    readonly known?: LeaseReactionView,
  ) {
    super(data, metadata);
  }
}

export class BeginLeasePhase extends LeaseReaction<BeginLeasePhaseReaction, PhaseBegun> {
  readonly type = 'BeginLeasePhase';
}

export class CompleteLeasePhase extends LeaseReaction<CompleteLeasePhaseReaction, OutcomeRecorded> {
  readonly type = 'CompleteLeasePhase';
}

export class CompleteReservationUpdates extends LeaseReaction<CompleteReservationUpdatesReaction, OutcomeRecorded> {
  readonly type = 'CompleteReservationUpdates';
}

export class RecordReconciliation extends ReactorCommand<RecordReconciliationReaction, ReconciliationRecorded> {
  readonly type = 'RecordReconciliation';
}

export class RecordLeftovers extends ReactorCommand<RecordLeftoversReaction, ReconciliationRecorded> {
  readonly type = 'RecordLeftovers';
}

export class RecordHostEnrollment extends ReactorCommand<RecordHostEnrollmentReaction, EnrollmentRecorded> {
  readonly type = 'RecordHostEnrollment';
}

export class ReportHostHealth extends ReactorCommand<ReportHostHealthReaction, HealthOutcome> {
  readonly type = 'ReportHostHealth';
}

export class RecordHostActivity extends ReactorCommand<RecordHostActivityReaction, 'recorded' | 'duplicate'> {
  readonly type = 'RecordHostActivity';
}

export class ObserveFreepool extends ReactorCommand<ObserveFreepoolReaction, FreepoolOutcome> {
  readonly type = 'ObserveFreepool';
}

export class HealReservations extends ReactorCommand<HealReservationsCommand, HealingPass> {
  readonly type = 'HealReservations';
}
