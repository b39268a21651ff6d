import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { AppModule } from '../app.module.js';
import { loadApiConfig } from '../config.js';
import { OpenApiController } from '../openapi/openapi.controller.js';
import { routesOf } from '../openapi/routes.js';
import { PATH_PARAMETERS, QUERY_PARAMETERS, RouteParametersPipe, checkPathParameter, checkQueryParameter } from './route-parameters.js';
import { refusal } from './testing/request-tables.js';

const LEASE = '3f0b6a52-1c1e-4d7e-9a43-0d1f6e2b7a01';

/** Values no path parameter may be: the pipe answers each with the resource's own 404. */
const NEVER_AN_ID = ['\u0000', 'x\u0000', '\u007f', '\u0085', '\ud800', '', ' ', 'a'.repeat(300)];

describe("path parameters: a value that cannot be an id is the resource's 404, before any lookup", () => {
  const notFound = (name: string, value: unknown) => refusal(() => checkPathParameter(name, value));

  it.each([
    ['leaseId', LEASE, ['no-such-lease', `${LEASE}x`, LEASE.replaceAll('-', ''), '../etc', '1']],
    ['hostId', '17', ['0', '01', '-1', '1.0', '1e3', 'host-1', '9'.repeat(17)]],
    ['floatingIpId', LEASE.toUpperCase(), ['172.24.4.1', 'fip']],
    ['flavorId', 'm1.small', [' m1', 'a/b', 'é']],
    ['name', 'gpu', ['k'.repeat(65)]],
    ['asset', 'swagger-ui.css', ['..', '../package.json', '.hidden']],
  ] as const)('%s: accepts %s, refuses hostile values', (name, valid, invalid) => {
    expect(checkPathParameter(name, valid)).toBe(valid);
    for (const value of [...NEVER_AN_ID, ...invalid]) expect(notFound(name, value).status, `${name} = ${JSON.stringify(value)}`).toBe(404);
  });

  it("answers in each resource's words, with what was refused escaped as Python prints it", () => {
    expect(notFound('leaseId', 'x\u0000')).toEqual({ status: 404, message: "Object with {'lease_id': 'x\\x00'} not found" });
    expect(notFound('hostId', 'h\u0085')).toEqual({ status: 404, message: "Object with {'host_id': 'h\\x85'} not found" });
    expect(notFound('floatingIpId', 'fip')).toEqual({ status: 404, message: 'Floating IP fip not found.' });
    expect(notFound('flavorId', '\ud800')).toEqual({ status: 404, message: 'Flavor \\ud800 could not be found.' });
    expect(notFound('name', '\u0007')).toEqual({ status: 404, message: 'Resource property \\x07 not found' });
    expect(notFound('asset', '..')).toEqual({ status: 404, message: 'The resource could not be found.' });
  });

  it('a parameter nobody wrote a rule for is a programming error, not a pass', () => {
    expect(() => checkPathParameter('leaseID', LEASE)).toThrow('path parameter leaseID has no rule in route-parameters.ts');
    expect(() => checkQueryParameter('lease', LEASE)).toThrow('query parameter lease has no rule in route-parameters.ts');
  });
});

describe('query parameters', () => {
  it('absent stays absent; filters are ids; flags any text; none given twice', () => {
    expect(checkQueryParameter('lease_id', undefined)).toBeUndefined();
    expect(checkQueryParameter('reservation_id', LEASE)).toBe(LEASE);
    expect(checkQueryParameter('detail', 'True')).toBe('True');
    expect(refusal(() => checkQueryParameter('lease_id', 'lease-1'))).toEqual({
      status: 400,
      message: 'Malformed parameter lease_id (must be a lease id, a UUID)',
    });
    expect(refusal(() => checkQueryParameter('reservation_id', 'x\u0000')).message).toBe(
      'Malformed parameter reservation_id (must be a reservation id, a UUID)',
    );
    expect(refusal(() => checkQueryParameter('detail', ['1', '2']))).toEqual({
      status: 400,
      message: 'Malformed parameter detail (must be given once)',
    });
    expect(refusal(() => checkQueryParameter('all', '\u0000')).message).toBe('Malformed parameter all');
  });
});

describe('RouteParametersPipe: every route is covered', () => {
  const controllers = [...(AppModule.forRoot(loadApiConfig({})).controllers ?? []), OpenApiController];
  const routes = routesOf(controllers);

  it('every path and query parameter of every route has a rule', () => {
    expect(routes.length).toBeGreaterThan(20);
    const path = routes.flatMap((route) => route.pathParameters);
    const query = routes.flatMap((route) => route.queryParameters);
    expect(path).toEqual(expect.arrayContaining(['leaseId', 'hostId', 'floatingIpId', 'flavorId', 'name', 'asset']));
    for (const name of path) expect(Object.hasOwn(PATH_PARAMETERS, name), name).toBe(true);
    for (const name of query) expect(Object.hasOwn(QUERY_PARAMETERS, name), name).toBe(true);
  });

  it('checks params and queries, and leaves bodies to the input boundary and the DTOs', () => {
    const pipe = new RouteParametersPipe();
    expect(refusal(() => pipe.transform('%00', { type: 'param', data: 'leaseId' })).status).toBe(404);
    expect(refusal(() => pipe.transform('x', { type: 'query', data: 'lease_id' })).status).toBe(400);
    const body = { name: 'anything' };
    expect(pipe.transform(body, { type: 'body' })).toBe(body);
  });
});
