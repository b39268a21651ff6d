import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { IDS, NETWORK, PROJECT, USER, sqlTime } from '../fixtures/blazar/blazar-fixture.js';
import { BLAZAR_ENGINES, type BlazarDatabase, type BlazarEngine } from '../fixtures/blazar/blazar-engines.js';
import { api } from '../helpers/http.js';
import { ROOT, type RunningSystem, eventually, startSystem } from '../helpers/system.js';

/**
 * `leasehold import-blazar` through the built CLI, then the built system on the imported data folder: every GET
 * answers what the Blazar fixture holds (ids, dates, statuses), as upstream shows them. Once per engine Blazar runs
 * on (SQLite; PostgreSQL and MariaDB when their test server is configured), from the one fixture.
 */
const MAIN = join(ROOT, 'dist/apps/cli/src/main.js');

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

const leasehold = (dataDir: string, ...args: string[]): Promise<Run> =>
  new Promise((resolve) => {
    // Blazar's dates are naive UTC: a CLI run in a zone off UTC by a fraction of an hour must not shift them
    const env = { ...process.env, LEASEHOLD_DATA_DIR: dataDir, LEASEHOLD_EVENT_STORE_URL: '', TZ: 'America/St_Johns' };
    execFile(process.execPath, [MAIN, ...args], { env, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
    });
  });

/** Blazar's lease dates: `%Y-%m-%dT%H:%M:%S.%f`. */
const blazarDate = (sqlText: string): string => `${sqlText.slice(0, 19).replace(' ', 'T')}.000000`;

const headOf = async (dataDir: string): Promise<number> => {
  const store = SqliteEventStore.openReadOnly({ file: join(dataDir, 'events.sqlite') });
  try {
    return await store.headPosition();
  } finally {
    await store.close();
  }
};

for (const engine of BLAZAR_ENGINES) {
  describe.skipIf(engine.server === '')(
    `leasehold import-blazar from ${engine.name}, then the system on what it imported`,
    { timeout: 120_000 },
    () => {
      let dir: string;
      let blazar: BlazarDatabase;
      let database: string;
      let fixture: BlazarDatabase['fixture'];
      let system: RunningSystem;
      let client: ReturnType<typeof api>;
      let imported: Run;

      const dataDir = () => join(dir, 'data');
      const row = (table: string, id: string) => fixture.inserts.find((i) => i.table === table && i.row.id === id)?.row ?? {};

      beforeAll(async () => {
        dir = mkdtempSync(join(tmpdir(), 'leasehold-import-blazar-'));
        blazar = await engine.create(dir);
        ({ fixture, url: database } = blazar);
        imported = await leasehold(dataDir(), 'import-blazar', '--database', database);
        system = await startSystem({ dataDir: dataDir() });
        client = api(system.url);
        await eventually(
          async () => ((await client.get('/v1/leases')).body.leases.length === 6 ? true : undefined),
          30_000,
          'the projector',
        );
      });

      afterAll(async () => {
        await system?.stop();
        await blazar?.drop();
        if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
      });

      it('imports and says what it wrote', () => {
        expect(imported.code, imported.stderr).toBe(0);
        expect(imported.stdout).toMatch(/^imported: 4 hosts, 2 floating IPs, 1 private properties, 6 leases: \d+ events$/m);
      });

      it('GET /v1/leases lists every lease with its id, project, dates and status', async () => {
        const leases = (await client.get('/v1/leases')).body.leases as any[];
        const status = Object.fromEntries(leases.map((l) => [l.id, l.status]));
        expect(status).toEqual({
          [IDS.hostLease]: 'PENDING',
          [IDS.instanceLease]: 'PENDING',
          [IDS.floatingIpLease]: 'PENDING',
          [IDS.activeLease]: 'ACTIVE',
          [IDS.endedLease]: 'TERMINATED',
          [IDS.degradedLease]: 'PENDING',
        });
        for (const lease of leases) {
          const source = row('leases', lease.id);
          expect(lease).toMatchObject({
            name: source.name,
            project_id: PROJECT,
            user_id: USER,
            trust_id: source.trust_id,
            start_date: blazarDate(String(source.start_date)),
            end_date: blazarDate(String(source.end_date)),
            created_at: String(source.created_at).replace(/\.000000$/, ''),
          });
        }
        expect(leases.find((l) => l.id === IDS.degradedLease).degraded).toBe(true);
      });

      it('GET /v1/leases/{id} shows the reservation and the events as Blazar had them', async () => {
        const lease = (await client.get(`/v1/leases/${IDS.hostLease}`)).body.lease;
        expect(lease.reservations).toEqual([
          expect.objectContaining({
            id: IDS.hostReservation,
            lease_id: IDS.hostLease,
            resource_id: row('computehost_reservations', `${IDS.hostReservation.slice(0, 30)}plugin`).id,
            resource_type: 'physical:host',
            status: 'pending',
            min: 1,
            max: 1,
            resource_properties: '["==", "$gpu", "true"]',
            before_end: 'default',
            missing_resources: false,
          }),
        ]);
        const events = Object.fromEntries(lease.events.map((e: any) => [e.event_type, [e.id, e.status, e.time]]));
        const prefix = IDS.hostLease.slice(0, 30);
        expect(events).toEqual({
          start_lease: [`${prefix}evst`, 'UNDONE', lease.start_date],
          end_lease: [`${prefix}even`, 'UNDONE', lease.end_date],
          before_end_lease: [`${prefix}evbe`, 'UNDONE', blazarDate(String(row('events', `${prefix}evbe`).time))],
        });
        const active = (await client.get(`/v1/leases/${IDS.activeLease}`)).body.lease;
        expect(active.reservations[0].status).toBe('active');
        expect(active.events.find((e: any) => e.event_type === 'start_lease').status).toBe('DONE');
        const ended = (await client.get(`/v1/leases/${IDS.endedLease}`)).body.lease;
        expect(ended.events.map((e: any) => e.status)).toEqual(['DONE', 'DONE', 'DONE']);
        expect(ended.reservations[0].status).toBe('deleted');
        const instances = (await client.get(`/v1/leases/${IDS.instanceLease}`)).body.lease.reservations[0];
        expect(instances).toMatchObject({
          id: IDS.instanceReservation,
          resource_type: 'virtual:instance',
          amount: 2,
          vcpus: 2,
          memory_mb: 2048,
          disk_gb: 10,
        });
        const addresses = (await client.get(`/v1/leases/${IDS.floatingIpLease}`)).body.lease.reservations[0];
        expect(addresses).toMatchObject({
          resource_type: 'virtual:floatingip',
          network_id: NETWORK,
          amount: 1,
          required_floatingips: ['172.24.4.100'],
        });
        const degraded = (await client.get(`/v1/leases/${IDS.degradedLease}`)).body.lease;
        expect(degraded).toMatchObject({
          degraded: true,
          reservations: [expect.objectContaining({ missing_resources: true, resources_changed: false })],
        });
      });

      it('GET /v1/os-hosts shows the hosts with their ids, zones, capabilities and reservable flags', async () => {
        const hosts = (await client.get('/v1/os-hosts')).body.hosts as any[];
        expect(hosts.map((h) => [h.id, h.hypervisor_hostname, h.availability_zone, h.reservable])).toEqual([
          ['1', 'compute-001', 'nova', true],
          ['2', 'compute-002', 'nova', true],
          ['3', 'compute-003', 'nova', true],
          ['4', 'compute-004', 'nova', false],
        ]);
        expect(hosts[0]).toMatchObject({ gpu: 'true', vcpus: 32, memory_mb: 131072, local_gb: 1000, hypervisor_version: 6002000 });
      });

      it('GET /v1/floatingips shows the addresses with their ids', async () => {
        const fips = (await client.get('/v1/floatingips')).body.floatingips as any[];
        expect(fips.map((f) => [f.id, f.floating_ip_address, f.floating_network_id, f.subnet_id]).sort()).toEqual([
          [IDS.floatingIp, '172.24.4.100', NETWORK, 'subnet-ext'],
          [IDS.spareFloatingIp, '172.24.4.101', NETWORK, 'subnet-ext'],
        ]);
      });

      it('GET /v1/os-hosts/allocations shows the allocations Blazar made', async () => {
        const allocations = (await client.get('/v1/os-hosts/allocations')).body.allocations as any[];
        const on = (hostId: string) => allocations.find((a) => a.resource_id === hostId)?.reservations.map((r: any) => r.id);
        expect(on('1')).toContain(IDS.hostReservation);
        expect(on('2')).toEqual([IDS.instanceReservation]);
        expect(on('3')).toEqual(expect.arrayContaining([IDS.activeReservation, IDS.degradedReservation]));
        expect(on('4')).toEqual([]);
        const hostLease = allocations.find((a) => a.resource_id === '1').reservations.find((r: any) => r.id === IDS.hostReservation);
        expect(hostLease).toEqual({
          id: IDS.hostReservation,
          lease_id: IDS.hostLease,
          start_date: blazarDate(sqlTime(fixture.now + 86_400_000)),
          end_date: blazarDate(sqlTime(fixture.now + 86_400_000 + 7_200_000)),
        });
      });

      it('leasehold verify: the read model the projector built from the imported log is the log replayed', async () => {
        const verified = await leasehold(dataDir(), 'verify');
        expect(verified.code, verified.stdout + verified.stderr).toBe(0);
        expect(verified.stdout).toMatch(/^ok: the live read model matches the log replayed/m);
      });

      it('a re-run of the same import, the service running, writes nothing', async () => {
        const before = await headOf(dataDir());
        const again = await leasehold(dataDir(), 'import-blazar', '--database', database);
        expect(again.code, again.stderr).toBe(0);
        expect(again.stdout).toMatch(/^already imported: /m);
        expect(again.stdout).toMatch(/^0 events written$/m);
        expect(await headOf(dataDir())).toBe(before);
      });
    },
  );
}

for (const engine of BLAZAR_ENGINES) {
  describe.skipIf(engine.server === '')(`leasehold import-blazar from ${engine.name} refusing`, { timeout: 60_000 }, () => {
    let dir: string;
    const created: BlazarDatabase[] = [];
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'leasehold-import-refused-'));
    });
    afterAll(async () => {
      await Promise.all(created.map((database) => database.drop()));
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    });

    const blazar = async (options: Parameters<BlazarEngine['create']>[1] = {}): Promise<string> => {
      const database = await engine.create(dir, options);
      created.push(database);
      return database.url;
    };

    it('--dry-run prints what would be imported and writes nothing', async () => {
      const data = join(dir, 'dry-data');
      const result = await leasehold(data, 'import-blazar', '--database', await blazar(), '--dry-run');
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/^would import: 4 hosts, 2 floating IPs, 1 private properties, 6 leases/m);
      expect(result.stdout).toContain(`lease ${IDS.activeLease} "lease-now" ACTIVE`);
      expect(result.stdout).toContain('host 4 compute-004 (zone nova, not reservable');
      expect(existsSync(data)).toBe(false);
    });

    it('a double booking is reported and, by default, nothing is written', async () => {
      const data = join(dir, 'double-data');
      const result = await leasehold(data, 'import-blazar', '--database', await blazar({ doubleBooking: true }));
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/^refused: nothing written \(--on-conflict=refuse\)$/m);
      expect(result.stdout).toMatch(
        new RegExp(`double_booking: host 1 is double-booked: .*lease ${IDS.hostLease}.*lease ${IDS.doubleLease}`),
      );
      expect(existsSync(data)).toBe(false);
    });

    it('an unknown alembic revision is refused by name', async () => {
      const result = await leasehold(join(dir, 'future-data'), 'import-blazar', '--database', await blazar({ revision: 'ffff00001111' }));
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /^leasehold: Blazar's database is at alembic revision ffff00001111, which this Leasehold does not know/,
      );
    });
  });
}

describe('leasehold import-blazar refusing a database URL', () => {
  it('a MariaDB URL without its database is refused by name, its password not echoed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'leasehold-import-url-'));
    try {
      const result = await leasehold(
        join(dir, 'data'),
        'import-blazar',
        '--database',
        'mysql+pymysql://blazar:secret@db.example?charset=utf8',
      );
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /^leasehold: A MariaDB\/MySQL database URL names its database: mysql:\/\/user:password@host\[:port\]\/blazar/,
      );
      expect(result.stderr).not.toContain('secret');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
