import { invalid } from '#domain/index.js';
import { FEED_LIMIT_DEFAULT, FEED_LIMIT_MAX, type FeedQuery, parseFeedTypes } from '#application/feed/event-feed.queries.js';
import { LOG_POSITION_PATTERN } from '../http/route-parameters.js';

export interface FeedRequest {
  /** Query parameters, each already held to its rule in route-parameters.ts. */
  readonly after?: string;
  readonly types?: string;
  readonly limit?: string;
  /** The `Last-Event-ID` header an EventSource sends when it reconnects. */
  readonly lastEventId?: string | string[];
}

const lastEventPosition = (header: string | string[] | undefined): number | undefined => {
  if (header === undefined) return undefined;
  if (typeof header !== 'string' || !new RegExp(LOG_POSITION_PATTERN).test(header.trim())) {
    throw invalid('MALFORMED_HEADER', 'Malformed header Last-Event-ID (must be a log position: 0 or a positive integer)');
  }
  return Number(header.trim());
};

/**
 * `Last-Event-ID` wins over `after`: an EventSource reconnects to the URL it was opened with, and the
 * header says how far it got since.
 */
export const parseFeedRequest = ({ after, types, limit, lastEventId }: FeedRequest): FeedQuery => {
  const size = limit === undefined ? FEED_LIMIT_DEFAULT : Number(limit);
  if (!Number.isInteger(size) || size < 1 || size > FEED_LIMIT_MAX)
    throw invalid('MALFORMED_PARAMETER', `Malformed parameter limit (must be 1 to ${FEED_LIMIT_MAX})`);
  return {
    after: lastEventPosition(lastEventId) ?? (after === undefined ? 0 : Number(after)),
    types: types === undefined ? null : parseFeedTypes(types),
    limit: size,
  };
};
