import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readTlsFiles, tlsFilesFromEnv, tlsFromEnv } from './tls.js';

const dir = mkdtempSync(join(tmpdir(), 'leasehold-tls-spec-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('tlsFilesFromEnv', () => {
  it('is plain HTTP when neither is set (or both are blank)', () => {
    expect(tlsFilesFromEnv({})).toBeNull();
    expect(tlsFilesFromEnv({ LEASEHOLD_TLS_CERT_FILE: ' ', LEASEHOLD_TLS_KEY_FILE: '' })).toBeNull();
    expect(tlsFromEnv({})).toBeUndefined();
  });

  it('takes both paths', () => {
    expect(tlsFilesFromEnv({ LEASEHOLD_TLS_CERT_FILE: '/etc/c.pem', LEASEHOLD_TLS_KEY_FILE: '/etc/k.pem' })).toEqual({
      certFile: '/etc/c.pem',
      keyFile: '/etc/k.pem',
    });
  });

  it('refuses one without the other, naming both', () => {
    expect(() => tlsFilesFromEnv({ LEASEHOLD_TLS_CERT_FILE: '/etc/c.pem' })).toThrow(
      'LEASEHOLD_TLS_CERT_FILE is set but LEASEHOLD_TLS_KEY_FILE is not',
    );
    expect(() => tlsFilesFromEnv({ LEASEHOLD_TLS_KEY_FILE: '/etc/k.pem' })).toThrow(
      'LEASEHOLD_TLS_KEY_FILE is set but LEASEHOLD_TLS_CERT_FILE is not',
    );
  });
});

describe('readTlsFiles', () => {
  it('names the variable of a file it cannot read', () => {
    expect(() => readTlsFiles({ certFile: join(dir, 'none.pem'), keyFile: join(dir, 'none.key') })).toThrow(
      /^LEASEHOLD_TLS_CERT_FILE: cannot read .*none\.pem \(ENOENT\)$/,
    );
  });

  it('refuses files that hold no PEM certificate and key', () => {
    writeFileSync(join(dir, 'junk.pem'), 'not a certificate');
    expect(() => readTlsFiles({ certFile: join(dir, 'junk.pem'), keyFile: join(dir, 'junk.pem') })).toThrow(
      /^LEASEHOLD_TLS_CERT_FILE and LEASEHOLD_TLS_KEY_FILE must hold a PEM certificate and its private key: /,
    );
  });
});
