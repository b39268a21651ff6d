import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { DomainError } from '#domain/index.js';
import { OpenStackNoEndpointError, OpenStackUnreachableError, createHttpError, trustBody, trustRefusal } from '#plugins/openstack/index.js';
import { CallerToken } from '#application/caller-token.js';
import { STATUS_BY_KIND } from '../http/blazar-error.js';
import { wireMessage } from '../http/wire-names.js';

const site = {
  service: 'identity',
  method: 'POST',
  path: '/OS-TRUST/trusts',
  globalRequestId: 'req-00000000-0000-4000-8000-000000000000',
} as const;
const refused = (status: number, cloudMessage = 'nope') =>
  createHttpError(site, { status, cloudMessage, cloudCode: null, requestId: null });
/** What the API answers for the refusal. */
const answer = (error: DomainError) => ({ status: STATUS_BY_KIND[error.kind], message: wireMessage(error) });

describe('a lease trust request', () => {
  it("delegates the caller's roles on its project to the service user, impersonating, as upstream's body", () => {
    expect(trustBody({ trustorUserId: 'u-1', projectId: 'p-1', roles: ['member', 'reader', 'member'] }, 'svc-1')).toEqual({
      trust: {
        trustor_user_id: 'u-1',
        trustee_user_id: 'svc-1',
        project_id: 'p-1',
        impersonation: true,
        roles: [{ name: 'member' }, { name: 'reader' }],
      },
    });
  });

  it.each([
    [401, 401],
    [403, 403],
    [400, 400],
    [404, 400],
    [409, 400],
  ])("Keystone's %i refusal answers %i with its message", (status, expected) => {
    expect(answer(trustRefusal(refused(status, 'Could not find role: x')))).toEqual({
      status: expected,
      message: `Keystone refused the lease's trust (HTTP ${status}): Could not find role: x`,
    });
  });

  it.each([
    ['a 5xx', refused(503, 'down')],
    ['a 429', refused(429, 'slow down')],
    ['no answer', new OpenStackUnreachableError(site, 'http://keystone.test/v3/OS-TRUST/trusts', new Error('ECONNREFUSED'))],
    ['no endpoint', new OpenStackNoEndpointError('identity', 'public', null)],
  ])('%s is 503: nothing was recorded, the caller may retry', (_, error) => {
    const { status, message } = answer(trustRefusal(error));
    expect(status).toBe(503);
    expect(message).toMatch(/^Keystone is unavailable, nothing was changed; try again later \(creating the lease's trust: /);
  });
});

describe('the caller token', () => {
  it('shows only a placeholder in JSON, strings and logs', () => {
    const token = new CallerToken('gAAAAA-secret');
    // eslint-disable-next-line @typescript-eslint/restrict-template-expressions -- what a template literal shows of it is the point
    const shown = [JSON.stringify({ token }), String(token), `${token}`, inspect({ token }), inspect(token, { showHidden: true })].join(
      ' ',
    );
    expect(shown).not.toContain('secret');
    expect(token.reveal()).toBe('gAAAAA-secret');
  });
});
