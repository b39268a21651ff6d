import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A throwaway CA and a certificate it signed for 127.0.0.1 and localhost, as PEM files in a temp folder. */
export interface TestCertificates {
  readonly dir: string;
  readonly caFile: string;
  readonly certFile: string;
  readonly keyFile: string;
}

// Python's ssl (the openstack CLI) checks strictly: the CA's key usage, the leaf's SAN and authority key id
const SERVER_EXTENSIONS = [
  'basicConstraints=critical,CA:FALSE',
  'keyUsage=critical,digitalSignature,keyEncipherment',
  'extendedKeyUsage=serverAuth',
  'subjectAltName=IP:127.0.0.1,DNS:localhost',
  'subjectKeyIdentifier=hash',
  'authorityKeyIdentifier=keyid',
].join('\n');

const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** Made with the real `openssl`, the way an operator makes a private CA. */
export const makeTestCertificates = (): TestCertificates => {
  const dir = mkdtempSync(join(tmpdir(), 'leasehold-tls-'));
  const file = (name: string): string => join(dir, name);
  const openssl = (...args: string[]): void => void execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ca = ['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'];
  openssl('req', '-x509', ...EC_KEY, ...ca, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Leasehold test CA');
  openssl('req', '-new', ...EC_KEY, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1');
  writeFileSync(file('server.ext'), SERVER_EXTENSIONS);
  openssl(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    'server.ext',
    '-out',
    'server.pem',
  );
  return { dir, caFile: file('ca.pem'), certFile: file('server.pem'), keyFile: file('server.key') };
};
