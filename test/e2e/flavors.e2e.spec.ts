/**
 * `/v1/flavors`, the standalone flavor catalog (a Leasehold extension, see docs/compatibility.md),
 * against the running system: Nova's request and response shapes, Nova's checks as 400s in Blazar's
 * error body, 409 for a duplicate id or name, 404 for an unknown flavor, and a rebuild of the read
 * model that equals the live one. Every refused write is checked to leave the ledger unchanged.
 * Who may see and change flavors is in policy-matrix.e2e.spec.ts.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dumpReadModel } from '#projector/dump-read-model.js';
import { openReadModel, readModelDatabaseFromEnv } from '#read-model/index.js';
import { UUID, ledgerCount } from '../helpers/api-fixtures.js';
import { type JsonResponse, api } from '../helpers/http.js';
import { ROOT, type RunningSystem, startSystem } from '../helpers/system.js';

/** Nova's order (nova/api/openstack/compute/views/flavors.py), links left out, extra_specs last (2.61+). */
const FLAVOR_KEYS = [
  'id',
  'name',
  'ram',
  'disk',
  'swap',
  'OS-FLV-EXT-DATA:ephemeral',
  'OS-FLV-DISABLED:disabled',
  'vcpus',
  'os-flavor-access:is_public',
  'rxtx_factor',
  'extra_specs',
];

const blazarError = (status: number, message: string | RegExp) => ({
  error_code: status,
  error_message: typeof message === 'string' ? message : expect.stringMatching(message),
  error_name: status,
});

let counter = 0;
/** A valid flavor body with a name of its own. */
const flavorBody = (extra: Record<string, unknown> = {}) => ({
  name: `flavor-${++counter}-${randomUUID().slice(0, 8)}`,
  vcpus: 2,
  ram: 4096,
  disk: 20,
  ...extra,
});

describe('flavors (/v1/flavors)', () => {
  let system: RunningSystem;
  let client: ReturnType<typeof api>;

  beforeAll(async () => {
    system = await startSystem();
    client = api(system.url);
  });

  afterAll(async () => {
    await system?.stop();
  });

  afterEach((context) => {
    if (context.task.result?.state === 'fail') console.error(`system output (tail):\n${system?.output().slice(-6000)}`);
  });

  const describeBody = (response: JsonResponse): string => `${response.status} ${JSON.stringify(response.body)}`;

  const rejected = async (send: () => Promise<JsonResponse>, status: number, message: string | RegExp): Promise<void> => {
    const before = ledgerCount(system.dataDir);
    const response = await send();
    expect(response.status, describeBody(response)).toBe(status);
    expect(response.body).toEqual(blazarError(status, message));
    expect(ledgerCount(system.dataDir), 'a refused write must not append to the ledger').toBe(before);
  };

  const create = async (flavor: Record<string, unknown>) => {
    const response = await client.post('/v1/flavors', { flavor });
    expect(response.status, describeBody(response)).toBe(201);
    return response.body.flavor;
  };

  describe('create, list, show, delete', () => {
    it("POST with only the required fields: Nova's defaults, a new UUID id, Nova's key order", async () => {
      const body = flavorBody();
      const response = await client.post('/v1/flavors', { flavor: body });
      expect(response.status, describeBody(response)).toBe(201);
      expect(response.headers.get('x-leasehold-position')).toMatch(/^\d+$/);
      expect(Object.keys(response.body)).toEqual(['flavor']);
      const flavor = response.body.flavor;
      expect(Object.keys(flavor)).toEqual(FLAVOR_KEYS);
      expect(flavor).toEqual({
        id: expect.stringMatching(UUID),
        name: body.name,
        ram: 4096,
        disk: 20,
        swap: '',
        'OS-FLV-EXT-DATA:ephemeral': 0,
        'OS-FLV-DISABLED:disabled': false,
        vcpus: 2,
        'os-flavor-access:is_public': true,
        rxtx_factor: 1,
        extra_specs: {},
      });
      const shown = await client.get(`/v1/flavors/${flavor.id}`);
      expect(shown.status).toBe(200);
      expect(shown.body).toEqual({ flavor });
      expect(Object.keys(shown.body.flavor)).toEqual(FLAVOR_KEYS);
      const listed = await client.get('/v1/flavors');
      expect(listed.status).toBe(200);
      expect(Object.keys(listed.body)).toEqual(['flavors']);
      expect(listed.body.flavors).toContainEqual(flavor);
    });

    it("POST with every field; int-like strings and Nova's boolean words are accepted; extra specs keep their order", async () => {
      const body = flavorBody({
        id: 'gpu.large_1',
        vcpus: '8',
        ram: ' 16384 ',
        disk: 0,
        'OS-FLV-EXT-DATA:ephemeral': '10',
        swap: 512,
        rxtx_factor: '1.5',
        'os-flavor-access:is_public': 'False',
        extra_specs: { 'resources:VGPU': '1', 'hw:cpu_policy': 'dedicated', 'trait:CUSTOM_GPU': 'required' },
      });
      const flavor = await create(body);
      expect(flavor).toEqual({
        id: 'gpu.large_1',
        name: body.name,
        ram: 16384,
        disk: 0,
        swap: 512,
        'OS-FLV-EXT-DATA:ephemeral': 10,
        'OS-FLV-DISABLED:disabled': false,
        vcpus: 8,
        'os-flavor-access:is_public': false,
        rxtx_factor: 1.5,
        extra_specs: { 'resources:VGPU': '1', 'hw:cpu_policy': 'dedicated', 'trait:CUSTOM_GPU': 'required' },
      });
      const shown = (await client.get('/v1/flavors/gpu.large_1')).body.flavor;
      expect(shown).toEqual(flavor);
      expect(Object.keys(shown.extra_specs)).toEqual(['resources:VGPU', 'hw:cpu_policy', 'trait:CUSTOM_GPU']);
      // the admin (auth none) sees private flavors too
      expect((await client.get('/v1/flavors')).body.flavors).toContainEqual(flavor);
    });

    it('an integer id is stored as its decimal string; ids with spaces and dots work in paths', async () => {
      const numeric = await create(flavorBody({ id: 42 }));
      expect(numeric.id).toBe('42');
      expect((await client.get('/v1/flavors/42')).body.flavor).toEqual(numeric);
      const spaced = await create(flavorBody({ id: 'm1 tiny.2' }));
      expect((await client.get('/v1/flavors/m1%20tiny.2')).body.flavor).toEqual(spaced);
      expect((await client.post('/v1/flavors', { flavor: flavorBody({ id: null }) })).body.flavor.id).toMatch(UUID);
    });

    it('lists flavors by id', async () => {
      for (const id of ['zz-3', 'zz-1', 'zz-2']) await create(flavorBody({ id }));
      const ids = (await client.get('/v1/flavors')).body.flavors.map((f: { id: string }) => f.id);
      expect(ids).toEqual([...ids].sort((a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)));
      expect(ids.filter((id: string) => id.startsWith('zz-'))).toEqual(['zz-1', 'zz-2', 'zz-3']);
    });

    it('DELETE answers 204; the flavor is gone, and its id and name are free again', async () => {
      const id = `del-${randomUUID()}`;
      const body = flavorBody({ id });
      await create(body);
      const response = await fetch(`${system.url}/v1/flavors/${id}`, { method: 'DELETE' });
      expect(response.status).toBe(204);
      expect(await response.text()).toBe('');
      expect(response.headers.get('x-leasehold-position')).toMatch(/^\d+$/);
      const shown = await client.get(`/v1/flavors/${id}`);
      expect(shown.status).toBe(404);
      expect(shown.body).toEqual(blazarError(404, `Flavor ${id} could not be found.`));
      expect((await client.get('/v1/flavors')).body.flavors.map((f: { id: string }) => f.id)).not.toContain(id);
      await create(body);
    });

    it("unknown flavors: GET and DELETE answer 404 in Nova's words", async () => {
      const response = await client.get('/v1/flavors/no-such-flavor');
      expect(response.status).toBe(404);
      expect(response.body).toEqual(blazarError(404, 'Flavor no-such-flavor could not be found.'));
      await rejected(() => client.delete('/v1/flavors/no-such-flavor'), 404, 'Flavor no-such-flavor could not be found.');
    });

    it('a duplicate id or name is refused (409), whatever else differs', async () => {
      const existing = await create(flavorBody({ id: `dup-${randomUUID()}` }));
      await rejected(
        () => client.post('/v1/flavors', { flavor: flavorBody({ id: existing.id }) }),
        409,
        `Flavor with ID ${existing.id} already exists.`,
      );
      await rejected(
        () => client.post('/v1/flavors', { flavor: { ...flavorBody(), name: existing.name, vcpus: 1 } }),
        409,
        `Flavor with name ${existing.name} already exists.`,
      );
      const numeric = await create(flavorBody({ id: 4242 }));
      await rejected(
        () => client.post('/v1/flavors', { flavor: flavorBody({ id: '4242' }) }),
        409,
        `Flavor with ID ${numeric.id} already exists.`,
      );
    });
  });

  describe('request validation: a 400 with a clear message, nothing written', () => {
    const malformed = (field: string, why = '') => `Malformed parameter ${field}${why}`;
    const ID_RULE = ': an integer, or 1 to 255 letters, digits, ". _-", not starting or ending with a space';
    const SPECS_RULE = ': an object of strings (keys of 1 to 255 letters, digits, "-_:. "; values of at most 255 characters)';
    const cases: readonly (readonly [string, unknown, string])[] = [
      ['empty body', {}, 'Missing parameter flavor'],
      ['null flavor', { flavor: null }, 'Missing parameter flavor'],
      ['flavor not an object', { flavor: 'm1.small' }, 'Malformed parameter flavor: a JSON object is required'],
      ['flavor a list', { flavor: [] }, 'Malformed parameter flavor: a JSON object is required'],
      ['body a list', [], 'Malformed request body: a JSON object is required'],
      ['empty flavor', { flavor: {} }, 'Missing parameter name'],
      ['no vcpus', { flavor: { name: 'x', ram: 1, disk: 1 } }, 'Missing parameter vcpus'],
      ['no ram', { flavor: { name: 'x', vcpus: 1, disk: 1 } }, 'Missing parameter ram'],
      ['no disk', { flavor: { name: 'x', vcpus: 1, ram: 1 } }, 'Missing parameter disk'],
      ['name not a string', { flavor: flavorBody({ name: 5 }) }, malformed('name')],
      ['empty name', { flavor: flavorBody({ name: '' }) }, malformed('name', ' (must not be empty or blank)')],
      ['blank name', { flavor: flavorBody({ name: '   ' }) }, malformed('name', ' (must not be empty or blank)')],
      ['name too long', { flavor: flavorBody({ name: 'n'.repeat(256) }) }, malformed('name')],
      ['vcpus 0', { flavor: flavorBody({ vcpus: 0 }) }, malformed('vcpus', ' (must be an integer >= 1)')],
      ['vcpus 1.5', { flavor: flavorBody({ vcpus: 1.5 }) }, malformed('vcpus', ' (must be an integer >= 1)')],
      ['vcpus "two"', { flavor: flavorBody({ vcpus: 'two' }) }, malformed('vcpus', ' (must be an integer >= 1)')],
      [
        'vcpus beyond a safe integer',
        { flavor: flavorBody({ vcpus: '99999999999999999999' }) },
        malformed('vcpus', ' (must be an integer >= 1)'),
      ],
      [
        "vcpus beyond Nova's 32-bit column",
        { flavor: flavorBody({ vcpus: 2 ** 31 }) },
        malformed('vcpus', ' (must be an integer <= 2147483647)'),
      ],
      ['ram 0', { flavor: flavorBody({ ram: 0 }) }, malformed('ram', ' (must be an integer >= 1)')],
      ['ram 1e308', { flavor: flavorBody({ ram: 1e308 }) }, malformed('ram', ' (must be an integer >= 1)')],
      ['ram true', { flavor: flavorBody({ ram: true }) }, malformed('ram', ' (must be an integer >= 1)')],
      ['disk -1', { flavor: flavorBody({ disk: -1 }) }, malformed('disk', ' (must be an integer >= 0)')],
      [
        'ephemeral -1',
        { flavor: flavorBody({ 'OS-FLV-EXT-DATA:ephemeral': -1 }) },
        malformed('OS-FLV-EXT-DATA:ephemeral', ' (must be an integer >= 0)'),
      ],
      ['swap -1', { flavor: flavorBody({ swap: -1 }) }, malformed('swap', ' (must be an integer >= 0)')],
      ['swap "big"', { flavor: flavorBody({ swap: 'big' }) }, malformed('swap', ' (must be an integer >= 0)')],
      ['rxtx_factor 0', { flavor: flavorBody({ rxtx_factor: 0 }) }, malformed('rxtx_factor', ' (must be > 0)')],
      ['rxtx_factor "fast"', { flavor: flavorBody({ rxtx_factor: 'fast' }) }, malformed('rxtx_factor', ' (must be a number > 0)')],
      [
        'rxtx_factor beyond a 32-bit float',
        { flavor: flavorBody({ rxtx_factor: '9'.repeat(400) }) },
        malformed('rxtx_factor', ' (must be a number <= 3.40282e+38)'),
      ],
      [
        'is_public "maybe"',
        { flavor: flavorBody({ 'os-flavor-access:is_public': 'maybe' }) },
        malformed('os-flavor-access:is_public', ' (must be true or false)'),
      ],
      [
        'is_public 1',
        { flavor: flavorBody({ 'os-flavor-access:is_public': 1 }) },
        malformed('os-flavor-access:is_public', ' (must be true or false)'),
      ],
      ['id with a slash', { flavor: flavorBody({ id: 'a/b' }) }, malformed('id', ID_RULE)],
      ['id with a leading space', { flavor: flavorBody({ id: ' a' }) }, malformed('id', ID_RULE)],
      ['empty id', { flavor: flavorBody({ id: '' }) }, malformed('id', ID_RULE)],
      ['negative id', { flavor: flavorBody({ id: -1 }) }, malformed('id', ID_RULE)],
      ['fractional id', { flavor: flavorBody({ id: 1.5 }) }, malformed('id', ID_RULE)],
      ['id too long', { flavor: flavorBody({ id: 'i'.repeat(256) }) }, malformed('id', ID_RULE)],
      ['extra_specs a list', { flavor: flavorBody({ extra_specs: [] }) }, malformed('extra_specs', SPECS_RULE)],
      ['extra_specs a string', { flavor: flavorBody({ extra_specs: 'hw:cpu_policy=dedicated' }) }, malformed('extra_specs', SPECS_RULE)],
      ['extra spec value a number', { flavor: flavorBody({ extra_specs: { 'resources:VGPU': 1 } }) }, malformed('extra_specs', SPECS_RULE)],
      ['extra spec key with a slash', { flavor: flavorBody({ extra_specs: { 'a/b': 'x' } }) }, malformed('extra_specs', SPECS_RULE)],
      ['extra spec value too long', { flavor: flavorBody({ extra_specs: { a: 'v'.repeat(256) } }) }, malformed('extra_specs', SPECS_RULE)],
    ];

    it.each(cases)('%s', async (_name, body, message) => {
      await rejected(() => client.post('/v1/flavors', body), 400, message);
    });

    it('a body that is not JSON', async () => {
      await rejected(() => client.post('/v1/flavors', '{"flavor": {'), 400, /JSON/);
    });
  });

  describe('read model', () => {
    it('a rebuild from the log equals the live flavor table', async () => {
      expect((await client.get('/v1/flavors')).status).toBe(200);
      const target = join(system.dataDir, 'rebuilt-read-model.sqlite');
      const rebuild = await new Promise<{ code: number; output: string }>((resolve) => {
        execFile(
          process.execPath,
          [join(ROOT, 'dist/apps/projector/src/rebuild.js'), '--target', target],
          { env: { ...process.env, LEASEHOLD_DATA_DIR: system.dataDir }, timeout: 60_000 },
          (error, stdout, stderr) => resolve({ code: error === null ? 0 : 1, output: `${stdout}${stderr}` }),
        );
      });
      expect(rebuild.code, rebuild.output).toBe(0);
      const live = await openReadModel(readModelDatabaseFromEnv(system.dataDir));
      const rebuilt = await openReadModel({ kind: 'sqlite', file: target });
      try {
        const [liveDump, rebuiltDump] = [await dumpReadModel(live), await dumpReadModel(rebuilt)];
        expect(liveDump.lh_flavors?.length).toBeGreaterThan(0);
        expect(rebuiltDump.lh_flavors).toEqual(liveDump.lh_flavors);
      } finally {
        await live.close();
        await rebuilt.close();
      }
    });
  });
});
