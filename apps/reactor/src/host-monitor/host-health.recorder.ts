import {
  type HealthSource,
  type HostDownReason,
  type HostEvent,
  type HostHealth,
  type HostState,
  foldEvents,
  hostDecider,
  hostStream,
} from '../../../../libs/domain/src/index.js';
import { type EventStore, WrongExpectedRevisionError } from '../../../../libs/event-store/src/event-store.port.js';
import { deterministicId } from '../deterministic-id.js';

export interface HealthReport {
  readonly hostId: string;
  readonly source: HealthSource;
  readonly observedAt: string;
  /** The reasons given the health recorded so far (a notification only knows part of the truth). */
  readonly reasons: (current: HostHealth) => readonly HostDownReason[];
  /** Names the observation: a notification's message id, or the host and revision a poll saw. */
  readonly key: (revision: number) => string;
  readonly reaction: 'nova-notification' | 'host-polling';
  readonly causationId: string | null;
}

/** 'Host.WentDown' etc. when recorded, 'unchanged', or 'not-registered' when the host is (no longer) Leasehold's. */
export type HealthOutcome = HostEvent['type'] | 'unchanged' | 'not-registered';

const MAX_ATTEMPTS = 5;

/** Load, decide, append with the expected revision; on a conflict, again with the newer state. */
export class HostHealthRecorder {
  constructor(private readonly store: EventStore) {}

  async record(report: HealthReport): Promise<HealthOutcome> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.attempt(report);
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError) || attempt >= MAX_ATTEMPTS) throw error;
      }
    }
  }

  private async attempt(report: HealthReport): Promise<HealthOutcome> {
    const streamId = hostStream(report.hostId);
    const recorded = await this.store.readStream(streamId);
    const state: HostState = foldEvents(hostDecider, recorded.map((e) => e as unknown as HostEvent));
    if (state.status !== 'Registered') return 'not-registered';
    const reasons = report.reasons(state.health);
    const command = { type: 'ReportHostHealth', data: { reasons, source: report.source, observedAt: report.observedAt } } as const;
    const [event, ...rest] = hostDecider.decide(command, state);
    if (event === undefined) return 'unchanged';
    const revision = recorded.length - 1;
    const key = report.key(revision);
    const id = deterministicId(`${key}:health`);
    const metadata = { correlationId: report.causationId ?? id, causationId: report.causationId ?? id, actor: null, reaction: report.reaction };
    const events = [event, ...rest].map((e, index) => ({ id: index === 0 ? id : deterministicId(`${key}:health:${index}`), type: e.type, data: e.data, metadata }));
    await this.store.appendToStream(streamId, revision, events);
    return event.type;
  }
}
