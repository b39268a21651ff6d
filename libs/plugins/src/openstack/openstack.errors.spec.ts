import { describe, expect, it } from 'vitest';
import {
  OpenStackConflictError,
  OpenStackHttpError,
  OpenStackNotFoundError,
  createHttpError,
  ignoreNotFound,
  parseErrorBody,
} from './openstack.errors.js';
import { requestIdFor } from './openstack.session.js';

const site = { service: 'placement', method: 'PUT', path: '/resource_providers/x/inventories', globalRequestId: 'req-1' } as const;
const reply = (status: number, cloudCode: string | null = null) => ({ status, cloudMessage: 'm', cloudCode, requestId: null });

/** Error bodies as the Zed services of scripts/services/openstack answered them. */
describe('parseErrorBody', () => {
  it('reads Nova\'s {"<kind>": {"message", "code"}}', () => {
    expect(parseErrorBody('{"itemNotFound": {"code": 404, "message": "Aggregate 99999 could not be found."}}')).toEqual({
      message: 'Aggregate 99999 could not be found.',
      code: null,
    });
  });

  it("reads Placement's errors list, without its generic first paragraph, and its code", () => {
    const body = JSON.stringify({
      errors: [
        {
          status: 409,
          title: 'Conflict',
          code: 'placement.concurrent_update',
          request_id: 'req-x',
          detail: 'There was a conflict when trying to complete your request.\n\n resource provider generation conflict  ',
        },
      ],
    });
    expect(parseErrorBody(body)).toEqual({ message: 'resource provider generation conflict', code: 'placement.concurrent_update' });
  });

  it("reads Neutron's NeutronError type as the code", () => {
    const body =
      '{"NeutronError": {"type": "IpAddressAlreadyAllocated", "message": "IP address 172.24.4.50 already allocated in subnet s", "detail": ""}}';
    expect(parseErrorBody(body)).toEqual({
      message: 'IP address 172.24.4.50 already allocated in subnet s',
      code: 'IpAddressAlreadyAllocated',
    });
  });

  it("reads Keystone's error object", () => {
    expect(
      parseErrorBody('{"error": {"code": 401, "title": "Unauthorized", "message": "The request you have made requires authentication."}}')
        .message,
    ).toBe('The request you have made requires authentication.');
  });

  it("reads Glance's message without its HTML line breaks", () => {
    expect(
      parseErrorBody('{"message": "No image found with ID abc<br /><br />\\n\\n\\n", "code": "404 Not Found", "title": "Not Found"}'),
    ).toEqual({ message: 'No image found with ID abc', code: null });
  });

  it('keeps the words of a text or HTML answer', () => {
    expect(parseErrorBody('404 Not Found\n\nNo image found with ID abc<br /><br />\n')).toEqual({
      message: '404 Not Found No image found with ID abc',
      code: null,
    });
  });
});

describe('typed HTTP errors', () => {
  it('makes 404 a not-found and 409 a conflict, and only a generation conflict a generation conflict', () => {
    expect(createHttpError(site, reply(404))).toBeInstanceOf(OpenStackNotFoundError);
    const generation = createHttpError(site, reply(409, 'placement.concurrent_update'));
    expect(generation).toBeInstanceOf(OpenStackConflictError);
    expect((generation as OpenStackConflictError).isGenerationConflict).toBe(true);
    expect((createHttpError(site, reply(409, 'placement.inventory.inuse')) as OpenStackConflictError).isGenerationConflict).toBe(false);
    expect(createHttpError(site, reply(400))).toMatchObject({ code: 'OPENSTACK_BAD_REQUEST', transient: false });
  });

  it('counts 5xx and 429 as transient', () => {
    expect(createHttpError(site, reply(503)).transient).toBe(true);
    expect(createHttpError(site, reply(429)).transient).toBe(true);
    expect(createHttpError(site, reply(403))).toMatchObject({ code: 'OPENSTACK_FORBIDDEN', transient: false });
  });

  it('lets an idempotent delete treat not-found as done, and nothing else', async () => {
    expect(await ignoreNotFound(Promise.resolve())).toBe(true);
    expect(await ignoreNotFound(Promise.reject(createHttpError(site, reply(404))))).toBe(false);
    await expect(ignoreNotFound(Promise.reject(createHttpError(site, reply(409))))).rejects.toBeInstanceOf(OpenStackHttpError);
  });
});

describe('requestIdFor', () => {
  it('derives the same req-<uuid> from the same key, and another from another key', () => {
    const id = requestIdFor('lease-1/Lease.Started/physical:host');
    expect(id).toMatch(/^req-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(requestIdFor('lease-1/Lease.Started/physical:host')).toBe(id);
    expect(requestIdFor('lease-1/Lease.Ended/physical:host')).not.toBe(id);
  });
});
