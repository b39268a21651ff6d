import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, failed, openstack, parseJson, parseLease, succeeded } from '../helpers/cli.js';
import { api, blazarDate } from '../helpers/http.js';
import { type RunningSystem, eventually, startSystem } from '../helpers/system.js';

/**
 * Every `openstack reservation ...` command against one running system (auth none), asserting on
 * what the real client prints. The tests share state and run in order: the lease that starts "now"
 * is created first and ended last, so the minute it started in has passed by then.
 */

const tDate = (requestDate: string): string => `${requestDate.replace(' ', 'T')}:00.000000`;
const minuteOf = (ms: number): number => Math.floor(ms / 60_000);
const pinned = (hostname: string) => `hypervisor_properties=["==","$hypervisor_hostname","${hostname}"],resource_properties=`;

// each CLI run takes about a second of CPU, several under a loaded machine
describe('openstack reservation ... (python3-blazarclient) against Leasehold', { timeout: 120_000 }, () => {
  let system: RunningSystem;
  let client: ReturnType<typeof api>;
  const osc = (...args: string[]): Promise<CliResult> => openstack(system.url, 'reservation', ...args);
  /** `-f json` output of a command that succeeded. */
  const json = async (...args: string[]): Promise<any> => parseJson(await osc(...args, '-f', 'json'));
  const showLease = async (nameOrId: string): Promise<any> => parseLease(await osc('lease', 'show', '-f', 'json', nameOrId));
  /** Intermediate checks and polling go through the API: each CLI run costs about a second of CPU. */
  const apiLease = async (id: string): Promise<any> => (await client.get(`/v1/leases/${id}`)).body.lease;
  const apiLeaseNames = async (): Promise<string[]> => (await client.get('/v1/leases')).body.leases.map((l: { name: string }) => l.name);
  const hostIds: Record<string, string> = {};

  beforeAll(async () => {
    system = await startSystem();
    client = api(system.url);
  });

  afterAll(async () => {
    await system?.stop();
  });

  describe('a lease starting now (no --start-date)', () => {
    let nowLease: { id: string; startMs: number };

    it('lease create without --start-date starts the lease at once: ACTIVE', async () => {
      hostIds['osc-now'] = (await json('host', 'create', 'osc-now')).id;
      const end = blazarDate(60);
      const before = Date.now();
      const created = parseLease(
        await osc(
          'lease',
          'create',
          '-f',
          'json',
          '--reservation',
          `resource_type=physical:host,min=1,max=1,${pinned('osc-now')}`,
          '--end-date',
          end,
          'osc-now-lease',
        ),
      );
      const after = Date.now();
      // the client sends "now"; the server takes the current minute
      expect([tDate(blazarDate(0, before)), tDate(blazarDate(0, after))]).toContain(created.start_date);
      expect(created).toMatchObject({ name: 'osc-now-lease', end_date: tDate(end) });
      expect(created.reservations).toEqual([expect.objectContaining({ resource_type: 'physical:host', min: 1, max: 1 })]);
      nowLease = { id: created.id, startMs: Date.parse(`${created.start_date}Z`) };

      await eventually(async () => ((await apiLease(created.id)).status === 'ACTIVE' ? true : undefined), 15_000, 'ACTIVE');
      const active = await showLease('osc-now-lease');
      expect(active.status).toBe('ACTIVE');
      expect(active.id).toBe(created.id);
      expect(active.reservations.map((r: { status: string }) => r.status)).toEqual(['active']);
      expect(active.events.find((e: { event_type: string }) => e.event_type === 'start_lease').status).toBe('DONE');
    });

    describe('hosts', () => {
      it('host create --extra prints the new host; host list lists it', async () => {
        const created = await json('host', 'create', '--extra', 'gpu=true', '--extra', 'rack=r1', 'osc-1');
        expect(created).toMatchObject({
          hypervisor_hostname: 'osc-1',
          service_name: 'osc-1',
          gpu: 'true',
          rack: 'r1',
          reservable: true,
          status: '',
        });
        expect(created.id).toMatch(/^\d+$/);
        hostIds['osc-1'] = created.id;
        hostIds['osc-2'] = (await json('host', 'create', '--extra', 'gpu=false', '--extra', 'rack=r1', 'osc-2')).id;
        hostIds['osc-3'] = (await json('host', 'create', '--extra', 'gpu=false', 'osc-3')).id;

        const listed = await json('host', 'list');
        // the client's columns, sorted by hypervisor_hostname
        expect(listed).toEqual(
          ['osc-1', 'osc-2', 'osc-3', 'osc-now'].map((name) => ({
            id: hostIds[name],
            hypervisor_hostname: name,
            vcpus: 0,
            memory_mb: 0,
            local_gb: 0,
          })),
        );
      });

      it('host show finds a host by name and by id', async () => {
        const byName = await json('host', 'show', 'osc-1');
        expect(byName).toMatchObject({ id: hostIds['osc-1'], hypervisor_hostname: 'osc-1', gpu: 'true', rack: 'r1' });
        const byId = await json('host', 'show', String(hostIds['osc-1']));
        expect(byId).toEqual(byName);
      });

      it('host set --extra changes a capability', async () => {
        expect(succeeded(await osc('host', 'set', '--extra', 'rack=r2', 'osc-1'))).toBe('Updated host: osc-1');
        const shown = await json('host', 'show', 'osc-1');
        expect(shown).toMatchObject({ rack: 'r2', gpu: 'true' });
        expect(shown.updated_at).not.toBe('');
      });

      it('host delete by name; then host show fails: by name in the client, by id with the 404 message', async () => {
        const gone = (await json('host', 'create', 'osc-gone')).id;
        expect(succeeded(await osc('host', 'delete', 'osc-gone'))).toBe('Deleted host: osc-gone');
        expect(failed(await osc('host', 'show', 'osc-gone'))).toEqual(["Unable to find resource with name 'osc-gone'"]);
        expect(failed(await osc('host', 'show', gone))).toEqual([`ERROR: Object with {'host_id': '${gone}'} not found`]);
        const listed = (await client.get('/v1/os-hosts')).body.hosts;
        expect(listed.map((h: { hypervisor_hostname: string }) => h.hypervisor_hostname)).not.toContain('osc-gone');
      });
    });

    describe('host properties', () => {
      it('host property list, --detail and show', async () => {
        expect(await json('host', 'property', 'list')).toEqual([{ property: 'gpu' }, { property: 'rack' }]);
        expect(await json('host', 'property', 'list', '--detail')).toEqual([
          { property: 'gpu', private: false, property_values: ['false', 'true'] },
          { property: 'rack', private: false, property_values: ['r1', 'r2'] },
        ]);
        expect(await json('host', 'property', 'show', 'rack')).toEqual({ property: 'rack', private: false, property_values: ['r1', 'r2'] });
      });

      it('host property set --private hides it from the plain list; --all shows it; --public brings it back', async () => {
        expect(succeeded(await osc('host', 'property', 'set', '--private', 'rack'))).toBe('Updated host property: rack');
        expect(await json('host', 'property', 'list')).toEqual([{ property: 'gpu' }]);
        expect(await json('host', 'property', 'list', '--all')).toEqual([{ property: 'gpu' }, { property: 'rack' }]);
        expect(await json('host', 'property', 'list', '--all', '--detail')).toContainEqual({
          property: 'rack',
          private: true,
          property_values: ['r1', 'r2'],
        });
        // `show` reads the list without --all, as upstream's client does
        expect(failed(await osc('host', 'property', 'show', 'rack'))).toEqual(['The resource property does not exist.']);

        expect(succeeded(await osc('host', 'property', 'set', '--public', 'rack'))).toBe('Updated host property: rack');
        expect(await json('host', 'property', 'list')).toEqual([{ property: 'gpu' }, { property: 'rack' }]);
        expect(await json('host', 'property', 'show', 'rack')).toMatchObject({ property: 'rack', private: false });
      });
    });

    describe('a future lease', () => {
      const START = '2031-03-10 10:00';
      const END = '2031-03-10 12:00';
      let leaseId: string;
      let reservationId: string;

      const dates = (lease: any) => {
        const eventTime = (type: string) => lease.events.find((e: { event_type: string }) => e.event_type === type).time;
        return {
          start_date: lease.start_date,
          end_date: lease.end_date,
          start_lease: eventTime('start_lease'),
          end_lease: eventTime('end_lease'),
        };
      };

      it('lease create -f json prints the lease with its reservation and events', async () => {
        const created = parseLease(
          await osc(
            'lease',
            'create',
            '-f',
            'json',
            '--reservation',
            'resource_type=physical:host,min=1,max=1,hypervisor_properties=,resource_properties=["==","$gpu","false"]',
            '--start-date',
            START,
            '--end-date',
            END,
            'osc-lease',
          ),
        );
        expect(created).toMatchObject({
          name: 'osc-lease',
          status: 'PENDING',
          degraded: false,
          start_date: tDate(START),
          end_date: tDate(END),
        });
        expect(created.reservations).toEqual([
          expect.objectContaining({
            lease_id: created.id,
            resource_type: 'physical:host',
            status: 'pending',
            min: 1,
            max: 1,
            hypervisor_properties: '',
            resource_properties: '["==","$gpu","false"]',
            before_end: 'default',
          }),
        ]);
        expect(created.events.map((e: { event_type: string; time: string; status: string }) => [e.event_type, e.time, e.status])).toEqual([
          ['start_lease', tDate(START), 'UNDONE'],
          ['end_lease', tDate(END), 'UNDONE'],
          ['before_end_lease', tDate('2031-03-10 11:00'), 'UNDONE'],
        ]);
        leaseId = created.id;
        reservationId = created.reservations[0].id;
      });

      it('lease list shows it; lease show finds it by name and by id', async () => {
        const listed = await json('lease', 'list');
        expect(listed).toContainEqual({ id: leaseId, name: 'osc-lease', start_date: tDate(START), end_date: tDate(END) });
        const byName = await showLease('osc-lease');
        const byId = await showLease(leaseId);
        expect(byName.id).toBe(leaseId);
        expect(byId).toEqual(byName);
      });

      it('lease set --prolong-for / --reduce-by move the end, --defer-by / --advance-by the start, to the minute', async () => {
        expect(succeeded(await osc('lease', 'set', '--prolong-for', '1h', 'osc-lease'))).toBe('Updated lease: osc-lease');
        expect(dates(await apiLease(leaseId))).toEqual({
          start_date: tDate(START),
          end_date: tDate('2031-03-10 13:00'),
          start_lease: tDate(START),
          end_lease: tDate('2031-03-10 13:00'),
        });

        expect(succeeded(await osc('lease', 'set', '--reduce-by', '30m', 'osc-lease'))).toBe('Updated lease: osc-lease');
        expect(dates(await apiLease(leaseId))).toEqual({
          start_date: tDate(START),
          end_date: tDate('2031-03-10 12:30'),
          start_lease: tDate(START),
          end_lease: tDate('2031-03-10 12:30'),
        });

        expect(succeeded(await osc('lease', 'set', '--defer-by', '45m', 'osc-lease'))).toBe('Updated lease: osc-lease');
        expect(dates(await apiLease(leaseId))).toEqual({
          start_date: tDate('2031-03-10 10:45'),
          end_date: tDate('2031-03-10 12:30'),
          start_lease: tDate('2031-03-10 10:45'),
          end_lease: tDate('2031-03-10 12:30'),
        });

        expect(succeeded(await osc('lease', 'set', '--advance-by', '1d', 'osc-lease'))).toBe('Updated lease: osc-lease');
        // and `lease show` prints the result
        expect(dates(await showLease('osc-lease'))).toEqual({
          start_date: tDate('2031-03-09 10:45'),
          end_date: tDate('2031-03-10 12:30'),
          start_lease: tDate('2031-03-09 10:45'),
          end_lease: tDate('2031-03-10 12:30'),
        });
      });

      it('lease set --reservation id=<rid>,max=2 books a second host', async () => {
        const allocatedHosts = async (): Promise<string[]> => {
          const response = await client.get('/v1/os-hosts/allocations');
          expect(response.status).toBe(200);
          return response.body.allocations
            .filter((a: { reservations: { id: string }[] }) => a.reservations.some((r) => r.id === reservationId))
            .map((a: { resource_id: string }) => a.resource_id)
            .sort();
        };
        const before = await allocatedHosts();
        expect(before).toHaveLength(1);
        expect([hostIds['osc-2'], hostIds['osc-3']]).toContain(before[0]);

        expect(succeeded(await osc('lease', 'set', '--reservation', `id=${reservationId},max=2`, 'osc-lease'))).toBe(
          'Updated lease: osc-lease',
        );
        const lease = await showLease('osc-lease');
        expect(lease.reservations).toEqual([expect.objectContaining({ id: reservationId, min: 1, max: 2, status: 'pending' })]);
        expect(await allocatedHosts()).toEqual([hostIds['osc-2'], hostIds['osc-3']].sort());
      });

      it('lease set --end-date and --name; the old name is gone', async () => {
        expect(succeeded(await osc('lease', 'set', '--end-date', '2031-03-10 18:00', '--name', 'osc-lease-renamed', 'osc-lease'))).toBe(
          'Updated lease: osc-lease',
        );
        const lease = await showLease('osc-lease-renamed');
        expect(lease).toMatchObject({
          id: leaseId,
          name: 'osc-lease-renamed',
          start_date: tDate('2031-03-09 10:45'),
          end_date: tDate('2031-03-10 18:00'),
        });
        expect(failed(await osc('lease', 'show', 'osc-lease'))).toEqual(["Unable to find resource with name 'osc-lease'"]);
      });

      it('lease set --end-date now is refused by the client itself', async () => {
        expect(failed(await osc('lease', 'set', '--end-date', 'now', 'osc-lease-renamed'))).toEqual([
          "time data 'now' does not match format '%Y-%m-%d %H:%M'",
        ]);
        expect((await apiLease(leaseId)).end_date).toBe(tDate('2031-03-10 18:00'));
      });

      it('lease delete by name; the lease and its allocations are gone', async () => {
        expect(succeeded(await osc('lease', 'delete', 'osc-lease-renamed'))).toBe('Deleted lease: osc-lease-renamed');
        expect(await apiLeaseNames()).not.toContain('osc-lease-renamed');
        expect(failed(await osc('lease', 'show', leaseId))).toEqual([`ERROR: Object with {'lease_id': '${leaseId}'} not found`]);
        const allocations = (await client.get('/v1/os-hosts/allocations')).body.allocations;
        expect(allocations.flatMap((a: { reservations: { id: string }[] }) => a.reservations.map((r) => r.id))).not.toContain(
          reservationId,
        );
      });
    });

    describe('errors the user sees', () => {
      it('not enough hosts: the 409 message with the counts', async () => {
        const result = await osc(
          'lease',
          'create',
          '--reservation',
          'resource_type=physical:host,min=2,max=2,hypervisor_properties=,resource_properties=["==","$gpu","true"]',
          '--start-date',
          '2031-04-01 10:00',
          '--end-date',
          '2031-04-01 11:00',
          'osc-too-big',
        );
        expect(failed(result)).toEqual([
          'ERROR: Not enough hosts available: 1 reservable host matches the requested properties and 1 of them is free for the whole lease (cleaning time included), 2 requested (min)',
        ]);
        expect(await apiLeaseNames()).not.toContain('osc-too-big');
      });

      it("dates: a start in the past and an end before the start get upstream's messages; a malformed date is refused by the client", async () => {
        const create = (start: string, end: string) =>
          osc(
            'lease',
            'create',
            '--reservation',
            `resource_type=physical:host,min=1,max=1,${pinned('osc-1')}`,
            '--start-date',
            start,
            '--end-date',
            end,
            'osc-bad-date',
          );
        expect(failed(await create('2001-01-01 10:00', '2031-05-01 10:00'))).toEqual(['ERROR: Start date must be later than current date']);
        expect(failed(await create('2031-05-01 10:00:00', '2031-05-01 11:00'))).toEqual(['The lease parameters are incorrect.']);
        expect(failed(await osc('lease', 'set', '--end-date', '2001-01-01 10:00', 'osc-now-lease'))).toEqual([
          'ERROR: End date must be later than current and start date',
        ]);
      });
    });

    it('PUT {"end_date": "now"} ends the ACTIVE lease at once; lease show says TERMINATED', async () => {
      // "now" is the current minute and Leasehold wants the end after the start (upstream also accepts end == start),
      // so the lease's first minute must be over; the tests above usually took longer than that
      await eventually(
        async () => (minuteOf(Date.now()) > minuteOf(nowLease.startMs) ? true : undefined),
        65_000,
        'the minute after the start',
      );
      expect(failed(await osc('lease', 'set', '--end-date', 'now', 'osc-now-lease'))).toEqual([
        "time data 'now' does not match format '%Y-%m-%d %H:%M'",
      ]);

      const ended = await client.put(`/v1/leases/${nowLease.id}`, { end_date: 'now' });
      expect(ended.status, JSON.stringify(ended.body)).toBe(200);
      const endDate = ended.body.lease.end_date;
      expect([tDate(blazarDate(-1)), tDate(blazarDate(0))]).toContain(endDate);

      await eventually(async () => ((await apiLease(nowLease.id)).status === 'TERMINATED' ? true : undefined), 15_000, 'TERMINATED');
      const terminated = await showLease('osc-now-lease');
      expect(terminated.status).toBe('TERMINATED');
      expect(terminated.end_date).toBe(endDate);
      expect(terminated.reservations.map((r: { status: string }) => r.status)).toEqual(['deleted']);
      expect(terminated.events.map((e: { event_type: string; status: string }) => [e.event_type, e.status])).toEqual(
        expect.arrayContaining([
          ['start_lease', 'DONE'],
          ['end_lease', 'DONE'],
        ]),
      );
      // the host is free again for the rest of the original window
      const allocation = await client.get(`/v1/os-hosts/${hostIds['osc-now']}/allocation`);
      expect(allocation.body.allocation.reservations).toEqual([]);
    }, 180_000);
  });

  it('GET /v1/plugins lists the supported resource types (upstream answers 500)', async () => {
    const response = await client.get('/v1/plugins');
    expect(response.status).toBe(200);
    expect(response.headers.get('openstack-api-version')).toBe('reservation 1.0');
    expect(response.body).toEqual({
      plugins: [
        {
          name: 'physical.host.plugin',
          resource_type: 'physical:host',
          title: 'Physical Host Plugin',
          description: 'Reserves whole physical hosts for the time of a lease.',
        },
        {
          name: 'virtual.instance.plugin',
          resource_type: 'virtual:instance',
          title: 'Virtual Instance Plugin',
          description: "Reserves instance-sized slices of hosts (vcpus, memory, disk), with affinity, under each host's capacity.",
        },
        {
          name: 'flavor.instance.plugin',
          resource_type: 'flavor:instance',
          title: 'Flavor-based Instance Plugin',
          description: 'Reserves instances of an existing flavor, from the same slot capacity as virtual:instance.',
        },
        {
          name: 'virtual.floatingip.plugin',
          resource_type: 'virtual:floatingip',
          title: 'Floating IP Plugin',
          description: 'Reserves registered floating IP addresses of an external network.',
        },
        {
          name: 'network.plugin',
          resource_type: 'network',
          title: 'Network Plugin',
          description:
            'Reserves registered network segments (VLANs and other provider segments); the lease creates its Neutron network on one.',
        },
      ],
    });
  });
});
