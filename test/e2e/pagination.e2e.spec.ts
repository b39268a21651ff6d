import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, blazarDate, everyPage, hostReservation } from '../helpers/http.js';
import { ledgerCount } from '../helpers/api-fixtures.js';
import { type RunningSystem, startSystem } from '../helpers/system.js';

/**
 * OpenStack-style paging of the lists (limit, marker, sort_key, sort_dir, with `<collection>_links`):
 * walking the pages by their `next` links gives the whole sorted list once; without the parameters a
 * list is answered complete, as upstream clients expect; bad parameters are a 400 that writes nothing.
 */
describe('list paging (api + projector + reactor)', () => {
  let system: RunningSystem;
  let client: ReturnType<typeof api>;
  const leaseIds: string[] = [];

  const walk = (collection: string, first: string) => everyPage(client, collection, first);

  beforeAll(async () => {
    system = await startSystem();
    client = api(system.url);
    for (let i = 1; i <= 11; i++)
      expect(
        (await client.post('/v1/os-hosts', { name: `page-host-${String(i).padStart(2, '0')}`, tier: i % 2 === 0 ? 'even' : 'odd' })).status,
      ).toBe(201);
    for (let i = 0; i < 3; i++)
      expect(
        (
          await client.post('/v1/floatingips', {
            floating_network_id: '5e8b0f4a-2a8e-4ab5-9b38-1d4f0b1c2d3e',
            floating_ip_address: `10.20.0.${i + 1}`,
          })
        ).status,
      ).toBe(201);
    for (let i = 0; i < 9; i++) {
      // names out of creation order; two leases start now (ACTIVE), the rest later (PENDING)
      const created = await client.post('/v1/leases', {
        name: `lease-${(i * 7) % 9}`,
        start_date: i < 2 ? 'now' : blazarDate(60 + i * 10),
        end_date: blazarDate(600 + i),
        reservations: [hostReservation(1)],
        events: [],
      });
      expect(created.status).toBe(201);
      leaseIds.push(created.body.lease.id as string);
    }
  }, 60_000);

  afterAll(async () => {
    await system?.stop();
  });

  it('without paging parameters every list is complete and has no links, as upstream answers', async () => {
    const leases = await client.get('/v1/leases');
    expect(leases.body.leases).toHaveLength(9);
    expect(Object.keys(leases.body)).toEqual(['leases']);
    expect((await client.get('/v1/os-hosts')).body.hosts).toHaveLength(11);
    expect(Object.keys((await client.get('/v1/os-hosts/allocations')).body)).toEqual(['allocations']);
  });

  it.each([
    ['name', 'asc', 4],
    ['name', 'desc', 2],
    ['start_date', 'asc', 3],
    ['created_at', 'desc', 5],
    ['id', 'asc', 1],
  ])('leases by %s %s, %i per page: the pages give the whole list once, in that order', async (sortKey, sortDir, limit) => {
    const all = (await client.get('/v1/leases')).body.leases as any[];
    const { items, pages } = await walk('leases', `/v1/leases?limit=${limit}&sort_key=${sortKey}&sort_dir=${sortDir}`);
    expect(pages).toBe(Math.ceil(all.length / limit));
    const direction = sortDir === 'asc' ? 1 : -1;
    const expected = [...all].sort(
      (a, b) => direction * (a[sortKey] < b[sortKey] ? -1 : a[sortKey] > b[sortKey] ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    );
    expect(items.map((lease) => lease.id)).toEqual(expected.map((lease) => lease.id));
  });

  it('filters leases by status and project before paging, and keeps the filters in the next link', async () => {
    const active = await walk('leases', '/v1/leases?status=ACTIVE&limit=1');
    expect(active.items.map((lease) => lease.status)).toEqual(['ACTIVE', 'ACTIVE']);
    expect(active.pages).toBe(2);
    const first = await client.get('/v1/leases?status=PENDING&limit=3');
    expect(first.body.leases_links[0].href).toContain('status=PENDING');
    const projectId = first.body.leases[0].project_id as string;
    expect((await client.get(`/v1/leases?project_id=${projectId}`)).body.leases).toHaveLength(9);
    expect((await client.get('/v1/leases?project_id=another-project')).body.leases).toEqual([]);
  });

  it('hosts sort by id as numbers (host 10 after host 9), and by capability-free fields', async () => {
    const { items } = await walk('hosts', '/v1/os-hosts?limit=4');
    expect(items.map((host) => Number(host.id))).toEqual([...items.map((host) => Number(host.id))].sort((a, b) => a - b));
    expect(items).toHaveLength(11);
    const byName = await walk('hosts', '/v1/os-hosts?limit=5&sort_key=hypervisor_hostname&sort_dir=desc');
    expect(byName.items.map((host) => host.hypervisor_hostname)).toEqual(
      items
        .map((host) => host.hypervisor_hostname)
        .sort()
        .reverse(),
    );
  });

  it('pages host allocations and floating IPs the same way', async () => {
    const allocations = await walk('allocations', '/v1/os-hosts/allocations?limit=3');
    expect(allocations.items.map((entry) => entry.resource_id)).toEqual(
      (await client.get('/v1/os-hosts/allocations')).body.allocations.map((entry: any) => entry.resource_id),
    );
    const ips = await walk('floatingips', '/v1/floatingips?limit=2&sort_key=floating_ip_address&sort_dir=desc');
    expect(ips.items.map((ip) => ip.floating_ip_address)).toEqual(['10.20.0.3', '10.20.0.2', '10.20.0.1']);
  });

  it('pages a list as of an instant in the past', async () => {
    const instant = encodeURIComponent(new Date().toISOString());
    const { items } = await walk('leases', `/v1/leases?as_of=${instant}&limit=4&sort_key=name`);
    expect(items.map((lease) => lease.name)).toEqual([...items.map((lease) => lease.name)].sort());
    expect(items).toHaveLength(9);
  });

  it.each([
    ['/v1/leases?limit=0', 'Malformed parameter limit (must be 1 to 1000)'],
    ['/v1/leases?limit=abc', 'Malformed parameter limit (must be 1 to 1000)'],
    ['/v1/leases?sort_key=owner', 'sort_key must be one of created_at, id, name, start_date, end_date, status, project_id, updated_at'],
    ['/v1/leases?sort_dir=up', 'Malformed parameter sort_dir (must be asc or desc)'],
    ['/v1/leases?status=SLEEPING', 'status must be one of PENDING, STARTING, ACTIVE, TERMINATING, TERMINATED, ERROR'],
    ['/v1/leases?marker=1b4e28ba-2fa1-11d2-883f-0016d3cca427&limit=2', 'marker 1b4e28ba-2fa1-11d2-883f-0016d3cca427 could not be found'],
    ['/v1/leases?marker=%00', 'Malformed parameter marker (contains the control character U+0000)'],
    ['/v1/leases?marker=not-an-id', 'Malformed parameter marker (must be the id of an item of the list)'],
    [
      '/v1/os-hosts?sort_key=name',
      'sort_key must be one of id, hypervisor_hostname, created_at, updated_at, vcpus, memory_mb, local_gb, availability_zone',
    ],
  ])("%s: 400 in Blazar's error body, nothing written", async (path, message) => {
    const before = ledgerCount(system.dataDir);
    const response = await client.get(path);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error_code: 400, error_name: 400, error_message: message });
    expect(ledgerCount(system.dataDir)).toBe(before);
  });
});
