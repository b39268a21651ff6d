import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';

/** LEASEHOLD_TLS_CERT_FILE and LEASEHOLD_TLS_KEY_FILE: PEM files, the certificate (chain first) and its private key. */
export interface TlsFiles {
  readonly certFile: string;
  readonly keyFile: string;
}

/** What node:https takes as `key` and `cert`. */
export interface TlsCredentials {
  readonly key: Buffer;
  readonly cert: Buffer;
}

const CERT = 'LEASEHOLD_TLS_CERT_FILE';
const KEY = 'LEASEHOLD_TLS_KEY_FILE';

const setting = (value: string | undefined): string | null => (value === undefined || value.trim() === '' ? null : value.trim());

/** Both variables or neither: one alone would serve plain HTTP where the operator asked for TLS. */
export const tlsFilesFromEnv = (env: NodeJS.ProcessEnv): TlsFiles | null => {
  const certFile = setting(env[CERT]);
  const keyFile = setting(env[KEY]);
  if (certFile === null && keyFile === null) return null;
  if (certFile === null) throw new Error(`${KEY} is set but ${CERT} is not: set both for TLS, or neither for plain HTTP`);
  if (keyFile === null) throw new Error(`${CERT} is set but ${KEY} is not: set both for TLS, or neither for plain HTTP`);
  return { certFile, keyFile };
};

const readPem = (name: string, path: string): Buffer => {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new Error(`${name}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
};

/** Reads both files and refuses, naming the variables, a pair that node:tls would not serve with. */
export const readTlsFiles = (files: TlsFiles): TlsCredentials => {
  const credentials = { cert: readPem(CERT, files.certFile), key: readPem(KEY, files.keyFile) };
  try {
    createSecureContext(credentials);
  } catch (error) {
    throw new Error(`${CERT} and ${KEY} must hold a PEM certificate and its private key: ${(error as Error).message}`);
  }
  return credentials;
};

/** The credentials the environment names, read; undefined for plain HTTP. */
export const tlsFromEnv = (env: NodeJS.ProcessEnv): TlsCredentials | undefined => {
  const files = tlsFilesFromEnv(env);
  return files === null ? undefined : readTlsFiles(files);
};

/** A process's health-port certificate, read before anything opens: a wrong setting is reported, then the process exits 1. */
export const healthTlsOrExit = (env: NodeJS.ProcessEnv, report: (error: unknown) => void): TlsCredentials | undefined => {
  try {
    return tlsFromEnv(env);
  } catch (error) {
    report(error);
    process.exit(1);
  }
};
