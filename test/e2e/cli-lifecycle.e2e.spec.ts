import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { blazarDate } from '../helpers/http.js';
import { openstack, parseConcatenated, parseJson } from '../helpers/cli.js';
import { type RunningSystem, eventually, startSystem } from '../helpers/system.js';

const parseBlazarTime = (text: string): number => Date.parse(`${text.replace(' ', 'T')}Z`);

describe('the real openstack CLI against the running system (auth none)', () => {
  let system: RunningSystem;

  beforeAll(async () => {
    system = await startSystem();
  });

  afterAll(async () => {
    await system?.stop();
  });

  it('registers hosts and shows them', async () => {
    const created = parseJson(
      await openstack(
        system.url,
        'reservation',
        'host',
        'create',
        '--extra',
        'vcpus=16',
        '--extra',
        'gpu=true',
        '-f',
        'json',
        'cli-host-1',
      ),
    );
    expect(created).toMatchObject({ hypervisor_hostname: 'cli-host-1', vcpus: 16, gpu: 'true', reservable: true });
    expect(created.id).toMatch(/^\d+$/);

    const listed = parseJson(await openstack(system.url, 'reservation', 'host', 'list', '-f', 'json'));
    expect(listed).toEqual(expect.arrayContaining([expect.objectContaining({ id: created.id, hypervisor_hostname: 'cli-host-1' })]));

    const shown = parseJson(await openstack(system.url, 'reservation', 'host', 'show', '-f', 'json', 'cli-host-1'));
    expect(shown).toMatchObject({ id: created.id, gpu: 'true' });
  });

  it('walks a lease through PENDING, ACTIVE and TERMINATED on time', async () => {
    const start = blazarDate(1);
    const end = blazarDate(2);
    const created = parseJson(
      await openstack(
        system.url,
        'reservation',
        'lease',
        'create',
        '-f',
        'json',
        '--reservation',
        'resource_type=physical:host,min=1,max=1,hypervisor_properties=["==","$hypervisor_hostname","cli-host-1"],resource_properties=',
        '--start-date',
        start,
        '--end-date',
        end,
        'cli-lease-1',
      ),
    );
    expect(created).toMatchObject({ name: 'cli-lease-1', status: 'PENDING' });
    const [reservation] = parseConcatenated(created.reservations);
    expect(reservation).toMatchObject({ resource_type: 'physical:host', min: 1, max: 1, status: 'pending' });

    const show = async () => parseJson(await openstack(system.url, 'reservation', 'lease', 'show', '-f', 'json', 'cli-lease-1'));
    const active = await eventually(
      async () => {
        const lease = await show();
        return lease.status === 'ACTIVE' ? lease : undefined;
      },
      90_000,
      'ACTIVE',
    );
    const startEvent = parseConcatenated(active.events).find((e) => e.event_type === 'start_lease');
    expect(startEvent.status).toBe('DONE');
    // the reactor fires at the start time, not on a 10 s poll: the ledger records the start within 1 s of its time
    const store = SqliteEventStore.open({ file: `${system.dataDir}/events.sqlite` });
    try {
      const fired = (await store.readStream(`lease-${created.id}`)).find((e) => e.type === 'Lease.StartRequested');
      expect(fired).toBeDefined();
      expect(Date.parse(fired?.recordedAt ?? '') - parseBlazarTime(startEvent.time.replace('T', ' '))).toBeLessThan(1000);
    } finally {
      await store.close();
    }

    const terminated = await eventually(
      async () => {
        const lease = await show();
        return lease.status === 'TERMINATED' ? lease : undefined;
      },
      90_000,
      'TERMINATED',
    );
    const events = parseConcatenated(terminated.events);
    expect(events.map((e) => [e.event_type, e.status])).toEqual(
      expect.arrayContaining([
        ['start_lease', 'DONE'],
        ['end_lease', 'DONE'],
      ]),
    );
    expect(parseConcatenated(terminated.reservations)[0].status).toBe('deleted');
  }, 200_000);

  it('lists, updates and deletes leases by name', async () => {
    parseJson(
      await openstack(
        system.url,
        'reservation',
        'lease',
        'create',
        '-f',
        'json',
        '--reservation',
        'resource_type=physical:host,min=1,max=1,hypervisor_properties=,resource_properties=',
        '--start-date',
        blazarDate(600),
        '--end-date',
        blazarDate(660),
        'cli-lease-2',
      ),
    );
    const listed = parseJson(await openstack(system.url, 'reservation', 'lease', 'list', '-f', 'json'));
    expect(listed.map((l: { name: string }) => l.name)).toContain('cli-lease-2');

    const set = await openstack(system.url, 'reservation', 'lease', 'set', '--prolong-for', '1h', 'cli-lease-2');
    expect(set.code, set.stderr).toBe(0);
    const shown = parseJson(await openstack(system.url, 'reservation', 'lease', 'show', '-f', 'json', 'cli-lease-2'));
    expect(parseBlazarTime(shown.end_date.replace('T', ' ')) - parseBlazarTime(shown.start_date.replace('T', ' '))).toBe(2 * 3600_000);

    const deleted = await openstack(system.url, 'reservation', 'lease', 'delete', 'cli-lease-2');
    expect(deleted.code, deleted.stderr).toBe(0);
    const after = parseJson(await openstack(system.url, 'reservation', 'lease', 'list', '-f', 'json'));
    expect(after.map((l: { name: string }) => l.name)).not.toContain('cli-lease-2');
  }, 60_000);
});
