import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { type RunningSystem, startSystem } from './system.js';

/** What a tokens file says of a token (LEASEHOLD_AUTH=static, docs/configuration.md). */
export interface TokenIdentity {
  readonly user_id: string;
  readonly project_id: string;
  readonly roles: readonly string[];
  readonly user_name?: string;
  readonly project_name?: string;
}

/** A test's callers by name, each with the token it sends. */
export type NamedIdentities = Readonly<Record<string, TokenIdentity & { readonly token: string }>>;

/** A tokens file in a folder of its own, and the environment that points a system at it. */
export interface StaticAuth {
  readonly env: Readonly<{ LEASEHOLD_AUTH: 'static'; LEASEHOLD_TOKENS_FILE: string }>;
  readonly file: string;
  /** Removes the file's folder. */
  remove(): void;
}

/** A tokens file of identities by token, as the API reads it. */
export const staticAuthByToken = (tokens: Readonly<Record<string, TokenIdentity>>): StaticAuth => {
  const dir = mkdtempSync(join(tmpdir(), 'leasehold-tokens-'));
  const file = join(dir, 'tokens.json');
  writeFileSync(file, JSON.stringify(tokens));
  return {
    env: { LEASEHOLD_AUTH: 'static', LEASEHOLD_TOKENS_FILE: file },
    file,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
};

/** A tokens file of a test's named callers, each under its token. */
export const staticAuth = (identities: NamedIdentities): StaticAuth =>
  staticAuthByToken(Object.fromEntries(Object.values(identities).map(({ token, ...identity }) => [token, identity])));

/** The system a suite's tests share, and its tokens file. */
export interface StaticAuthSuite {
  readonly system: RunningSystem;
  readonly tokens: StaticAuth;
}

/**
 * A suite run against one system with static tokens: it starts before the suite's tests (the identities' tokens and
 * `env`), stops after them and the tokens file goes; when a test fails, the end of the system's output is printed.
 */
export const staticAuthSuite = (identities: NamedIdentities, env: Readonly<Record<string, string>> = {}): StaticAuthSuite => {
  let running: RunningSystem | undefined;
  let auth: StaticAuth | undefined;
  beforeAll(async () => {
    auth = staticAuth(identities);
    running = await startSystem({ env: { ...auth.env, ...env } });
  });
  afterAll(async () => {
    await running?.stop();
    auth?.remove();
  });
  afterEach((context) => {
    if (context.task.result?.state === 'fail') console.error(`system output (tail):\n${running?.output().slice(-6000)}`);
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the suite system is started in beforeAll');
    return value;
  };
  return {
    get system() {
      return started(running);
    },
    get tokens() {
      return started(auth);
    },
  };
};
