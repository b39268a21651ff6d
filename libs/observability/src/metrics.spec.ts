import { describe, expect, it } from 'vitest';
import { metricsConfigFromEnv, refuseMetrics, sharedReading, watchWindowMsFromEnv } from './metrics.js';

describe('who may read /metrics', () => {
  it('is open on loopback and asks a token elsewhere by default', () => {
    expect(metricsConfigFromEnv({}, '127.0.0.1').access).toEqual({ kind: 'open' });
    expect(metricsConfigFromEnv({}, '::1').access).toEqual({ kind: 'open' });
    expect(metricsConfigFromEnv({}, '0.0.0.0').access).toEqual({ kind: 'token', token: null });
    expect(metricsConfigFromEnv({}, '10.0.0.5').access).toEqual({ kind: 'token', token: null });
  });

  it('asks the configured token everywhere, and is switched off or made public on request', () => {
    expect(metricsConfigFromEnv({ LEASEHOLD_METRICS_TOKEN: ' s3 ' }, '127.0.0.1').access).toEqual({ kind: 'token', token: 's3' });
    expect(metricsConfigFromEnv({ LEASEHOLD_METRICS: 'off', LEASEHOLD_METRICS_TOKEN: 's3' }, '0.0.0.0').access).toEqual({ kind: 'off' });
    expect(metricsConfigFromEnv({ LEASEHOLD_METRICS: 'public' }, '0.0.0.0').access).toEqual({ kind: 'open' });
    expect(() => metricsConfigFromEnv({ LEASEHOLD_METRICS: 'yes' }, '127.0.0.1')).toThrow(
      "LEASEHOLD_METRICS must be on, off or public, got 'yes'",
    );
  });

  it('lets a request through only with the token', () => {
    const access = { kind: 'token', token: 's3' } as const;
    expect(refuseMetrics(access, 'Bearer s3')).toBeNull();
    expect(refuseMetrics(access, 'bearer  s3')).toBeNull();
    expect(refuseMetrics(access, 'Bearer s4')?.status).toBe(401);
    expect(refuseMetrics(access, 'Bearer s33')?.status).toBe(401);
    expect(refuseMetrics(access, undefined)?.status).toBe(401);
    expect(refuseMetrics({ kind: 'token', token: null }, 'Bearer anything')?.status).toBe(403);
    expect(refuseMetrics({ kind: 'off' }, undefined)?.status).toBe(404);
    expect(refuseMetrics({ kind: 'open' }, undefined)).toBeNull();
  });
});

describe('the freepool watch window', () => {
  it('is 24 hours unless set, and must be a positive number of hours', () => {
    expect(watchWindowMsFromEnv({})).toBe(86_400_000);
    expect(watchWindowMsFromEnv({ LEASEHOLD_FREEPOOL_WATCH_HOURS: '1.5' })).toBe(5_400_000);
    for (const bad of ['0', '-1', 'a day', '9000'])
      expect(() => watchWindowMsFromEnv({ LEASEHOLD_FREEPOOL_WATCH_HOURS: bad })).toThrow(/LEASEHOLD_FREEPOOL_WATCH_HOURS must be/);
  });
});

describe('a reading shared by the gauges of one scrape', () => {
  it('reads once for the callers that ask while it is pending, and afresh afterwards', async () => {
    let reads = 0;
    const reading = sharedReading(async () => ++reads);
    expect(await Promise.all([reading(), reading(), reading()])).toEqual([1, 1, 1]);
    expect(await reading()).toBe(2);
  });
});
