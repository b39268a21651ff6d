import type { KurrentDBClient } from '@kurrent/kurrentdb-client';

/** multiStreamAppend, the one atomic append across streams, came with KurrentDB 25.1. */
export const MINIMUM_SERVER_VERSION = { major: 25, minor: 1 } as const;

export class KurrentDbServerVersionError extends Error {
  override readonly name = 'KurrentDbServerVersionError';
}

/**
 * Refuses a server older than 25.1 (EventStoreDB included) rather than appending to several streams
 * one after another: a command's events to a lease and its hosts' calendars must land together or
 * not at all.
 */
export const assertSupportedServerVersion = (version: string): void => {
  const match = /^v?(\d+)\.(\d+)/.exec(version.trim());
  if (match === null)
    throw new KurrentDbServerVersionError(
      `cannot read the KurrentDB server version '${version}': Leasehold needs 25.1 or later (multiStreamAppend)`,
    );
  const [major, minor] = [Number(match[1]), Number(match[2])];
  const supported =
    major > MINIMUM_SERVER_VERSION.major || (major === MINIMUM_SERVER_VERSION.major && minor >= MINIMUM_SERVER_VERSION.minor);
  if (!supported) {
    throw new KurrentDbServerVersionError(
      `KurrentDB server ${version} has no multiStreamAppend: Leasehold needs 25.1 or later to append to several streams atomically and will not start on an older server or EventStoreDB`,
    );
  }
};

/**
 * The server's version, from the capabilities the client fetches once per connection (a getter it keeps
 * protected); 'unknown' from a server too old to say, which the gate refuses.
 */
export const serverVersionOf = async (client: KurrentDBClient): Promise<string> =>
  (await (client as unknown as { readonly capabilities: Promise<{ readonly serverVersion: string }> }).capabilities).serverVersion;
