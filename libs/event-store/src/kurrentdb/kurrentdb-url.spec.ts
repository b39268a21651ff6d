import { KurrentDBClient } from '@kurrent/kurrentdb-client';
import { describe, expect, it } from 'vitest';
import { KurrentDbUrlError, parseKurrentDbUrl } from './kurrentdb-url.js';

describe('a KurrentDB URL', () => {
  it.each([
    ['kurrentdb://127.0.0.1:2113?tls=false', 'kurrentdb://127.0.0.1:2113?tls=false', 'leasehold'],
    [
      'kurrentdb://admin:changeit@127.0.0.1:2113?tls=false&prefix=staging',
      'kurrentdb://admin:changeit@127.0.0.1:2113?tls=false',
      'staging',
    ],
    ['esdb://127.0.0.1:2113?prefix=lh_2', 'esdb://127.0.0.1:2113', 'lh_2'],
    [
      'kurrentdb+discover://node1:2113,node2:2113,node3:2113?tls=true&prefix=prod',
      'kurrentdb+discover://node1:2113,node2:2113,node3:2113?tls=true',
      'prod',
    ],
    ['kdb://127.0.0.1:2113', 'kdb://127.0.0.1:2113', 'leasehold'],
  ])('%s goes to the client as %s, streams under %s', (url, connectionString, prefix) => {
    expect(parseKurrentDbUrl(url)).toEqual({ connectionString, prefix });
  });

  it('hands the client a string it accepts, with no option it would ignore', () => {
    const { connectionString } = parseKurrentDbUrl('kurrentdb://127.0.0.1:2113?tls=false&prefix=staging');
    // the real client: parsing and building it connects to nothing
    const client = KurrentDBClient.connectionString(connectionString);
    expect(client).toBeInstanceOf(KurrentDBClient);
    return client.dispose();
  });

  it.each(['kurrentdb://u:secret@h:2113?prefix=has-dash', 'kurrentdb://u:secret@h:2113?prefix=', 'postgres://u:secret@h/db'])(
    'refuses %s without echoing it',
    (url) => {
      expect(() => parseKurrentDbUrl(url)).toThrow(KurrentDbUrlError);
      expect(() => parseKurrentDbUrl(url)).not.toThrow(/secret|has-dash/);
    },
  );
});
