import { type FairShareCommand, fairShareDecider, fairShareStream } from '#domain/index.js';
import type { ApplicationContext } from '../application-context.js';
import { authorize } from '../caller.js';
import { type AppCommand, type CommandMetadata, appendTo, eventMetadata } from '../command.js';
import { ACTIONS } from '../policy/policy-defaults.js';

export type SetFairShare = AppCommand<'SetFairShare', { readonly projectId: string; readonly shares: number }>;
export type ResetFairShare = AppCommand<'ResetFairShare', { readonly projectId: string }>;

/** Admins set a project's fair-share shares (`FairShare.ShareSet`) or put it back to the default (`.ShareReset`). */
export class FairShareUseCases {
  constructor(private readonly context: ApplicationContext) {}

  async set({ data: { projectId, shares }, metadata }: SetFairShare): Promise<{ readonly position: number }> {
    authorize(metadata.actor, ACTIONS.fairShareSet);
    return this.decide({ type: 'SetShares', data: { projectId, shares, now: metadata.now } }, metadata);
  }

  async reset({ data: { projectId }, metadata }: ResetFairShare): Promise<{ readonly position: number }> {
    authorize(metadata.actor, ACTIONS.fairShareReset);
    return this.decide({ type: 'ResetShares', data: { projectId, now: metadata.now } }, metadata);
  }

  private async decide(command: FairShareCommand, metadata: CommandMetadata): Promise<{ readonly position: number }> {
    const { handler, newId } = this.context;
    const streamId = fairShareStream(command.data.projectId);
    const { position } = await handler.handle(async () => {
      const loaded = await handler.load(fairShareDecider, streamId);
      const events = fairShareDecider.decide(command, loaded.state);
      return { appends: [appendTo(streamId, loaded.revision, events, eventMetadata(metadata), newId)], result: null };
    });
    return { position };
  }
}
