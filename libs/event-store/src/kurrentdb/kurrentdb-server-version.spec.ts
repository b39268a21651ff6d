import { KurrentDBClient } from '@kurrent/kurrentdb-client';
import { describe, expect, it } from 'vitest';
import { KurrentDbServerVersionError, assertSupportedServerVersion } from './kurrentdb-server-version.js';

/** The version string stands in for the server, which cannot run on these machines. */
describe('the KurrentDB server version gate', () => {
  it.each(['25.1.0', '25.1.3.1543', '25.2.0', '26.0.0-rc.1', 'v26.1.0'])('accepts %s (multiStreamAppend is there)', (version) => {
    expect(() => assertSupportedServerVersion(version)).not.toThrow();
  });

  it.each(['25.0.1', '24.10.2', '23.10.0', '22.10.0', '5.0.11'])('refuses %s at start, naming the version it needs and why', (version) => {
    expect(() => assertSupportedServerVersion(version)).toThrow(KurrentDbServerVersionError);
    expect(() => assertSupportedServerVersion(version)).toThrow(
      `KurrentDB server ${version} has no multiStreamAppend: Leasehold needs 25.1 or later`,
    );
  });

  it.each(['', 'unknown', 'x25.1'])('refuses a version it cannot read (%j) rather than guess', (version) => {
    expect(() => assertSupportedServerVersion(version)).toThrow(/cannot read the KurrentDB server version/);
  });
});

describe('where the version comes from', () => {
  it("is the client's capabilities getter, still there in the installed client", () => {
    const getterOwner = (proto: object | null): object | null =>
      proto === null || Object.getOwnPropertyDescriptor(proto, 'capabilities')?.get !== undefined
        ? proto
        : getterOwner(Object.getPrototypeOf(proto) as object | null);
    expect(getterOwner(KurrentDBClient.prototype)).not.toBeNull();
  });
});
