import { describe, expect, it } from 'vitest';
import { freepoolWatchConfigFromEnv } from './freepool-watch.config.js';

describe('the freepool watch configuration', () => {
  it('looks every minute at the next 24 hours for at least one free host, unless told otherwise', () => {
    expect(freepoolWatchConfigFromEnv({})).toEqual({ checkMs: 60_000, windowMs: 86_400_000, minFreeHosts: 1 });
    expect(
      freepoolWatchConfigFromEnv({
        LEASEHOLD_FREEPOOL_WATCH_SECONDS: '0',
        LEASEHOLD_FREEPOOL_WATCH_HOURS: '6',
        LEASEHOLD_FREEPOOL_MIN_FREE_HOSTS: '3',
      }),
    ).toEqual({
      checkMs: 0,
      windowMs: 21_600_000,
      minFreeHosts: 3,
    });
  });

  it('refuses a setting that cannot be meant, naming it', () => {
    expect(() => freepoolWatchConfigFromEnv({ LEASEHOLD_FREEPOOL_MIN_FREE_HOSTS: '0' })).toThrow(
      'LEASEHOLD_FREEPOOL_MIN_FREE_HOSTS must be at least 1',
    );
    expect(() => freepoolWatchConfigFromEnv({ LEASEHOLD_FREEPOOL_MIN_FREE_HOSTS: 'two' })).toThrow(
      'LEASEHOLD_FREEPOOL_MIN_FREE_HOSTS must be a non-negative integer',
    );
    expect(() => freepoolWatchConfigFromEnv({ LEASEHOLD_FREEPOOL_WATCH_SECONDS: '-5' })).toThrow(
      'LEASEHOLD_FREEPOOL_WATCH_SECONDS must be a non-negative integer',
    );
  });
});
