import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Authenticator, Identity } from './identity.js';
import { describeError } from '#domain/index.js';

/**
 * Auth mode `static`: a JSON file maps each token to who it is,
 *
 *   { "<token>": { "user_id": "...", "project_id": "...", "roles": ["member"],
 *                  "user_name": "optional", "project_name": "optional" }, ... }
 *
 * Roles imply others as Keystone's defaults do (admin implies member, member implies reader), so a
 * token listed with ["member"] behaves like a Keystone member token. Tokens never appear in error
 * messages or logs (entries are named by their position).
 */
export class StaticTokensError extends Error {
  constructor(file: string, reason: string) {
    super(`tokens file ${file}: ${reason}`);
    this.name = 'StaticTokensError';
  }
}

/** Keystone's default implied roles (`keystone-manage bootstrap`): admin => member => reader. */
const IMPLIED: Readonly<Record<string, readonly string[]>> = { admin: ['member', 'reader'], member: ['reader'] };

export const withImpliedRoles = (roles: readonly string[]): string[] => {
  const result = [...roles];
  for (const role of roles) {
    for (const implied of IMPLIED[role.toLowerCase()] ?? []) if (!result.some((r) => r.toLowerCase() === implied)) result.push(implied);
  }
  return result;
};

const digest = (token: string): string => createHash('sha256').update(token).digest('hex');

const optionalString = (value: unknown, field: string, where: string, file: string): string | null => {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new StaticTokensError(file, `${where}: ${field} must be a string`);
  return value;
};

const requiredString = (value: unknown, field: string, where: string, file: string): string => {
  if (typeof value !== 'string' || value.trim() === '') throw new StaticTokensError(file, `${where}: ${field} must be a non-empty string`);
  return value;
};

const identityOf = (entry: unknown, where: string, file: string): Identity => {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) throw new StaticTokensError(file, `${where} must be an object`);
  const fields = entry as Record<string, unknown>;
  const roles = fields.roles;
  if (!Array.isArray(roles) || roles.some((role) => typeof role !== 'string' || role === '')) {
    throw new StaticTokensError(file, `${where}: roles must be a list of role names (may be empty)`);
  }
  return {
    userId: requiredString(fields.user_id, 'user_id', where, file),
    projectId: requiredString(fields.project_id, 'project_id', where, file),
    roles: withImpliedRoles(roles as string[]),
    userName: optionalString(fields.user_name, 'user_name', where, file),
    projectName: optionalString(fields.project_name, 'project_name', where, file),
    userDomainId: optionalString(fields.user_domain_id, 'user_domain_id', where, file),
    projectDomainId: optionalString(fields.project_domain_id, 'project_domain_id', where, file),
    isAdmin: false,
  };
};

export class StaticTokenAuthenticator implements Authenticator {
  private constructor(private readonly identities: ReadonlyMap<string, Identity>) {}

  static fromDocument(document: unknown, file = '(inline)'): StaticTokenAuthenticator {
    if (document === null || typeof document !== 'object' || Array.isArray(document)) {
      throw new StaticTokensError(file, 'expected an object mapping tokens to {user_id, project_id, roles}');
    }
    const identities = new Map<string, Identity>();
    Object.entries(document).forEach(([token, entry], index) => {
      const where = `entry ${index + 1}`;
      if (token.trim() === '') throw new StaticTokensError(file, `${where}: the token is empty`);
      identities.set(digest(token), identityOf(entry, where, file));
    });
    return new StaticTokenAuthenticator(identities);
  }

  static load(file: string): StaticTokenAuthenticator {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new StaticTokensError(file, `cannot be read (${describeError(error)})`);
    }
    let document: unknown;
    try {
      document = JSON.parse(text);
    } catch {
      throw new StaticTokensError(file, 'is not valid JSON');
    }
    return StaticTokenAuthenticator.fromDocument(document, file);
  }

  get size(): number {
    return this.identities.size;
  }

  async authenticate(token: string | undefined): Promise<Identity | null> {
    if (token === undefined || token === '') return null;
    return this.identities.get(digest(token)) ?? null;
  }
}
