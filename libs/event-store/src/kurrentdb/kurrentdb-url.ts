/** The URL forms the KurrentDB client takes (`esdb` ones are the EventStoreDB names it still accepts). */
export const KURRENTDB_URL = /^(kurrentdb|kurrent|kdb|esdb)(\+discover)?:\/\//;

const PREFIX = /^[A-Za-z0-9_]{1,64}$/;
const DEFAULT_PREFIX = 'leasehold';

export interface KurrentDbUrl {
  /** What the client gets: the URL without Leasehold's own `prefix` parameter. */
  readonly connectionString: string;
  /** Leasehold's streams on this server start with it (`leasehold` by default), so several deployments can share one. */
  readonly prefix: string;
}

/** Says what in the URL cannot be used, without echoing it (it may hold a password). */
export class KurrentDbUrlError extends Error {
  override readonly name = 'KurrentDbUrlError';
}

/**
 * Splits off `prefix`: the client warns about and ignores a parameter it does not know. The query is
 * cut by hand because `new URL` would re-encode a cluster URL's comma-separated hosts.
 */
export const parseKurrentDbUrl = (url: string): KurrentDbUrl => {
  if (!KURRENTDB_URL.test(url))
    throw new KurrentDbUrlError('a KurrentDB URL starts with kurrentdb://, kurrent://, kdb:// or esdb:// (optionally +discover)');
  const question = url.indexOf('?');
  if (question === -1) return { connectionString: url, prefix: DEFAULT_PREFIX };
  const params = new URLSearchParams(url.slice(question + 1));
  const prefix = params.get('prefix') ?? DEFAULT_PREFIX;
  if (!PREFIX.test(prefix)) throw new KurrentDbUrlError('the prefix parameter must be 1 to 64 letters, digits or underscores');
  params.delete('prefix');
  const rest = params.toString();
  return { connectionString: rest === '' ? url.slice(0, question) : `${url.slice(0, question)}?${rest}`, prefix };
};
