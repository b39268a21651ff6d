import { describe, expect, it } from 'vitest';
import { type Credentials, type Rule, type Target, evaluate, parseRule } from './policy-rule.js';

const member: Credentials = { user_id: 'u1', project_id: 'p1', roles: ['member', 'reader'], is_admin: false };
const admin: Credentials = { user_id: 'u0', project_id: 'p0', roles: ['Admin'], is_admin: false };
const local: Credentials = { user_id: 'u9', project_id: 'p9', roles: [], is_admin: true };
const own: Target = { project_id: 'p1', user_id: 'u1' };
const other: Target = { project_id: 'p2', user_id: 'u2' };

const named: Record<string, string> = {
  admin: 'is_admin:True or role:admin',
  owner: 'project_id:%(project_id)s',
  admin_or_owner: 'rule:admin or rule:owner',
};
const lookup = (name: string): Rule | undefined => (named[name] === undefined ? undefined : parseRule(named[name]));
const check = (rule: string, credentials: Credentials, target: Target = own): boolean =>
  evaluate(parseRule(rule), credentials, target, lookup);

describe('policy rule language (oslo.policy)', () => {
  it.each([
    ['@', true],
    ['!', false],
    ['', true],
    ['role:member', true],
    ['role:MEMBER', true],
    ['role:admin', false],
    ['project_id:%(project_id)s', true],
    ['user_id:%(user_id)s', true],
    ['project_id:p1', true],
    ['project_id:p2', false],
    ['is_admin:True', false],
    ['is_admin:False', true],
    ['not role:admin', true],
    ['role:member and project_id:%(project_id)s', true],
    ['role:admin or role:member', true],
    ['role:admin and role:member', false],
    ['not (role:admin or role:member)', false],
    ['(role:admin or role:member) and not project_id:p2', true],
    ['rule:owner', true],
    ['rule:admin_or_owner', true],
    ['rule:undefined', false],
    ["'p1':%(project_id)s", true],
    ["'p2':%(project_id)s", false],
    ['roles:reader', true],
    ['domain_id:d1', false],
    ['project_id:%(missing)s', false],
  ])('%j for a project member on its own project: %s', (rule, expected) => {
    expect(check(rule, member)).toBe(expected);
  });

  it('keywords are case-insensitive and bind not > and > or', () => {
    // a or (b and c): true through a even though c is false
    expect(check('role:member OR role:admin AND project_id:p2', member)).toBe(true);
    // (not a) and b
    expect(check('NOT role:admin And role:member', member)).toBe(true);
    expect(check('not role:member or role:reader', member)).toBe(true);
    expect(check('not (role:member or role:reader)', member)).toBe(false);
  });

  it('parentheses glued to checks and nested', () => {
    expect(check('((role:admin) or (role:member and (project_id:%(project_id)s)))', member)).toBe(true);
    expect(check('((role:admin) or (role:member and (project_id:%(project_id)s)))', member, other)).toBe(false);
  });

  it('is_admin:True matches the local operator, role:admin any admin-role holder', () => {
    expect(check('rule:admin', local, other)).toBe(true);
    expect(check('rule:admin', admin, other)).toBe(true);
    expect(check('rule:admin', member, other)).toBe(false);
    expect(check('rule:admin_or_owner', member, other)).toBe(false);
  });

  it('role checks may take the role from the target', () => {
    expect(check('role:%(role)s', member, { role: 'reader' })).toBe(true);
    expect(check('role:%(role)s', member, { role: 'admin' })).toBe(false);
  });

  it.each([
    ['role:admin or', 'unexpected end'],
    ['(role:admin', 'missing )'],
    ['role:admin)', 'unexpected ")"'],
    ['admin', 'is not a check'],
    ['role:', 'is not a check'],
    ['and role:admin', 'unexpected "and"'],
    ['role:a role:b', 'unexpected "role:b"'],
    ['http://example.com/check', 'http checks are not supported'],
  ])('%j is refused: %s', (rule, reason) => {
    expect(() => parseRule(rule)).toThrow(reason);
  });
});
