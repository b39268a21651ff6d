/**
 * Chameleon's python-blazarclient fork (branch chameleoncloud/2023.1, `openstack reservation network ...`) against
 * the running system, unchanged: segments registered, listed, shown, updated, their properties, a lease holding one,
 * its dates changed, refusals. A recording proxy between the client and Leasehold keeps every request the client
 * sent; they must equal test/contract/fixtures/chameleon-network-client.json, which the contract test replays
 * without Python (LEASEHOLD_TEST_CHAMELEON_FIXTURE=write rewrites it from this run).
 *
 * Needs LEASEHOLD_TEST_CHAMELEON_CLIENT: the site directory scripts/chameleon-client.sh prints for a checkout of
 * the fork (README.md, Network reservations).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TIMESTAMP, T_DATE, UUID, ledgerCount, tDate } from '../helpers/api-fixtures.js';
import { CHAMELEON_CLIENT_SITE, chameleonLibrary, chameleonOpenstack } from '../helpers/chameleon-client.js';
import { chameleonReads } from '../helpers/chameleon-reads.js';
import {
  type ExchangeFixture,
  type ExchangeRecorder,
  daysAhead,
  missingKeys,
  startRecorder,
  toFixture,
} from '../helpers/client-exchanges.js';
import { type CliResult, failed, parseJson, parseLease, succeeded } from '../helpers/cli.js';
import { api } from '../helpers/http.js';
import { ROOT, type RunningSystem, startSystem } from '../helpers/system.js';

const FIXTURE = join(ROOT, 'test', 'contract', 'fixtures', 'chameleon-network-client.json');
const CLIENT = 'python-blazarclient, ChameleonCloud fork, branch chameleoncloud/2023.1 (6ee1340)';

describe.skipIf(CHAMELEON_CLIENT_SITE === '')(
  "Chameleon's python-blazarclient fork on network segments and reservations (needs LEASEHOLD_TEST_CHAMELEON_CLIENT)",
  // each CLI call starts Python and the openstack client: seconds each on a busy machine
  { timeout: 180_000 },
  () => {
    let system: RunningSystem;
    let recorder: ExchangeRecorder;
    /** The dates this run sent, each with its fixture placeholder. */
    const dates = new Map<string, string>();
    const segments: Record<string, string> = {};

    const date = (days: number, time: string): string => {
      const literal = daysAhead(days, time);
      dates.set(literal, `{{day+${days} ${time}}}`);
      return literal;
    };
    const [start, end] = [date(2, '10:00'), date(2, '12:00')];
    const [movedStart, movedEnd, prolongedEnd] = [date(2, '09:00'), date(2, '13:00'), date(2, '14:00')];

    const osc = (...args: string[]): Promise<CliResult> => {
      recorder.command(`openstack reservation ${args.join(' ')}`);
      return chameleonOpenstack(recorder.url, ...args);
    };
    const library = (manager: string, method: string, ...args: string[]): Promise<CliResult> => {
      recorder.command(`python: client.${manager}.${method}(${args.map((arg) => `'${arg}'`).join(', ')})`);
      return chameleonLibrary(recorder.url, manager, method, ...args);
    };

    beforeAll(async () => {
      system = await startSystem();
      recorder = await startRecorder(system.url);
    });

    afterAll(async () => {
      await recorder?.stop();
      await system?.stop();
    });

    afterEach((context) => {
      if (context.task.result?.state === 'fail') console.error(`system output (tail):\n${system?.output().slice(-6000)}`);
    });

    it('network create registers a VLAN segment, with extra capabilities', async () => {
      const created = parseJson(
        await osc('network', 'create', '--network-type', 'vlan', '--physical-network', 'physnet1', '--segment', '150', '-f', 'json'),
      );
      // cliff prints None as ""
      expect(created).toEqual({
        created_at: expect.stringMatching(TIMESTAMP),
        updated_at: '',
        id: expect.stringMatching(UUID),
        network_type: 'vlan',
        physical_network: 'physnet1',
        segment_id: 150,
      });
      segments.vlan150 = created.id;
      const args = ['--network-type', 'vlan', '--physical-network', 'physnet1', '--segment', '151', '--extra', 'stitch=exogeni'];
      const other = parseJson(await osc('network', 'create', ...args, '-f', 'json'));
      expect(other).toMatchObject({ segment_id: 151, stitch: 'exogeni' });
      segments.vlan151 = other.id;
    });

    it('network list prints every segment, sorted by segment id', async () => {
      const listed = parseJson(await osc('network', 'list', '-f', 'json'));
      expect(listed).toEqual([
        { id: segments.vlan150, network_type: 'vlan', physical_network: 'physnet1', segment_id: 150 },
        { id: segments.vlan151, network_type: 'vlan', physical_network: 'physnet1', segment_id: 151 },
      ]);
    });

    it("network show: the fork's command takes no id (its bug); the call it makes answers the segment", async () => {
      expect(failed(await osc('network', 'show', segments.vlan150 ?? ''))).toContain(
        `openstack reservation network show: error: unrecognized arguments: ${segments.vlan150}`,
      );
      const shown = parseJson(await library('network', 'get', segments.vlan150 ?? ''));
      expect(shown).toEqual({
        created_at: expect.stringMatching(TIMESTAMP),
        updated_at: null,
        id: segments.vlan150,
        network_type: 'vlan',
        physical_network: 'physnet1',
        segment_id: 150,
      });
    });

    it('network set --extra adds and changes capabilities; network unset --extra removes one', async () => {
      const id = segments.vlan150 ?? '';
      expect(succeeded(await osc('network', 'set', id, '--extra', 'stitch=none', '--extra', 'color=blue'))).toBe(`Updated network: ${id}`);
      expect(parseJson(await library('network', 'get', id))).toMatchObject({
        stitch: 'none',
        color: 'blue',
        updated_at: expect.stringMatching(TIMESTAMP),
      });
      expect(succeeded(await osc('network', 'unset', id, '--extra', 'color'))).toBe(`Updated network: ${id}`);
      const shown = parseJson(await library('network', 'get', id));
      expect(shown.stitch).toBe('none');
      expect(shown).not.toHaveProperty('color');
    });

    it('network property list, --detail, set --private and --public, show', async () => {
      expect(parseJson(await osc('network', 'property', 'list', '-f', 'json'))).toContainEqual({ property: 'stitch' });
      const detailed = parseJson(await osc('network', 'property', 'list', '--detail', '-f', 'json'));
      const stitch = detailed.find((row: { property: string }) => row.property === 'stitch');
      expect({ ...stitch, property_values: [...stitch.property_values].sort() }).toEqual({
        property: 'stitch',
        private: false,
        property_values: ['exogeni', 'none'],
      });

      expect(succeeded(await osc('network', 'property', 'set', 'stitch', '--private'))).toBe('Updated network property: stitch');
      const publicOnly = parseJson(await osc('network', 'property', 'list', '-f', 'json'));
      expect(publicOnly).not.toContainEqual({ property: 'stitch' });
      expect(succeeded(await osc('network', 'property', 'set', 'stitch', '--public'))).toBe('Updated network property: stitch');
      const shown = parseJson(await osc('network', 'property', 'show', 'stitch', '-f', 'json'));
      expect({ ...shown, property_values: [...shown.property_values].sort() }).toEqual({
        property: 'stitch',
        private: false,
        property_values: ['exogeni', 'none'],
      });
    });

    it('lease create with a network reservation: the segment query is sent as typed, the reservation shows it', async () => {
      const reservation = 'resource_type=network,network_name=mynet,network_properties=["==","$physical_network","physnet1"]';
      const lease = parseLease(
        await osc('lease', 'create', '--reservation', reservation, '--start-date', start, '--end-date', end, 'lease1', '-f', 'json'),
      );
      expect(lease).toMatchObject({ name: 'lease1', status: 'PENDING', start_date: tDate(start), end_date: tDate(end) });
      expect(lease.reservations).toEqual([
        {
          created_at: expect.stringMatching(TIMESTAMP),
          updated_at: expect.stringMatching(TIMESTAMP),
          id: expect.stringMatching(UUID),
          lease_id: lease.id,
          resource_id: expect.stringMatching(UUID),
          resource_type: 'network',
          status: 'pending',
          missing_resources: false,
          resources_changed: false,
          network_name: 'mynet',
          network_description: '',
          network_properties: '["==","$physical_network","physnet1"]',
          resource_properties: '',
          before_end: 'default',
          network_id: null,
          end_action: 'delete_network',
        },
      ]);
    });

    it('lease show by name prints the network fields', async () => {
      const lease = parseLease(await osc('lease', 'show', 'lease1', '-f', 'json'));
      expect(lease.reservations[0]).toMatchObject({
        resource_type: 'network',
        network_name: 'mynet',
        network_properties: '["==","$physical_network","physnet1"]',
        network_id: null,
      });
    });

    it('network allocation list and the allocation of one segment: the lease holds segment 150 (first in the fixed order)', async () => {
      const lease = parseLease(await osc('lease', 'show', 'lease1', '-f', 'json'));
      const held = [{ id: lease.reservations[0].id, lease_id: lease.id, start_date: tDate(start), end_date: tDate(end) }];
      // sorted by resource_id, the segments' random ids
      const listed = parseJson(await osc('network', 'allocation', 'list', '-f', 'json'));
      expect(listed).toHaveLength(2);
      expect(listed).toContainEqual({ resource_id: segments.vlan150, reservations: held });
      expect(listed).toContainEqual({ resource_id: segments.vlan151, reservations: [] });
      expect(failed(await osc('network', 'allocation', 'show', segments.vlan150 ?? ''))).toContain(
        `openstack reservation network allocation show: error: unrecognized arguments: ${segments.vlan150}`,
      );
      expect(parseJson(await library('network', 'get_allocation', segments.vlan150 ?? ''))).toEqual({
        resource_id: segments.vlan150,
        reservations: held,
      });
    });

    it("network delete of a reserved segment is refused with Blazar's message, and writes nothing", async () => {
      const before = ledgerCount(system.dataDir);
      const result = await osc('network', 'delete', segments.vlan150 ?? '');
      expect(result.code).toBe(1);
      expect(failed(result)).toContain(`ERROR: Can't delete network ${segments.vlan150}. The network is reserved.`);
      expect(ledgerCount(system.dataDir)).toBe(before);
    });

    it('lease set moves both dates, then --prolong-for adds to the end the client read', async () => {
      expect(succeeded(await osc('lease', 'set', 'lease1', '--start-date', movedStart, '--end-date', movedEnd))).toBe(
        'Updated lease: lease1',
      );
      const moved = parseLease(await osc('lease', 'show', 'lease1', '-f', 'json'));
      expect([moved.start_date, moved.end_date]).toEqual([tDate(movedStart), tDate(movedEnd)]);
      expect(succeeded(await osc('lease', 'set', 'lease1', '--prolong-for', '1h'))).toBe('Updated lease: lease1');
      const prolonged = parseLease(await osc('lease', 'show', 'lease1', '-f', 'json'));
      expect([prolonged.start_date, prolonged.end_date]).toEqual([tDate(movedStart), tDate(prolongedEnd)]);
      expect(prolonged.end_date).toMatch(T_DATE);
    });

    it('lease delete frees the segment; network delete then removes both segments', async () => {
      expect(succeeded(await osc('lease', 'delete', 'lease1'))).toBe('Deleted lease: lease1');
      expect(parseJson(await osc('lease', 'list', '-f', 'json'))).toEqual([]);
      for (const id of [segments.vlan150 ?? '', segments.vlan151 ?? '']) {
        expect(succeeded(await osc('network', 'delete', id))).toBe(`Deleted network: ${id}`);
      }
      expect(parseJson(await osc('network', 'list', '-f', 'json'))).toEqual([]);
    });

    it('every answer carries what the fork reads from it, and the requests are the contract fixture', () => {
      const exchanges = [...recorder.exchanges];
      for (const [index, exchange] of exchanges.entries()) {
        const where = `${index}: ${exchange.method} ${exchange.path} (${exchange.command})`;
        expect(missingKeys(exchange.answer, chameleonReads(exchange)), where).toEqual([]);
      }
      const fixture: ExchangeFixture = {
        client: CLIENT,
        recordedBy: 'test/e2e/chameleon-network-client.e2e.spec.ts',
        exchanges: toFixture(exchanges, dates, chameleonReads),
      };
      const text = `${JSON.stringify(fixture, null, 2)}\n`;
      if (process.env.LEASEHOLD_TEST_CHAMELEON_FIXTURE === 'write') writeFileSync(FIXTURE, text);
      // a difference: the client (or this test) now sends other requests; LEASEHOLD_TEST_CHAMELEON_FIXTURE=write records them
      expect(text).toBe(readFileSync(FIXTURE, 'utf8'));
    });

    it("a flat segment (registered over HTTP; the fork cannot) has no segment id, and the fork's default sort cannot order it", async () => {
      const client = api(system.url);
      const flat = await client.post('/v1/networks', { network_type: 'flat', physical_network: 'physnet2', segment_id: null });
      expect(flat.status).toBe(201);
      await osc('network', 'create', '--network-type', 'vlan', '--physical-network', 'physnet1', '--segment', '152');
      // Python 3 cannot compare None with a number; Chameleon has no flat segments, so its segment ids are all numbers
      expect(failed(await osc('network', 'list')).join('\n')).toMatch(
        /'<' not supported between instances of '(NoneType|int)' and '(NoneType|int)'/,
      );
      const byId = parseJson(await osc('network', 'list', '--sort-by', 'id', '-f', 'json'));
      // cliff prints None as ""
      expect(byId).toContainEqual({ id: flat.body.network.id, network_type: 'flat', physical_network: 'physnet2', segment_id: '' });
    });
  },
);
