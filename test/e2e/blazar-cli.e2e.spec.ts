import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, blazar, failed, parseJson, parseLease, parseTable, succeeded } from '../helpers/cli.js';
import { api } from '../helpers/http.js';
import { type RunningSystem, startSystem } from '../helpers/system.js';

/** The legacy `blazar` CLI (python3-blazarclient's own shell) against one running system (auth none). */

const tDate = (requestDate: string): string => `${requestDate.replace(' ', 'T')}:00.000000`;

describe('the legacy blazar CLI against Leasehold', { timeout: 120_000 }, () => {
  let system: RunningSystem;
  let client: ReturnType<typeof api>;
  const cli = (...args: string[]): Promise<CliResult> => blazar(system.url, ...args);
  const json = async (...args: string[]): Promise<any> => parseJson(await cli(...args, '-f', 'json'));
  const hostIds: Record<string, string> = {};

  beforeAll(async () => {
    system = await startSystem();
    client = api(system.url);
  });

  afterAll(async () => {
    await system?.stop();
  });

  it('host-create prints the host; host-list lists the hosts by name', async () => {
    const created = await json('host-create', '--extra', 'rack=b', 'bz-2');
    expect(created).toMatchObject({ hypervisor_hostname: 'bz-2', rack: 'b', reservable: true });
    expect(created.id).toMatch(/^\d+$/);
    hostIds['bz-2'] = created.id;
    hostIds['bz-1'] = (await json('host-create', 'bz-1')).id;

    expect(await json('host-list')).toEqual(
      ['bz-1', 'bz-2'].map((name) => ({ id: hostIds[name], hypervisor_hostname: name, vcpus: 0, memory_mb: 0, local_gb: 0 })),
    );
    // the default output is a table
    expect(parseTable(succeeded(await cli('host-list')))).toEqual([
      ['id', 'hypervisor_hostname', 'vcpus', 'memory_mb', 'local_gb'],
      [hostIds['bz-1'], 'bz-1', '0', '0', '0'],
      [hostIds['bz-2'], 'bz-2', '0', '0', '0'],
    ]);
  });

  it('lease-create --physical-reservation books one host', async () => {
    const lease = parseLease(
      await cli(
        'lease-create',
        '-f',
        'json',
        '--physical-reservation',
        'min=1,max=1,hypervisor_properties=,resource_properties=',
        '--start-date',
        '2032-06-01 08:00',
        '--end-date',
        '2032-06-01 10:00',
        'bz-lease-1',
      ),
    );
    expect(lease).toMatchObject({
      name: 'bz-lease-1',
      status: 'PENDING',
      start_date: tDate('2032-06-01 08:00'),
      end_date: tDate('2032-06-01 10:00'),
    });
    expect(lease.reservations).toEqual([
      expect.objectContaining({
        resource_type: 'physical:host',
        min: 1,
        max: 1,
        hypervisor_properties: '',
        resource_properties: '',
        status: 'pending',
      }),
    ]);
  });

  it('lease-create --reservation resource_type=physical:host,... books the host asked for', async () => {
    const lease = parseLease(
      await cli(
        'lease-create',
        '-f',
        'json',
        '--reservation',
        'resource_type=physical:host,min=1,max=1,hypervisor_properties=["==","$hypervisor_hostname","bz-2"],resource_properties=',
        '--start-date',
        '2032-06-01 12:00',
        '--end-date',
        '2032-06-01 14:00',
        'bz-lease-2',
      ),
    );
    expect(lease).toMatchObject({
      name: 'bz-lease-2',
      status: 'PENDING',
      start_date: tDate('2032-06-01 12:00'),
      end_date: tDate('2032-06-01 14:00'),
    });
    const [reservation] = lease.reservations;
    expect(reservation).toMatchObject({ min: 1, max: 1, hypervisor_properties: '["==","$hypervisor_hostname","bz-2"]' });

    const allocation = await client.get(`/v1/os-hosts/${hostIds['bz-2']}/allocation`);
    // (bz-lease-1 may have landed on bz-2 too)
    expect(allocation.body.allocation.reservations.filter((r: { lease_id: string }) => r.lease_id === lease.id)).toEqual([
      { id: reservation.id, lease_id: lease.id, start_date: tDate('2032-06-01 12:00'), end_date: tDate('2032-06-01 14:00') },
    ]);
  });

  it('lease-update --prolong-for 1h NAME moves the end by exactly one hour', async () => {
    expect(succeeded(await cli('lease-update', '--prolong-for', '1h', 'bz-lease-1'))).toBe('Updated lease: bz-lease-1');
    const lease = parseLease(await cli('lease-show', '-f', 'json', 'bz-lease-1'));
    expect(lease).toMatchObject({ start_date: tDate('2032-06-01 08:00'), end_date: tDate('2032-06-01 11:00') });
    expect(lease.events.find((e: { event_type: string }) => e.event_type === 'end_lease').time).toBe(tDate('2032-06-01 11:00'));
  });

  it('lease-list and lease-show (table and -f json)', async () => {
    const listed = await json('lease-list');
    expect(
      listed
        .filter((l: { name: string }) => l.name.startsWith('bz-lease-'))
        .sort((a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name)),
    ).toEqual([
      { id: expect.any(String), name: 'bz-lease-1', start_date: tDate('2032-06-01 08:00'), end_date: tDate('2032-06-01 11:00') },
      { id: expect.any(String), name: 'bz-lease-2', start_date: tDate('2032-06-01 12:00'), end_date: tDate('2032-06-01 14:00') },
    ]);
    const id = listed.find((l: { name: string }) => l.name === 'bz-lease-2').id;

    const fields = new Map(
      parseTable(succeeded(await cli('lease-show', 'bz-lease-2')))
        .filter(([field]) => field !== '')
        .map(([field, value]) => [field, value] as const),
    );
    expect(fields.get('id')).toBe(id);
    expect(fields.get('name')).toBe('bz-lease-2');
    expect(fields.get('status')).toBe('PENDING');
    expect(fields.get('end_date')).toBe(tDate('2032-06-01 14:00'));

    expect(parseLease(await cli('lease-show', '-f', 'json', id))).toMatchObject({ id, name: 'bz-lease-2' });
  });

  it('lease-delete NAME; lease-list and lease-show no longer find it', async () => {
    expect(succeeded(await cli('lease-delete', 'bz-lease-1'))).toBe('Deleted lease: bz-lease-1');
    expect((await json('lease-list')).map((l: { name: string }) => l.name)).toEqual(['bz-lease-2']);
    expect(failed(await cli('lease-show', 'bz-lease-1'))).toEqual(["Unable to find resource with name 'bz-lease-1'"]);
  });

  it("errors: not enough hosts prints the 409 message; dates get upstream's messages", async () => {
    const tooMany = await cli(
      'lease-create',
      '--physical-reservation',
      'min=2,max=2,hypervisor_properties=,resource_properties=',
      '--start-date',
      '2032-06-01 13:00',
      '--end-date',
      '2032-06-01 15:00',
      'bz-too-many',
    );
    // bz-2 is booked by bz-lease-2 until 14:00 (the client also prints its argument parsing on stderr); the
    // refusal offers the earliest two hours both hosts are free, and the client prints it with the message
    expect(failed(tooMany)).toContain(
      'ERROR: Not enough hosts available: 2 reservable hosts match the requested properties and 1 of them is free for the whole lease (cleaning time included), 2 requested (min). Earliest alternative: 2032-06-01 14:00 to 2032-06-01 16:00.',
    );

    const past = await cli(
      'lease-create',
      '--physical-reservation',
      'min=1,max=1,hypervisor_properties=,resource_properties=',
      '--start-date',
      '2001-01-01 10:00',
      '--end-date',
      '2032-06-01 12:00',
      'bz-past',
    );
    expect(failed(past)).toContain('ERROR: Start date must be later than current date');

    const backwards = await cli('lease-update', '--end-date', '2032-06-01 11:00', 'bz-lease-2');
    expect(failed(backwards)).toEqual(['ERROR: End date must be later than current and start date']);

    expect((await client.get('/v1/leases')).body.leases.map((l: { name: string }) => l.name)).toEqual(['bz-lease-2']);
  });
});
