/**
 * Native TLS (LEASEHOLD_TLS_CERT_FILE, LEASEHOLD_TLS_KEY_FILE): the built system with a certificate
 * from a CA made here with the real `openssl`, checked by the real curl and the real `openstack` CLI
 * (`--os-cacert`), on the API and on the health ports of the projector, the reactor and the publisher.
 */
import { execFile } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSystem, freePort, runApiUntilExit, startSystem } from '../helpers/system.js';
import { type TestCertificates, makeTestCertificates } from '../helpers/tls.js';

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

const run = (command: string, args: readonly string[]): Promise<Run> =>
  new Promise((resolve) => {
    execFile(command, args, { timeout: 60_000, env: { ...process.env, OS_CLOUD: '' } }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr }),
    );
  });

/** `curl` answering the status on its last line; exit code 60 is a certificate it could not verify. */
const curl = (...args: string[]): Promise<Run> => run('curl', ['-sS', '--max-time', '20', '-w', '\n%{http_code}', ...args]);

const statusOf = (result: Run): string => result.stdout.trim().split('\n').at(-1) ?? '';

const bodyOf = (result: Run): any => JSON.parse(result.stdout.trim().split('\n').slice(0, -1).join('\n'));

describe('native TLS on the API and the health ports', () => {
  let certificates: TestCertificates;
  let system: RunningSystem;
  let publisherHealthUrl: string;

  beforeAll(async () => {
    certificates = makeTestCertificates();
    const publisherHealthPort = await freePort();
    system = await startSystem({
      env: {
        LEASEHOLD_TLS_CERT_FILE: certificates.certFile,
        LEASEHOLD_TLS_KEY_FILE: certificates.keyFile,
        // gives the publisher work, so that the launcher runs it and its health port
        LEASEHOLD_WEBHOOKS: 'on',
        LEASEHOLD_PUBLISHER_HEALTH_PORT: String(publisherHealthPort),
      },
    });
    publisherHealthUrl = `https://127.0.0.1:${publisherHealthPort}`;
    await system.healthy();
  });

  afterAll(async () => {
    await system?.stop();
    if (certificates !== undefined) rmSync(certificates.dir, { recursive: true, force: true });
  });

  it('answers curl over HTTPS with a certificate the CA vouches for, links https, and says https in its log', async () => {
    expect(system.url).toBe(`https://127.0.0.1:${system.port}`);
    const versions = await curl('--cacert', certificates.caFile, `${system.url}/`);
    expect(versions.stderr).toBe('');
    expect(statusOf(versions)).toBe('300');
    // what keystoneauth's discovery follows: the scheme the request came in with
    expect(bodyOf(versions).versions[0].links[0].href).toBe(`${system.url}/v1`);
    const leases = await curl('--cacert', certificates.caFile, `${system.url}/v1/leases`);
    expect(statusOf(leases)).toBe('200');
    expect(bodyOf(leases)).toEqual({ leases: [] });
    expect(system.output()).toContain(`"listening":"https://127.0.0.1:${system.port}"`);
  });

  it('is refused by a client that does not trust the CA, and refuses plain HTTP', async () => {
    const untrusted = await curl(`${system.url}/v1/leases`);
    expect(untrusted.code).toBe(60);
    const plain = await curl(`http://127.0.0.1:${system.port}/v1/leases`);
    expect(plain.code).not.toBe(0);
    expect(statusOf(plain)).toBe('000');
  });

  it('lists leases through the real openstack CLI given --os-cacert', async () => {
    const osc = (...extra: string[]) =>
      run('/usr/bin/openstack', [
        '--os-auth-type',
        'none',
        '--os-endpoint',
        `${system.url}/v1`,
        ...extra,
        'reservation',
        'lease',
        'list',
        '-f',
        'json',
      ]);
    const trusted = await osc('--os-cacert', certificates.caFile);
    expect(trusted.stderr).toBe('');
    expect(trusted.code).toBe(0);
    expect(JSON.parse(trusted.stdout)).toEqual([]);
    const untrusted = await osc();
    expect(untrusted.code).not.toBe(0);
    expect(untrusted.stderr).toMatch(/SSL|certificate/i);
  });

  it('acknowledges a GraphQL WebSocket over wss (the upgrade rides the HTTPS server)', async () => {
    const socket = new WebSocket(`${system.url.replace('https', 'wss')}/graphql`, 'graphql-transport-ws', {
      ca: readFileSync(certificates.caFile),
    });
    try {
      const first = new Promise<string>((resolve, reject) => {
        socket.once('message', (data) => resolve((JSON.parse((data as Buffer).toString()) as { type: string }).type));
        socket.once('error', reject);
      });
      await new Promise<void>((resolve, reject) => socket.once('open', () => resolve()).once('error', reject));
      socket.send(JSON.stringify({ type: 'connection_init', payload: {} }));
      expect(await first).toBe('connection_ack');
    } finally {
      socket.close();
    }
  });

  it('serves the projector, reactor and publisher probes over HTTPS only', async () => {
    for (const url of [system.projectorHealthUrl, system.reactorHealthUrl, publisherHealthUrl]) {
      expect(url).toMatch(/^https:/);
      const healthz = await curl('--cacert', certificates.caFile, `${url}/healthz`);
      expect(statusOf(healthz), url).toBe('200');
      expect(bodyOf(healthz).status).toBe('ok');
      const plain = await curl(url.replace('https:', 'http:') + '/healthz');
      expect(plain.code, url).not.toBe(0);
    }
    expect(system.output()).toContain(`"url":"${system.projectorHealthUrl}"`);
  });
});

describe('the API refuses to start on a half or unreadable TLS setting', () => {
  let certificates: TestCertificates;

  beforeAll(() => {
    certificates = makeTestCertificates();
  });

  afterAll(() => rmSync(certificates.dir, { recursive: true, force: true }));

  it.each([
    [
      'a certificate without its key',
      { LEASEHOLD_TLS_CERT_FILE: 'CERT' },
      /LEASEHOLD_TLS_CERT_FILE is set but LEASEHOLD_TLS_KEY_FILE is not/,
    ],
    [
      'a key without its certificate',
      { LEASEHOLD_TLS_KEY_FILE: 'KEY' },
      /LEASEHOLD_TLS_KEY_FILE is set but LEASEHOLD_TLS_CERT_FILE is not/,
    ],
    [
      'a missing key file',
      { LEASEHOLD_TLS_CERT_FILE: 'CERT', LEASEHOLD_TLS_KEY_FILE: 'MISSING' },
      /LEASEHOLD_TLS_KEY_FILE: cannot read .*ENOENT/,
    ],
    [
      'a key that is not the certificate',
      { LEASEHOLD_TLS_CERT_FILE: 'CERT', LEASEHOLD_TLS_KEY_FILE: 'CA_KEY' },
      /must hold a PEM certificate and its private key/,
    ],
  ])('%s: exits 1 naming the variable', async (_what, settings, message) => {
    const files: Record<string, string> = {
      CERT: certificates.certFile,
      KEY: certificates.keyFile,
      MISSING: join(certificates.dir, 'missing.key'),
      CA_KEY: join(certificates.dir, 'ca.key'),
    };
    const env = Object.fromEntries(Object.entries(settings).map(([name, file]) => [name, files[file] ?? file]));
    const { code, output } = await runApiUntilExit({
      ...env,
      LEASEHOLD_PORT: String(await freePort()),
      LEASEHOLD_DATA_DIR: certificates.dir,
    });
    expect(code).toBe(1);
    expect(output).toMatch(message);
  });
});
