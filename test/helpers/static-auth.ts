import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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
