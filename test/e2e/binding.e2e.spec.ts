import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort, runApiUntilExit as runApi } from '../helpers/system.js';

describe('listening address', () => {
  it('refuses to listen beyond loopback without authentication', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'leasehold-bind-'));
    try {
      const result = await runApi({
        LEASEHOLD_HOST: '0.0.0.0',
        LEASEHOLD_PORT: String(await freePort()),
        LEASEHOLD_DATA_DIR: dataDir,
        LEASEHOLD_AUTH: 'none',
      });
      expect(result.code).toBe(1);
      expect(result.output).toContain('Refusing to listen on 0.0.0.0 without authentication');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('authentication configuration', () => {
  it('keystone mode without LEASEHOLD_KEYSTONE_URL refuses to start rather than serve unauthenticated', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'leasehold-bind-'));
    try {
      const result = await runApi({
        LEASEHOLD_AUTH: 'keystone',
        LEASEHOLD_KEYSTONE_URL: '',
        LEASEHOLD_PORT: String(await freePort()),
        LEASEHOLD_DATA_DIR: dataDir,
      });
      expect(result.code).toBe(1);
      expect(result.output).toContain('LEASEHOLD_KEYSTONE_URL must be set when LEASEHOLD_AUTH=keystone');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
