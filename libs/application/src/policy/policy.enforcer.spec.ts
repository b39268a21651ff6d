import { describe, expect, it } from 'vitest';
import { isDomainError } from '#domain/index.js';
import { ACTIONS, DEFAULT_RULES } from './policy-defaults.js';
import { PolicyEnforcer } from './policy.enforcer.js';
import type { Credentials } from './policy-rule.js';

const who = (roles: string[], project = 'p1'): Credentials => ({ user_id: `u-${project}`, project_id: project, roles, is_admin: false });
const own = { project_id: 'p1', user_id: 'u-p1' };
const other = { project_id: 'p2', user_id: 'u-p2' };

describe('policy enforcer with upstream defaults', () => {
  const policy = PolicyEnforcer.fromRules();

  it.each([
    // action, roles, target, allowed
    [ACTIONS.leaseGet, ['reader'], own, true],
    [ACTIONS.leaseGet, ['reader'], other, false],
    [ACTIONS.leaseGet, ['member'], own, false], // Keystone's implied reader is added by the identity service
    [ACTIONS.leaseGet, ['member', 'reader'], own, true],
    [ACTIONS.leaseGet, [], own, false],
    [ACTIONS.leaseGet, ['admin'], other, true],
    [ACTIONS.leasePost, ['member'], own, true],
    [ACTIONS.leasePost, ['reader'], own, false],
    [ACTIONS.leasePut, ['member'], other, false],
    [ACTIONS.leaseDelete, ['member'], own, true],
    [ACTIONS.leaseDelete, ['admin'], other, true],
    [ACTIONS.hostGet, ['member', 'reader'], own, false],
    [ACTIONS.hostPost, ['admin'], own, true],
    [ACTIONS.hostAllocations, ['member'], own, false],
    [ACTIONS.propertiesGet, ['admin'], own, true],
    [ACTIONS.propertiesUpdate, ['member'], own, false],
    ['blazar:unknown:action', ['admin'], own, false],
  ])('%s for roles %j on %j: %s', (action, roles, target, expected) => {
    expect(policy.check(action, who(roles), target)).toBe(expected);
  });

  it('every action Leasehold checks has a default', () => {
    for (const action of Object.values(ACTIONS)) expect(DEFAULT_RULES[action], action).toBeDefined();
  });

  it("authorize throws upstream's PolicyNotAuthorized (403)", () => {
    let thrown: unknown;
    try {
      policy.authorize(ACTIONS.leaseGet, who(['reader']), other);
    } catch (error) {
      thrown = error;
    }
    expect(isDomainError(thrown) && thrown.kind).toBe('forbidden');
    expect((thrown as Error).message).toBe("Policy doesn't allow blazar:leases:get to be performed");
  });
});

describe('policy overrides', () => {
  it('a rule from the file replaces the default; rules it names are resolved with the defaults', () => {
    const policy = PolicyEnforcer.fromRules({ 'blazar:oshosts:get': 'rule:project_reader_or_admin', 'blazar:leases:delete': 'rule:admin' });
    expect(policy.check(ACTIONS.hostGet, who(['reader']), own)).toBe(true);
    expect(policy.check(ACTIONS.leaseDelete, who(['member']), own)).toBe(false);
    expect(policy.check(ACTIONS.leasePost, who(['member']), own)).toBe(true);
  });

  it('redefining `admin` changes who is admin everywhere', () => {
    const policy = PolicyEnforcer.fromRules({ admin: 'role:cloud-admin' });
    expect(policy.check(ACTIONS.hostPost, who(['admin']), own)).toBe(false);
    expect(policy.check(ACTIONS.hostPost, who(['cloud-admin']), own)).toBe(true);
  });

  it('`default` applies to actions without a rule', () => {
    expect(PolicyEnforcer.fromRules({ default: '@' }).check('blazar:unknown:action', who([]), own)).toBe(true);
  });

  it("upstream's API name patch_resource_properties is accepted for update_resource_properties", () => {
    const policy = PolicyEnforcer.fromRules({ 'blazar:oshosts:patch_resource_properties': 'role:member' });
    expect(policy.check(ACTIONS.propertiesUpdate, who(['member']), own)).toBe(true);
    const both = PolicyEnforcer.fromRules({ 'blazar:oshosts:patch_resource_properties': 'role:member', [ACTIONS.propertiesUpdate]: '!' });
    expect(both.check(ACTIONS.propertiesUpdate, who(['member']), own)).toBe(false);
  });

  it('a syntax error or a cycle stops loading with the rule named', () => {
    expect(() => PolicyEnforcer.fromRules({ 'blazar:leases:get': 'role:admin or' }, 'policy file p.yaml')).toThrow(
      /policy file p.yaml: rule "blazar:leases:get": invalid policy rule "role:admin or": unexpected end/,
    );
    expect(() => PolicyEnforcer.fromRules({ a: 'rule:b', b: 'rule:a' })).toThrow(/cycle: a -> b -> a/);
  });
});
