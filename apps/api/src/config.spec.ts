import { describe, expect, it } from 'vitest';
import { assertSafeBinding, keystoneV3Url, loadApiConfig } from './config.js';

const KEYSTONE = {
  LEASEHOLD_AUTH: 'keystone',
  LEASEHOLD_KEYSTONE_URL: 'http://127.0.0.1:62357/v3',
  LEASEHOLD_KEYSTONE_USERNAME: 'leasehold',
  LEASEHOLD_KEYSTONE_PASSWORD: 'secret',
};

describe('API configuration: authentication', () => {
  it('defaults to auth mode none with the local admin identity and upstream policy', () => {
    const config = loadApiConfig({});
    expect(config).toMatchObject({ auth: 'none', tokensFile: null, keystone: null, policyFile: null, wwwAuthenticateUri: null });
    expect(config.defaultUserId).toBe('leasehold-admin');
  });

  it('static needs LEASEHOLD_TOKENS_FILE', () => {
    expect(() => loadApiConfig({ LEASEHOLD_AUTH: 'static' })).toThrow('LEASEHOLD_TOKENS_FILE must be set when LEASEHOLD_AUTH=static');
    expect(loadApiConfig({ LEASEHOLD_AUTH: 'static', LEASEHOLD_TOKENS_FILE: '/etc/t.json' }).tokensFile).toBe('/etc/t.json');
  });

  it('keystone needs the URL and the service credentials; domains default to Default, project to service', () => {
    expect(() => loadApiConfig({ LEASEHOLD_AUTH: 'keystone' })).toThrow(/LEASEHOLD_KEYSTONE_URL must be set when LEASEHOLD_AUTH=keystone/);
    expect(() => loadApiConfig({ ...KEYSTONE, LEASEHOLD_KEYSTONE_PASSWORD: '' })).toThrow(/LEASEHOLD_KEYSTONE_PASSWORD must be set/);
    const config = loadApiConfig({ ...KEYSTONE, LEASEHOLD_KEYSTONE_CACHE_SECONDS: '300' });
    expect(config.keystone).toEqual({
      url: 'http://127.0.0.1:62357/v3',
      username: 'leasehold',
      password: 'secret',
      projectName: 'service',
      userDomainName: 'Default',
      projectDomainName: 'Default',
      cacheSeconds: 300,
      timeoutMs: 5000,
    });
    expect(config.wwwAuthenticateUri).toBe('http://127.0.0.1:62357/v3');
    expect(loadApiConfig({ ...KEYSTONE, LEASEHOLD_WWW_AUTHENTICATE_URI: 'https://id.example/v3' }).wwwAuthenticateUri).toBe(
      'https://id.example/v3',
    );
  });

  it('a validated Keystone token is trusted for at most 60 s by default; LEASEHOLD_KEYSTONE_CACHE_SECONDS sets it, 0 turns the cache off', () => {
    expect(loadApiConfig(KEYSTONE).keystone?.cacheSeconds).toBe(60);
    expect(loadApiConfig({ ...KEYSTONE, LEASEHOLD_KEYSTONE_CACHE_SECONDS: '' }).keystone?.cacheSeconds).toBe(60);
    expect(loadApiConfig({ ...KEYSTONE, LEASEHOLD_KEYSTONE_CACHE_SECONDS: '5' }).keystone?.cacheSeconds).toBe(5);
    expect(loadApiConfig({ ...KEYSTONE, LEASEHOLD_KEYSTONE_CACHE_SECONDS: '0' }).keystone?.cacheSeconds).toBe(0);
    expect(() => loadApiConfig({ ...KEYSTONE, LEASEHOLD_KEYSTONE_CACHE_SECONDS: '-1' })).toThrow(
      /LEASEHOLD_KEYSTONE_CACHE_SECONDS must be a non-negative integer/,
    );
  });

  it('the Keystone URL gets /v3 when it lacks it', () => {
    expect(keystoneV3Url('http://h:5000')).toBe('http://h:5000/v3');
    expect(keystoneV3Url('http://h/identity/')).toBe('http://h/identity/v3');
    expect(keystoneV3Url('http://h/identity/v3/')).toBe('http://h/identity/v3');
    expect(() => keystoneV3Url('h:5000')).toThrow(/http\(s\) URL/);
  });

  it('refuses an unknown mode, and a non-loopback address only without authentication', () => {
    expect(() => loadApiConfig({ LEASEHOLD_AUTH: 'ldap' })).toThrow('LEASEHOLD_AUTH must be none, static or keystone, got ldap');
    expect(() => assertSafeBinding(loadApiConfig({ LEASEHOLD_HOST: '0.0.0.0' }))).toThrow(/Refusing to listen on 0.0.0.0/);
    expect(() => assertSafeBinding(loadApiConfig({ ...KEYSTONE, LEASEHOLD_HOST: '0.0.0.0' }))).not.toThrow();
    expect(() =>
      assertSafeBinding(loadApiConfig({ LEASEHOLD_AUTH: 'static', LEASEHOLD_TOKENS_FILE: 't', LEASEHOLD_HOST: '::' })),
    ).not.toThrow();
  });
});

describe('API configuration: the event feed', () => {
  it('streams to 100 clients at most with a heartbeat every 15 s by default; both settable, neither 0', () => {
    expect(loadApiConfig({})).toMatchObject({ feedMaxStreams: 100, feedHeartbeatMs: 15_000 });
    expect(loadApiConfig({ LEASEHOLD_FEED_MAX_STREAMS: '3', LEASEHOLD_FEED_HEARTBEAT_MS: '200' })).toMatchObject({
      feedMaxStreams: 3,
      feedHeartbeatMs: 200,
    });
    expect(loadApiConfig({}).keepAliveTimeoutMs).toBe(65_000);
    expect(loadApiConfig({ LEASEHOLD_HTTP_KEEPALIVE_MS: '7000' }).keepAliveTimeoutMs).toBe(7_000);
    expect(() => loadApiConfig({ LEASEHOLD_HTTP_KEEPALIVE_MS: '0' })).toThrow(/LEASEHOLD_HTTP_KEEPALIVE_MS/);
    expect(() => loadApiConfig({ LEASEHOLD_FEED_MAX_STREAMS: '0' })).toThrow(
      'LEASEHOLD_FEED_MAX_STREAMS must be a positive integer, got 0',
    );
    expect(() => loadApiConfig({ LEASEHOLD_FEED_HEARTBEAT_MS: '-5' })).toThrow(
      'LEASEHOLD_FEED_HEARTBEAT_MS must be a non-negative integer, got -5',
    );
  });
});

describe('API configuration: the past the indexes keep', () => {
  it('keeps 24 hours by default, never less than two cleaning times and 10 minutes, and refuses a negative or fractional value', () => {
    expect(loadApiConfig({}).pastKeptMs).toBe(24 * 3_600_000);
    expect(loadApiConfig({ LEASEHOLD_PAST_KEPT_HOURS: '2' }).pastKeptMs).toBe(2 * 3_600_000);
    expect(loadApiConfig({ LEASEHOLD_PAST_KEPT_HOURS: '0', LEASEHOLD_CLEANING_TIME_MINUTES: '30' }).pastKeptMs).toBe(70 * 60_000);
    expect(() => loadApiConfig({ LEASEHOLD_PAST_KEPT_HOURS: '-1' })).toThrow(/LEASEHOLD_PAST_KEPT_HOURS/);
    expect(() => loadApiConfig({ LEASEHOLD_PAST_KEPT_HOURS: '1.5' })).toThrow(/LEASEHOLD_PAST_KEPT_HOURS/);
  });
});

describe('API configuration: what one GraphQL operation may read', () => {
  it('3 s and 20000 rows an operation, expensive above 1000 rows, 2 expensive at once a project; each settable, none 0', () => {
    expect(loadApiConfig({}).graphql).toMatchObject({ timeoutMs: 3000, maxRows: 20_000, expensiveCost: 1000, tenantExpensive: 2 });
    const set = loadApiConfig({
      LEASEHOLD_GRAPHQL_TIMEOUT_MS: '500',
      LEASEHOLD_GRAPHQL_MAX_ROWS: '100',
      LEASEHOLD_GRAPHQL_EXPENSIVE_COST: '50',
      LEASEHOLD_GRAPHQL_TENANT_EXPENSIVE: '1',
    });
    expect(set.graphql).toMatchObject({ timeoutMs: 500, maxRows: 100, expensiveCost: 50, tenantExpensive: 1 });
    expect(loadApiConfig({}).graphql).toMatchObject({ maxValues: 500_000, expensiveValues: 100_000 });
    expect(loadApiConfig({ LEASEHOLD_GRAPHQL_MAX_VALUES: '1000', LEASEHOLD_GRAPHQL_EXPENSIVE_VALUES: '10' }).graphql).toMatchObject({
      maxValues: 1000,
      expensiveValues: 10,
    });
    for (const name of ['TIMEOUT_MS', 'MAX_ROWS', 'MAX_VALUES', 'EXPENSIVE_COST', 'EXPENSIVE_VALUES', 'TENANT_EXPENSIVE']) {
      const variable = `LEASEHOLD_GRAPHQL_${name}`;
      expect(() => loadApiConfig({ [variable]: '0' })).toThrow(`${variable} must be a positive integer, got 0`);
      expect(() => loadApiConfig({ [variable]: 'many' })).toThrow(`${variable} must be a non-negative integer, got many`);
    }
  });
});

describe('API configuration: live connections per tenant', () => {
  it("gives each project 10 of the feed's streams by default, never more than there are", () => {
    expect(loadApiConfig({}).feedMaxStreamsPerTenant).toBe(10);
    expect(loadApiConfig({ LEASEHOLD_FEED_MAX_STREAMS_PER_TENANT: '4' }).feedMaxStreamsPerTenant).toBe(4);
    // a smaller server bound lowers the default share with it
    expect(loadApiConfig({ LEASEHOLD_FEED_MAX_STREAMS: '3' }).feedMaxStreamsPerTenant).toBe(3);
    expect(() => loadApiConfig({ LEASEHOLD_FEED_MAX_STREAMS: '3', LEASEHOLD_FEED_MAX_STREAMS_PER_TENANT: '5' })).toThrow(
      'LEASEHOLD_FEED_MAX_STREAMS_PER_TENANT (5) must not exceed LEASEHOLD_FEED_MAX_STREAMS (3)',
    );
    expect(() => loadApiConfig({ LEASEHOLD_FEED_MAX_STREAMS_PER_TENANT: '0' })).toThrow(
      'LEASEHOLD_FEED_MAX_STREAMS_PER_TENANT must be a positive integer, got 0',
    );
  });

  it("bounds GraphQL's WebSocket by default: messages, the time to connection_init, sockets and subscriptions", () => {
    expect(loadApiConfig({}).webSockets).toEqual({
      initTimeoutMs: 10_000,
      maxInitBytes: 16_384,
      maxMessageBytes: 102_400,
      maxConnectionsPerTenant: 10,
      maxConnectionsPerAddress: 20,
      maxSubscriptionsPerConnection: 20,
      maxSubscriptionsPerTenant: 50,
    });
    expect(
      loadApiConfig({
        LEASEHOLD_GRAPHQL_WS_INIT_TIMEOUT_MS: '500',
        LEASEHOLD_GRAPHQL_WS_MAX_CONNECTIONS_PER_TENANT: '2',
        LEASEHOLD_GRAPHQL_WS_MAX_CONNECTIONS_PER_ADDRESS: '100',
        LEASEHOLD_GRAPHQL_WS_MAX_SUBSCRIPTIONS_PER_CONNECTION: '5',
        LEASEHOLD_GRAPHQL_WS_MAX_SUBSCRIPTIONS_PER_TENANT: '7',
      }).webSockets,
    ).toMatchObject({
      initTimeoutMs: 500,
      maxConnectionsPerTenant: 2,
      maxConnectionsPerAddress: 100,
      maxSubscriptionsPerConnection: 5,
      maxSubscriptionsPerTenant: 7,
    });
    expect(() => loadApiConfig({ LEASEHOLD_GRAPHQL_WS_MAX_SUBSCRIPTIONS_PER_TENANT: '0' })).toThrow(
      'LEASEHOLD_GRAPHQL_WS_MAX_SUBSCRIPTIONS_PER_TENANT must be a positive integer, got 0',
    );
    expect(() => loadApiConfig({ LEASEHOLD_GRAPHQL_WS_INIT_TIMEOUT_MS: 'soon' })).toThrow(/LEASEHOLD_GRAPHQL_WS_INIT_TIMEOUT_MS/);
  });

  it('holds the message bound before connection_init to the one after it', () => {
    expect(loadApiConfig({ LEASEHOLD_GRAPHQL_WS_MAX_MESSAGE_BYTES: '8192' }).webSockets).toMatchObject({
      maxInitBytes: 8192,
      maxMessageBytes: 8192,
    });
    expect(() => loadApiConfig({ LEASEHOLD_GRAPHQL_WS_MAX_MESSAGE_BYTES: '8192', LEASEHOLD_GRAPHQL_WS_MAX_INIT_BYTES: '16384' })).toThrow(
      'LEASEHOLD_GRAPHQL_WS_MAX_INIT_BYTES (16384) must not exceed LEASEHOLD_GRAPHQL_WS_MAX_MESSAGE_BYTES (8192)',
    );
  });
});
