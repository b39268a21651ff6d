import { type RateCardPublished, type RateCardTerms, rateCardDecider, rateCardStream } from '#domain/index.js';
import type { ApplicationContext } from '../application-context.js';
import { authorize } from '../caller.js';
import { type AppCommand, appendTo, eventMetadata } from '../command.js';
import { ACTIONS } from '../policy/policy-defaults.js';

export type PublishRateCard = AppCommand<'PublishRateCard', RateCardTerms & { readonly name: string }>;

export interface RateCardPublication {
  readonly rateCard: RateCardPublished['data'];
  readonly position: number;
}

/** Rate cards: one stream per card, each publication a new version (earlier versions stay as they were). */
export class RateCardUseCases {
  constructor(private readonly context: ApplicationContext) {}

  async publish(command: PublishRateCard): Promise<RateCardPublication> {
    authorize(command.metadata.actor, ACTIONS.rateCardPut);
    const { handler, newId } = this.context;
    const streamId = rateCardStream(command.data.name);
    const { result, position } = await handler.handle(async () => {
      const card = await handler.load(rateCardDecider, streamId);
      const events = rateCardDecider.decide({ type: 'PublishRateCard', data: { ...command.data, now: command.metadata.now } }, card.state);
      const published = events[0] as RateCardPublished;
      return { appends: [appendTo(streamId, card.revision, events, eventMetadata(command.metadata), newId)], result: published.data };
    });
    return { rateCard: result, position };
  }
}
