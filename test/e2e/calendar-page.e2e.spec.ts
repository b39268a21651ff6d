/**
 * The calendar page (`/calendar`, docs/calendar.md) in headless Chromium (Debian's `chromium`, driven by
 * playwright-core; no browser is downloaded) against the running system: a calendar made through the
 * REST API (three hosts in racks r1/r2, a floating IP, leases at known times, one of them started by
 * the reactor) is drawn with a bar per booking on the right rows, coloured by status; a click shows the
 * lease; a capability filter hides the other hosts; zoom changes the range; the free windows for "2 hosts
 * of rack r1 for 1 hour" are those POST /v1/availability answers. With token authentication the page
 * shows nothing until a valid token is typed in. Skipped only when /usr/bin/chromium is missing.
 *
 * LEASEHOLD_CALENDAR_SCREENSHOT=docs/calendar.png saves the page, as the free-window test leaves it, there.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Browser, type Page, chromium } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/http.js';
import { describeBody } from '../helpers/lease-client.js';
import { type StaticAuth, staticAuthByToken } from '../helpers/static-auth.js';
import { ROOT, type RunningSystem, eventually, startSystem } from '../helpers/system.js';

const CHROMIUM = '/usr/bin/chromium';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const NET = '5d7c4f2e-8a61-4b0e-9c3d-2f1e0a9b8c7d';
const SCREENSHOT = process.env.LEASEHOLD_CALENDAR_SCREENSHOT;

/** `YYYY-MM-DD HH:MM` (UTC), Blazar's request format. */
const requestDate = (instant: number): string => new Date(instant).toISOString().slice(0, 16).replace('T', ' ');
const rackHosts = (rack: string, count: number) => ({
  resource_type: 'physical:host',
  min: count,
  max: count,
  hypervisor_properties: '',
  resource_properties: `["=", "$rack", "${rack}"]`,
});

const launch = (): Promise<Browser> =>
  chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });

interface DrawnBar {
  readonly row: string;
  readonly status: string;
  readonly start: string;
  readonly end: string;
  readonly width: number;
}

const barsOf = (page: Page, leaseId: string): Promise<DrawnBar[]> =>
  page.$$eval(`#calendar .bar[data-lease-id="${leaseId}"]`, (bars) =>
    bars.map((bar) => ({
      row: bar.closest('.row').getAttribute('data-name'),
      status: bar.getAttribute('data-status'),
      start: bar.getAttribute('data-start'),
      end: bar.getAttribute('data-end'),
      width: bar.getBoundingClientRect().width,
    })),
  );

const rowNames = (page: Page): Promise<string[]> =>
  page.$$eval('#calendar .row', (rows) => rows.map((row) => row.getAttribute('data-name')));

const shownRange = async (page: Page): Promise<{ start: number; end: number }> => {
  const { start, end } = await page.$eval('#calendar', (node) => ({
    start: node.getAttribute('data-start'),
    end: node.getAttribute('data-end'),
  }));
  return { start: Date.parse(String(start)), end: Date.parse(String(end)) };
};

/** Every request the page makes stays on the API's origin; any page error or CSP violation is kept. */
const watch = (page: Page, origin: string): { readonly foreign: string[]; readonly errors: string[] } => {
  const seen = { foreign: [] as string[], errors: [] as string[] };
  page.on('request', (request) => {
    if (!request.url().startsWith(`${origin}/`)) seen.foreign.push(request.url());
  });
  page.on('pageerror', (error) => seen.errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().includes('401')) seen.errors.push(message.text());
  });
  return seen;
};

describe.skipIf(!existsSync(CHROMIUM))('the calendar page in headless Chromium', () => {
  let system: RunningSystem;
  let browser: Browser;
  let page: Page;
  let seen: ReturnType<typeof watch>;
  const t0 = Math.floor(Date.now() / HOUR) * HOUR + 2 * HOUR;
  const leases: Record<string, { id: string; project_id: string; reservations: { end_action: string; before_end: string }[] }> = {};

  const lease = async (key: string, start: string, end: number, reservations: unknown[]): Promise<void> => {
    const created = await api(system.url).post('/v1/leases', {
      name: `cal-${key}`,
      start_date: start,
      end_date: requestDate(end),
      reservations,
    });
    expect(created.status, describeBody(created)).toBe(201);
    leases[key] = created.body.lease;
  };

  beforeAll(async () => {
    system = await startSystem();
    const client = api(system.url);
    for (const [name, rack] of [
      ['r1-a', 'r1'],
      ['r1-b', 'r1'],
      ['r2-a', 'r2'],
    ]) {
      const created = await client.post('/v1/os-hosts', { name, rack });
      expect(created.status, describeBody(created)).toBe(201);
    }
    const ip = await client.post('/v1/floatingips', { floating_network_id: NET, floating_ip_address: '10.77.0.1' });
    expect(ip.status, describeBody(ip)).toBe(201);
    // ends in 45 to 105 s, after the page's first load: then the page fetches its bookings by lease
    await lease('ending', 'now', Math.ceil((Date.now() + 45_000) / MINUTE) * MINUTE, [rackHosts('r2', 1)]);
    // rack r1 has no two hosts free before t0 + 3 h, then again from t0 + 6 h: the free windows below depend on that, not on the minute
    await lease('active', 'now', t0 + HOUR, [rackHosts('r1', 1)]);
    await lease('r1', requestDate(t0 + HOUR), t0 + 3 * HOUR, [rackHosts('r1', 1)]);
    await lease('r1-both', requestDate(t0 + 4 * HOUR), t0 + 6 * HOUR, [rackHosts('r1', 2)]);
    await lease('r2', requestDate(t0), t0 + 5 * HOUR, [rackHosts('r2', 1)]);
    await lease('ip', requestDate(t0 + HOUR), t0 + 2 * HOUR, [{ resource_type: 'virtual:floatingip', network_id: NET, amount: 1 }]);
    await eventually(
      async () => ((await client.get(`/v1/leases/${leases.active?.id}`)).body.lease.status === 'ACTIVE' ? true : undefined),
      30_000,
      'the reactor to start cal-active',
    );
    browser = await launch();
    page = await browser.newPage({ viewport: { width: 1400, height: 640 } });
    seen = watch(page, system.url);
    const response = await page.goto(`${system.url}/calendar`);
    expect(response?.status()).toBe(200);
    await page.waitForSelector('#calendar .row');
  });

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  afterEach((context) => {
    if (context.task.result?.state === 'fail') console.error(`system output (tail):\n${system?.output().slice(-3000)}`);
  });

  it('is served with a policy allowing only its own origin, and loads nothing from elsewhere', async () => {
    const response = await fetch(`${system.url}/calendar`);
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'self'");
    const sources = policy.split(';').flatMap((directive) => directive.trim().split(/\s+/).slice(1));
    expect(sources.filter((source) => source !== "'self'" && source !== "'none'")).toEqual([]);
    expect(seen.foreign).toEqual([]);
    expect(seen.errors).toEqual([]);
    expect((await fetch(`${system.url}/calendar/calendar.page.js`)).headers.get('content-type')).toMatch(/^text\/javascript/);
    expect((await fetch(`${system.url}/calendar/calendar.css`)).headers.get('content-type')).toMatch(/^text\/css/);
  });

  it('serves only its own files', async () => {
    for (const path of [
      '/calendar/calendar.page.ts',
      '/calendar/package.json',
      '/calendar/..%2Fsrc%2Fmain.js',
      '/calendar/calendar-model.spec.js',
      '/calendar/main.js',
    ]) {
      const response = await fetch(`${system.url}${path}`);
      expect(response.status, path).toBe(404);
      expect(await response.json()).toMatchObject({ error_code: 404, error_name: 404 });
    }
  });

  it('draws each booking as a bar on the host or floating IP that holds it, coloured by the lease status', async () => {
    expect(await rowNames(page)).toEqual(['r1-a', 'r1-b', 'r2-a', '10.77.0.1']);
    const iso = (instant: number) => new Date(instant).toISOString();
    const active = await barsOf(page, leases.active!.id);
    expect(active).toHaveLength(1);
    expect(active[0]).toMatchObject({ status: 'ACTIVE', end: iso(t0 + HOUR) });
    expect(['r1-a', 'r1-b']).toContain(active[0]?.row);
    const r1 = await barsOf(page, leases.r1!.id);
    expect(r1.map(({ status, start, end }) => ({ status, start, end }))).toEqual([
      { status: 'PENDING', start: iso(t0 + HOUR), end: iso(t0 + 3 * HOUR) },
    ]);
    expect(['r1-a', 'r1-b']).toContain(r1[0]?.row);
    expect((await barsOf(page, leases['r1-both']!.id)).map((bar) => bar.row).sort()).toEqual(['r1-a', 'r1-b']);
    expect((await barsOf(page, leases.r2!.id)).map((bar) => bar.row)).toEqual(['r2-a']);
    expect((await barsOf(page, leases.ip!.id)).map((bar) => bar.row)).toEqual(['10.77.0.1']);
    // the same bars the API's allocations name, and the colour is the status's
    const allocations = (await api(system.url).get('/v1/os-hosts/allocations')).body.allocations as {
      resource_id: string;
      reservations: { lease_id: string }[];
    }[];
    const booked = allocations.flatMap((allocation) => allocation.reservations).filter((booking) => booking.lease_id !== leases.ending!.id);
    const drawn = await page.$$eval('#calendar .row.host .bar', (bars) => bars.map((bar) => bar.getAttribute('data-lease-id')));
    expect(drawn.filter((leaseId) => leaseId !== leases.ending!.id)).toHaveLength(booked.length);
    const colours = await page.$$eval(
      `#calendar .bar[data-lease-id="${leases.active!.id}"], #calendar .bar[data-lease-id="${leases.r1!.id}"]`,
      (bars) => bars.map((bar) => bar.ownerDocument.defaultView.getComputedStyle(bar).backgroundColor),
    );
    expect(new Set(colours).size).toBe(2);
    expect(await page.$eval('#calendar .today', (line) => line.style.left)).toMatch(/%$/);
  });

  it('shows the lease behind a bar when it is clicked: name, project, dates and end action', async () => {
    await page.click(`#calendar .bar[data-lease-id="${leases.r1!.id}"]`);
    const field = (name: string) => page.$eval(`#details dd[data-field="${name}"]`, (node) => node.textContent);
    await page.waitForSelector(`#details[data-lease-id="${leases.r1!.id}"]`);
    const reservation = leases.r1!.reservations[0]!;
    expect(await field('name')).toBe('cal-r1');
    expect(await field('project')).toBe(leases.r1!.project_id);
    expect(await field('start')).toBe(`${requestDate(t0 + HOUR)} UTC`);
    expect(await field('end')).toBe(`${requestDate(t0 + 3 * HOUR)} UTC`);
    expect(await field('end-action')).toBe(`${reservation.end_action} (before end: ${reservation.before_end})`);
    expect(await field('status')).toBe('PENDING');
  });

  it('hides the hosts a capability filter does not match (and floating IPs, which have no capabilities)', async () => {
    await page.fill('#filter', 'rack=r2');
    await page.click('#filter-form button[type=submit]');
    await page.waitForSelector('#calendar[data-filter="rack=r2"]');
    expect(await rowNames(page)).toEqual(['r2-a']);
    await page.fill('#filter', 'rack=r1');
    await page.click('#filter-form button[type=submit]');
    await page.waitForSelector('#calendar[data-filter="rack=r1"]');
    expect(await rowNames(page)).toEqual(['r1-a', 'r1-b']);
    await page.fill('#filter', 'rack=r9');
    await page.click('#filter-form button[type=submit]');
    await page.waitForSelector('#calendar[data-filter="rack=r9"]');
    expect(await rowNames(page)).toEqual([]);
    await page.fill('#filter', '');
    await page.click('#filter-form button[type=submit]');
    await page.waitForSelector('#calendar[data-filter=""]');
    expect(await rowNames(page)).toHaveLength(4);
  });

  it('zooms from hours to months: the range changes and bars scale with it', async () => {
    const day = await shownRange(page);
    expect(day.end - day.start).toBe(24 * HOUR);
    const dayWidth = (await barsOf(page, leases.r2!.id))[0]!.width;
    await page.selectOption('#zoom', '1w');
    await page.waitForSelector('#calendar[data-zoom="1w"]');
    const week = await shownRange(page);
    expect(week.end - week.start).toBe(7 * 24 * HOUR);
    expect(week.start).toBeLessThanOrEqual(day.start);
    const weekWidth = (await barsOf(page, leases.r2!.id))[0]!.width;
    expect(weekWidth).toBeLessThan(dayWidth / 4);
    await page.selectOption('#zoom', '3m');
    await page.waitForSelector('#calendar[data-zoom="3m"]');
    expect((await shownRange(page)).end - (await shownRange(page)).start).toBe(90 * 24 * HOUR);
    await page.selectOption('#zoom', '6h');
    await page.waitForSelector('#calendar[data-zoom="6h"]');
    const hours = await shownRange(page);
    expect(hours.end - hours.start).toBe(6 * HOUR);
    // t0 + 4 h is past the end of six hours that start before now
    expect(hours.end).toBeLessThanOrEqual(t0 + 4 * HOUR);
    expect(await barsOf(page, leases['r1-both']!.id)).toEqual([]);
    await page.click('#later');
    const later = await shownRange(page);
    expect(later.start - hours.start).toBe(3 * HOUR);
    await page.selectOption('#zoom', '1d');
    await page.click('#today');
    await page.waitForSelector('#calendar[data-zoom="1d"]');
    const today = await shownRange(page);
    expect(today.end - today.start).toBe(24 * HOUR);
    expect(today.start).toBeLessThan(Date.now());
    expect(today.end).toBeGreaterThan(Date.now());
  });

  it('highlights the free windows POST /v1/availability answers for 2 hosts of rack r1 for 1 hour', async () => {
    await page.fill('#filter', 'rack=r1');
    await page.click('#filter-form button[type=submit]');
    await page.waitForSelector('#calendar[data-filter="rack=r1"]');
    await page.fill('#request-hosts', '2');
    await page.fill('#request-hours', '1');
    await page.click('#request-form button[type=submit]');
    await page.locator('#request-status', { hasText: 'free windows' }).waitFor();
    const range = await shownRange(page);
    const answer = await api(system.url).post('/v1/availability', {
      reservations: [rackHosts('r1', 2)],
      duration: 60,
      not_before: 'now',
      not_after: requestDate(range.end),
      limit: 50,
    });
    expect(answer.status, describeBody(answer)).toBe(200);
    const expected = (answer.body.windows as { start_date: string; end_date: string }[]).map((window) => ({
      start: window.start_date,
      end: window.end_date,
    }));
    const drawn = await page.$$eval('#calendar .free-window', (nodes) =>
      nodes.map((node) => ({ start: node.getAttribute('data-start'), end: node.getAttribute('data-end') })),
    );
    expect(drawn.map((window) => ({ start: requestDate(Date.parse(window.start)), end: requestDate(Date.parse(window.end)) }))).toEqual(
      expected,
    );
    // known from the calendar: both r1 hosts are first free together at t0 + 3 h, for an hour, then from t0 + 6 h
    expect(expected.slice(0, 3)).toEqual([
      { start: requestDate(t0 + 3 * HOUR), end: requestDate(t0 + 4 * HOUR) },
      { start: requestDate(t0 + 6 * HOUR), end: requestDate(t0 + 7 * HOUR) },
      { start: requestDate(t0 + 7 * HOUR), end: requestDate(t0 + 8 * HOUR) },
    ]);
    expect(await page.$$eval('#window-list li', (items) => items.length)).toBe(expected.length);
    await page.click(`#calendar .bar[data-lease-id="${leases['r1-both']!.id}"]`);
    if (SCREENSHOT !== undefined) await page.screenshot({ path: resolve(ROOT, SCREENSHOT), fullPage: true });
    await page.click('#clear-windows');
    expect(await page.$$eval('#calendar .free-window', (nodes) => nodes.length)).toBe(0);
  });

  it('draws the bookings of a lease that has ended, which the unfiltered allocation lists leave out, fetched by lease', async () => {
    const client = api(system.url);
    const id = leases.ending!.id;
    await eventually(
      async () => ((await client.get(`/v1/leases/${id}`)).body.lease.status === 'TERMINATED' ? true : undefined),
      150_000,
      'cal-ending to end',
    );
    const listed = (await client.get('/v1/os-hosts/allocations')).body.allocations.flatMap(
      (allocation: { reservations: { lease_id: string }[] }) => allocation.reservations,
    );
    expect(listed.map((booking: { lease_id: string }) => booking.lease_id)).not.toContain(id);
    await page.fill('#filter', '');
    await page.click('#filter-form button[type=submit]');
    await page.click('#auth-form button[type=submit]');
    // the bar drawn at the first load said ACTIVE: this one is the reload's
    await page.waitForSelector(`#calendar .bar[data-lease-id="${id}"][data-status="TERMINATED"]`);
    expect(await barsOf(page, id)).toEqual([expect.objectContaining({ row: 'r2-a', status: 'TERMINATED' })]);
    expect(await page.$eval(`#calendar .bar[data-lease-id="${id}"]`, (bar) => bar.classList.contains('status-terminated'))).toBe(true);
  }, 180_000);
});

/** Network segments need no reactor here: the page reads their bookings, which admission appends. */
describe.skipIf(!existsSync(CHROMIUM))('the calendar page with network segments', () => {
  let system: RunningSystem;
  let browser: Browser;
  let page: Page;
  let seen: ReturnType<typeof watch>;
  const t0 = Math.floor(Date.now() / HOUR) * HOUR + 2 * HOUR;
  const segments: Record<string, string> = {};
  const leases: Record<string, string> = {};
  const allocationCalls: string[] = [];

  const networkLease = async (name: string, start: string, end: number): Promise<string> => {
    const created = await api(system.url).post('/v1/leases', {
      name,
      start_date: start,
      end_date: requestDate(end),
      reservations: [{ resource_type: 'network', network_name: name, network_properties: '["==", "$physical_network", "physnet1"]' }],
    });
    expect(created.status, describeBody(created)).toBe(201);
    return created.body.lease.id;
  };

  /** The segment the API says holds the lease's booking, by its label. */
  const heldBy = async (leaseId: string): Promise<string | undefined> => {
    const listed = await api(system.url).get(`/v1/networks/allocations?lease_id=${leaseId}`);
    expect(listed.status, describeBody(listed)).toBe(200);
    const held = (listed.body.allocations as { resource_id: string; reservations: unknown[] }[]).find((a) => a.reservations.length > 0);
    return Object.entries(segments).find(([, id]) => id === held?.resource_id)?.[0];
  };

  beforeAll(async () => {
    system = await startSystem({ apps: ['api', 'projector'] });
    const client = api(system.url);
    expect((await client.post('/v1/os-hosts', { name: 'net-host' })).status).toBe(201);
    for (const segmentId of [150, 9]) {
      const created = await client.post('/v1/networks', { network_type: 'vlan', physical_network: 'physnet1', segment_id: segmentId });
      expect(created.status, describeBody(created)).toBe(201);
      segments[`vlan physnet1 ${segmentId}`] = created.body.network.id;
    }
    // ends in 45 to 105 s: the allocation list then leaves it out, and the page fetches it by lease
    leases.ending = await networkLease('cal-net-ending', 'now', Math.ceil((Date.now() + 45_000) / MINUTE) * MINUTE);
    leases.later = await networkLease('cal-net', requestDate(t0), t0 + 2 * HOUR);
    browser = await launch();
    page = await browser.newPage({ viewport: { width: 1400, height: 640 } });
    seen = watch(page, system.url);
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname === '/v1/networks/allocations') allocationCalls.push(url.search);
    });
    expect((await page.goto(`${system.url}/calendar`))?.status()).toBe(200);
    await page.waitForSelector('#calendar .row.network');
  });

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  afterEach((context) => {
    if (context.task.result?.state === 'fail') console.error(`system output (tail):\n${system?.output().slice(-3000)}`);
  });

  it('draws a Networks section after the hosts, a row per segment by type, physical network and id, with the bar of its booking', async () => {
    expect(await rowNames(page)).toEqual(['net-host', 'vlan physnet1 9', 'vlan physnet1 150']);
    expect(await page.$$eval('#calendar .group-label', (labels) => labels.map((label) => label.textContent))).toEqual([
      'Hosts',
      'Networks',
    ]);
    expect(await page.$$eval('#calendar .row.network', (rows) => rows.map((row) => row.getAttribute('data-id')))).toEqual([
      segments['vlan physnet1 9'],
      segments['vlan physnet1 150'],
    ]);
    const held = await heldBy(leases.later!);
    expect(held).toBeDefined();
    const iso = (instant: number) => new Date(instant).toISOString();
    expect(await barsOf(page, leases.later!)).toEqual([
      expect.objectContaining({ row: held, status: 'PENDING', start: iso(t0), end: iso(t0 + 2 * HOUR) }),
    ]);
    expect(await page.$eval('#status', (node) => node.textContent)).toMatch(/^1 hosts, 0 floating IPs and 2 network segments, loaded/);
    await page.click(`#calendar .bar[data-lease-id="${leases.later!}"]`);
    await page.waitForSelector(`#details[data-lease-id="${leases.later!}"]`);
    expect(await page.$eval('#details dd[data-field="resource"]', (node) => node.textContent)).toBe(`network segment ${held}`);
    expect(await page.$eval('#details dd[data-field="name"]', (node) => node.textContent)).toBe('cal-net');
    expect(seen.errors).toEqual([]);
  });

  it('filters segments on their fields as hosts on theirs', async () => {
    await page.fill('#filter', 'segment_id=150');
    await page.click('#filter-form button[type=submit]');
    await page.waitForSelector('#calendar[data-filter="segment_id=150"]');
    expect(await rowNames(page)).toEqual(['vlan physnet1 150']);
    await page.fill('#filter', '');
    await page.click('#filter-form button[type=submit]');
    await page.waitForSelector('#calendar[data-filter=""]');
    expect(await rowNames(page)).toHaveLength(3);
  });

  it('draws the booking of a network lease whose end has passed, which the unfiltered list leaves out, fetched by lease', async () => {
    const id = leases.ending!;
    const held = await heldBy(id);
    await eventually(
      async () => {
        const listed = (await api(system.url).get('/v1/networks/allocations')).body.allocations as {
          reservations: { lease_id: string }[];
        }[];
        return listed.some((allocation) => allocation.reservations.some((booking) => booking.lease_id === id)) ? undefined : true;
      },
      150_000,
      'cal-net-ending to end',
    );
    await page.click('#auth-form button[type=submit]');
    // the reload draws without it, then asks for its bookings by lease
    await expect.poll(() => allocationCalls).toContain(`?lease_id=${id}`);
    await page.waitForSelector(`#calendar .bar[data-lease-id="${id}"]`);
    expect((await barsOf(page, id)).map((bar) => bar.row)).toEqual([held]);
  }, 180_000);
});

describe.skipIf(!existsSync(CHROMIUM))('the calendar page with token authentication (LEASEHOLD_AUTH=static)', () => {
  let system: RunningSystem;
  let browser: Browser;
  let tokens: StaticAuth;

  beforeAll(async () => {
    tokens = staticAuthByToken({
      'calendar-token': { user_id: 'u', project_id: 'p', roles: ['admin'] },
      'member-token': { user_id: 'm', project_id: 'p', roles: ['member', 'reader'] },
    });
    system = await startSystem({ apps: ['api', 'projector'], env: tokens.env });
    const created = await api(system.url).post('/v1/os-hosts', { name: 'auth-host', rack: 'r1' }, { 'X-Auth-Token': 'calendar-token' });
    expect(created.status, describeBody(created)).toBe(201);
    browser = await launch();
  });

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
    tokens?.remove();
  });

  it('loads without a token but shows nothing until its API calls succeed with one, which it sends as X-Auth-Token', async () => {
    const page = await browser.newPage();
    const tokens: (string | null)[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/v1/')) tokens.push(request.headers()['x-auth-token'] ?? null);
    });
    expect((await page.goto(`${system.url}/calendar`))?.status()).toBe(200);
    await page.waitForSelector('#status.error');
    expect(await page.$eval('#status', (node) => node.textContent)).toContain('requires authentication');
    expect(await page.$eval('#calendar', (node) => node.hidden)).toBe(true);
    expect(await page.$$eval('#calendar .row', (rows) => rows.length)).toBe(0);
    await page.fill('#token', 'not-a-token');
    await page.click('#auth-form button[type=submit]');
    await page.locator('#status.error', { hasText: 'GET /v1/' }).waitFor();
    expect(await page.$eval('#calendar', (node) => node.hidden)).toBe(true);
    await page.fill('#token', 'calendar-token');
    await page.click('#auth-form button[type=submit]');
    await page.waitForSelector('#calendar .row');
    expect(await rowNames(page)).toEqual(['auth-host']);
    // each kind's resources and bookings (hosts, floating IPs, network segments) and the leases
    expect(tokens.slice(0, 7)).toEqual(Array(7).fill(null));
    expect(tokens.slice(-7)).toEqual(Array(7).fill('calendar-token'));
    await page.close();
  });

  it("shows a member nothing but the policy's refusal: hosts, maintenance windows, floating IP and segment allocations are admin only", async () => {
    const page = await browser.newPage();
    const refused: string[] = [];
    page.on('response', (response) => {
      if (response.status() === 403) refused.push(new URL(response.url()).pathname);
    });
    await page.goto(`${system.url}/calendar`);
    await page.waitForSelector('#status.error');
    await page.fill('#token', 'member-token');
    await page.click('#auth-form button[type=submit]');
    await page.locator('#status.error', { hasText: 'Policy' }).waitFor();
    expect(await page.$eval('#calendar', (node) => node.hidden)).toBe(true);
    await expect
      .poll(() => refused.sort())
      .toEqual([
        '/v1/floatingips/allocations',
        '/v1/floatingips/maintenance',
        '/v1/networks',
        '/v1/networks/allocations',
        '/v1/networks/maintenance',
        '/v1/os-hosts',
        '/v1/os-hosts/allocations',
        '/v1/os-hosts/maintenance',
      ]);
    await page.close();
  });
});
