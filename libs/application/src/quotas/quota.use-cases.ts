import { type QuotaChanges, quotaStream } from '#domain/index.js';
import type { ApplicationContext } from '../application-context.js';
import { type Caller, authorize } from '../caller.js';
import { type AppCommand, appendTo, eventMetadata } from '../command.js';
import { ACTIONS } from '../policy/policy-defaults.js';
import { QUOTA_DECIDER } from './quota-index.js';
import type { ProjectQuota, Quotas } from './quotas.js';

export type SetQuota = AppCommand<'SetQuota', { readonly projectId: string; readonly changes: QuotaChanges }>;

export interface QuotaWritten {
  readonly quota: ProjectQuota;
  readonly position: number;
}

/** A project's quota target: the policy's `project_reader_or_admin` reads the project it names. */
const projectTarget = (caller: Caller, projectId: string) => ({ project_id: projectId, user_id: caller.userId });

/** Reading a project's quotas with its use, and setting them (`Quota.Set` on the project's quota stream). */
export class QuotaUseCases {
  constructor(
    private readonly context: ApplicationContext,
    private readonly quotas: Quotas,
  ) {}

  async show(caller: Caller, projectId: string, now: string): Promise<ProjectQuota> {
    authorize(caller, ACTIONS.quotaGet, projectTarget(caller, projectId));
    return this.quotas.project(projectId, now);
  }

  /** Admins only; a limit below what the project holds refuses its next growth, and takes nothing back. */
  async set({ data: { projectId, changes }, metadata }: SetQuota): Promise<QuotaWritten> {
    authorize(metadata.actor, ACTIONS.quotaUpdate, projectTarget(metadata.actor, projectId));
    const { handler, newId } = this.context;
    const streamId = quotaStream(projectId);
    const { position } = await handler.handle(async () => {
      const loaded = await handler.load(QUOTA_DECIDER, streamId);
      const events = QUOTA_DECIDER.decide({ type: 'SetQuota', data: { projectId, changes, now: metadata.now } }, loaded.state);
      return {
        appends: [appendTo(streamId, loaded.revision === -1 ? 'no_stream' : loaded.revision, events, eventMetadata(metadata), newId)],
        result: null,
      };
    });
    return { quota: await this.quotas.project(projectId, metadata.now), position };
  }
}
