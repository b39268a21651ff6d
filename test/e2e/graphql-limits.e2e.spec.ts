/**
 * What /graphql refuses before running anything, as configured: queries nested deeper than
 * LEASEHOLD_GRAPHQL_MAX_DEPTH or estimated to read more rows than LEASEHOLD_GRAPHQL_MAX_COST, and
 * introspection when LEASEHOLD_GRAPHQL_INTROSPECTION=0; and the explorer page, served from here.
 */
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CHROMIUM = '/usr/bin/chromium';
import { graphqlClient } from '../helpers/graphql.js';
import { type RunningSystem, startSystem } from '../helpers/system.js';

let system: RunningSystem;

beforeAll(async () => {
  system = await startSystem({
    apps: ['api'],
    env: {
      LEASEHOLD_GRAPHQL_INTROSPECTION: '0',
      LEASEHOLD_GRAPHQL_MAX_DEPTH: '5',
      LEASEHOLD_GRAPHQL_MAX_COST: '1000',
      LEASEHOLD_GRAPHQL_MAX_MUTATIONS: '3',
    },
  });
});

afterAll(async () => {
  await system?.stop();
});

describe('limits', () => {
  it('refuses a query nested deeper than the limit with a 400 that says so', async () => {
    const reply = await graphqlClient(system.url)('{ leases { edges { node { reservations { allocations { slots { count } } } } } } }');
    expect(reply.status).toBe(400);
    expect(reply.data).toBeUndefined();
    expect(reply.errors?.[0]?.message).toBe('Query too deep: 7 levels of fields, at most 5');
    // at the limit it runs
    expect((await graphqlClient(system.url)('{ leases { edges { node { reservations { id } } } } }')).errors).toBeUndefined();
  });

  it('refuses a query that may read more rows than the limit, whatever way it is spread (aliases, fragments, variables)', async () => {
    const graphql = graphqlClient(system.url);
    const wide = await graphql('{ leases(first: 500) { edges { node { id history { type } } } } }');
    expect(wide.status).toBe(400);
    expect(wide.data).toBeUndefined();
    expect(wide.errors?.[0]?.message).toBe(
      'Query too costly: it may read up to 20501 rows, at most 1000 (ask for smaller pages or fewer fields)',
    );
    expect(wide.errors?.[0]?.extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const aliased = await graphql(
      `{ ${Array.from({ length: 50 }, (_, i) => `a${i}: leases(first: 20) { edges { node { id } } }`).join(' ')} }`,
    );
    expect(aliased.errors?.[0]?.message).toMatch(/^Query too costly: it may read up to \d+ rows, at most 1000/);
    const FRAGMENTS =
      'query($n: Int) { leases(first: $n) { ...Page } } fragment Page on LeaseConnection { edges { node { id history { type } } } }';
    expect((await graphql(FRAGMENTS, { n: 200 })).errors?.[0]?.message).toMatch(/^Query too costly/);
    // the variable's value counts, not the largest page it could be
    expect((await graphql(FRAGMENTS, { n: 10 })).errors).toBeUndefined();
    expect((await graphql('{ leases(first: 10) { edges { node { id reservations { id } } } } }')).errors).toBeUndefined();
  });

  it('refuses more mutations in one operation than the limit, aliases and fragments counted, before any runs', async () => {
    const graphql = graphqlClient(system.url);
    const deletes = (n: number): string => Array.from({ length: n }, (_, i) => `d${i}: deleteLease(id: "no-such-lease-${i}")`).join(' ');
    const four = await graphql(`mutation { ${deletes(4)} }`);
    expect(four.status).toBe(400);
    expect(four.data).toBeUndefined();
    expect(four.errors?.map((e) => e.message)).toEqual(['Too many mutations: 4 in one operation, at most 3']);
    const spread = await graphql(
      `mutation { ${deletes(2)} ...More } fragment More on Mutation { x: deleteLease(id: "a") y: deleteLease(id: "b") }`,
    );
    expect(spread.errors?.map((e) => e.message)).toEqual(['Too many mutations: 4 in one operation, at most 3']);
    // at the limit they run: the first answers its not-found (a non-null field, so the operation stops there)
    const three = await graphql(`mutation { ${deletes(3)} }`);
    expect(three.errors?.map((e) => e.extensions.code)).toEqual(['NOT_FOUND']);
  });

  it('a fragment that spreads itself is refused as GraphQL refuses it, not walked forever', async () => {
    const reply = await graphqlClient(system.url)(
      '{ leases { ...Loop } } fragment Loop on LeaseConnection { pageInfo { hasNextPage } ...Loop }',
    );
    expect(reply.status).toBe(400);
    expect(reply.errors?.map((e) => e.message)).toContain('Cannot spread fragment "Loop" within itself.');
  });

  it('answers no introspection when it is switched off', async () => {
    const reply = await graphqlClient(system.url)('{ __schema { types { name } } }');
    expect(reply.status).toBe(400);
    expect(reply.errors?.[0]?.message).toMatch(/introspection is not allowed/i);
  });
});

describe('the explorer page', () => {
  it('is GraphiQL at /graphql for a browser, every file of it served by this service', async () => {
    const response = await fetch(`${system.url}/graphql`, { headers: { Accept: 'text/html' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).toContain('<title>Leasehold GraphQL</title>');
    expect(html).not.toMatch(/https?:\/\//);
    const files = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1] as string);
    expect(files).toEqual([
      '/graphql-explorer/graphiql.css',
      ...['react.production.min.js', 'react-dom.production.min.js', 'graphiql.min.js', 'explorer.js'].map(
        (name) => `/graphql-explorer/${name}`,
      ),
    ]);
    for (const file of files) {
      const served = await fetch(`${system.url}${file}`);
      expect(served.status, file).toBe(200);
      expect(served.headers.get('content-type'), file).toMatch(file.endsWith('.css') ? /^text\/css/ : /^text\/javascript/);
    }
    expect((await fetch(`${system.url}/graphql-explorer/package.json`)).status).toBe(404);
  });

  it.skipIf(!existsSync(CHROMIUM))(
    'renders in headless Chromium, loading nothing from elsewhere, and runs its example query against /graphql',
    async () => {
      const browser = await chromium.launch({
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
      try {
        const page = await browser.newPage();
        const elsewhere: string[] = [];
        const errors: string[] = [];
        page.on('request', (request) => void (new URL(request.url()).origin === system.url ? undefined : elsewhere.push(request.url())));
        page.on('pageerror', (error) => void errors.push(error.message));
        await page.goto(`${system.url}/graphql`);
        await page.waitForSelector('.graphiql-container', { timeout: 30_000 });
        const answered = page.waitForResponse(
          (response) =>
            response.url() === `${system.url}/graphql` &&
            response.request().method() === 'POST' &&
            (response.request().postData() ?? '').includes('query Leases'),
        );
        await page.click('.graphiql-execute-button');
        expect((await answered).status()).toBe(200);
        await expect.poll(() => page.locator('.graphiql-response').innerText(), { timeout: 30_000 }).toContain('"hasNextPage"');
        expect(elsewhere).toEqual([]);
        expect(errors).toEqual([]);
      } finally {
        await browser.close();
      }
    },
    90_000,
  );
});
