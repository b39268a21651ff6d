import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StaticTokenAuthenticator, withImpliedRoles } from './static-tokens.js';

describe('static tokens', () => {
  const tokens = StaticTokenAuthenticator.fromDocument({
    'secret-a': { user_id: 'alice', project_id: 'project-a', roles: ['member'], user_name: 'Alice' },
    'secret-r': { user_id: 'rita', project_id: 'project-a', roles: ['reader'] },
    'secret-n': { user_id: 'nobody', project_id: 'project-a', roles: [] },
  });

  it('maps a known token to its identity, with the roles Keystone would imply', async () => {
    expect(await tokens.authenticate('secret-a')).toEqual({
      userId: 'alice',
      projectId: 'project-a',
      roles: ['member', 'reader'],
      userName: 'Alice',
      projectName: null,
      userDomainId: null,
      projectDomainId: null,
      isAdmin: false,
    });
    expect((await tokens.authenticate('secret-n'))?.roles).toEqual([]);
  });

  it('refuses unknown, empty and missing tokens', async () => {
    expect(await tokens.authenticate('secret-x')).toBeNull();
    expect(await tokens.authenticate('secret-a ')).toBeNull();
    expect(await tokens.authenticate('')).toBeNull();
    expect(await tokens.authenticate(undefined)).toBeNull();
  });

  it('implied roles: admin => member => reader, once each', () => {
    expect(withImpliedRoles(['admin'])).toEqual(['admin', 'member', 'reader']);
    expect(withImpliedRoles(['reader', 'Member'])).toEqual(['reader', 'Member']);
    expect(withImpliedRoles(['ops'])).toEqual(['ops']);
  });

  it.each([
    [[], 'expected an object'],
    [{ t: 'x' }, 'entry 1 must be an object'],
    [{ t: { project_id: 'p', roles: [] } }, 'entry 1: user_id must be a non-empty string'],
    [{ t: { user_id: 'u', project_id: 'p', roles: [] }, u: { user_id: 'u', project_id: '', roles: [] } }, 'entry 2: project_id'],
    [{ t: { user_id: 'u', project_id: 'p' } }, 'entry 1: roles must be a list'],
    [{ t: { user_id: 'u', project_id: 'p', roles: [1] } }, 'entry 1: roles must be a list'],
    [{ ' ': { user_id: 'u', project_id: 'p', roles: [] } }, 'entry 1: the token is empty'],
  ])('refuses %j: %s', (document, reason) => {
    expect(() => StaticTokenAuthenticator.fromDocument(document, 'tokens.json')).toThrow(`tokens file tokens.json: ${reason}`);
  });

  it('never prints a token when the file is malformed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'leasehold-tokens-'));
    try {
      const file = join(dir, 'tokens.json');
      writeFileSync(file, '{"very-secret-token": {"user_id": 1}');
      expect(() => StaticTokenAuthenticator.load(file)).toThrow(/is not valid JSON/);
      writeFileSync(file, '{"very-secret-token": {"user_id": 1, "project_id": "p", "roles": []}}');
      let message = '';
      try {
        StaticTokenAuthenticator.load(file);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toContain('entry 1: user_id');
      expect(message).not.toContain('very-secret-token');
      expect(() => StaticTokenAuthenticator.load(join(dir, 'missing.json'))).toThrow(/cannot be read/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
