import { STREAM_NAME, type Filter } from '@kurrent/kurrentdb-client';
import { streamCategory, type EventFilter, type RecordedEvent } from '../event-store.port.js';
import { encodeStoredText as encode } from '../stored-text.js';

const REGEX_SPECIAL = /[\\^$.|?*+()[\]{}]/g;
const escapeRegex = (text: string): string => text.replace(REGEX_SPECIAL, '\\$&');
/** Past this the server's regex engine may refuse the pattern; the prefix alone still narrows. */
const MAX_REGEX_LENGTH = 2_000;

/**
 * What the server filters $all on: always our stream prefix (so system events and other deployments'
 * streams never travel), narrowed to the categories when some are asked for. The server takes one
 * filter, on stream names or on event types, so types are left to `matchesFilter`, which also checks
 * the categories exactly on the decoded names: the server's filter only narrows, it never decides.
 */
export const serverFilter = (streamPrefixText: string, filter: EventFilter | undefined): Filter => {
  const categories = filter?.categories ?? [];
  const alternatives = categories.map((category) => escapeRegex(encode(category))).join('|');
  const regex = `^${escapeRegex(streamPrefixText)}(?:${alternatives})(?:-|$)`;
  if (categories.length === 0 || regex.length > MAX_REGEX_LENGTH)
    return { filterOn: STREAM_NAME, prefixes: [streamPrefixText], checkpointInterval: 1 };
  return { filterOn: STREAM_NAME, regex, checkpointInterval: 1 };
};

/** An empty list means "no constraint", like an absent one (as in the SQL adapters). */
export const matchesFilter = (event: RecordedEvent, filter: EventFilter | undefined): boolean => {
  const categories = filter?.categories ?? [];
  const types = filter?.types ?? [];
  return (
    (categories.length === 0 || categories.includes(streamCategory(event.streamId))) && (types.length === 0 || types.includes(event.type))
  );
};
