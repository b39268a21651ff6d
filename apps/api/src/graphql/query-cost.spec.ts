import { readFileSync } from 'node:fs';
import { buildSchema, getOperationAST, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PAGE, MAX_PAGE } from './lease-cursor.js';
import { BOOKINGS_PER_HOST, BOOKINGS_PER_LEASE, HISTORY_ROWS, LIST_ESTIMATE, REPORT_ROWS, estimate } from './query-cost.js';

/** The schema the API serves (test/e2e/graphql.e2e.spec.ts holds docs/schema.graphql to it). */
const schema = buildSchema(readFileSync(new URL('../../../../docs/schema.graphql', import.meta.url), 'utf8'));

const estimateOf = (query: string, variables: Record<string, unknown> = {}) => {
  const document = parse(query);
  const operation = getOperationAST(document);
  if (operation === null || operation === undefined) throw new Error('no operation');
  return estimate(schema, document, operation, variables);
};

const rowsOf = (query: string, variables: Record<string, unknown> = {}): number => estimateOf(query, variables).rows;

const aliases = (count: number, field: string): string => Array.from({ length: count }, (_, i) => `a${i}: ${field}`).join(' ');

describe('the rows an operation reads, estimated before it runs', () => {
  it('a page of leases reads one lease more than its size (to know whether another follows); 50 when no size is given', () => {
    expect(rowsOf('{ leases(first: 20) { edges { node { id name reservations { id } events { id } } } } }')).toBe(21);
    expect(rowsOf('{ leases { edges { node { id } } pageInfo { hasNextPage } } }')).toBe(DEFAULT_PAGE + 1);
    expect(rowsOf('{ lease(id: "x") { id reservations { id } } }')).toBe(1);
  });

  it("counts each lease's history as its streams, HISTORY_ROWS per lease of the page", () => {
    expect(rowsOf('{ leases(first: 500) { edges { node { id history { position type } } } } }')).toBe(501 + 500 * HISTORY_ROWS);
    expect(rowsOf('query($id: ID!) { lease(id: $id) { history { type actor { user_id } } } }')).toBe(1 + HISTORY_ROWS);
  });

  it("counts a lease's bookings per lease, however its reservations' allocations are asked for", () => {
    const page = '{ leases(first: 10) { edges { node { reservations { allocations { resource_id slots { count } } } } } } }';
    expect(rowsOf(page)).toBe(11 + 10 * BOOKINGS_PER_LEASE);
    const byType = `{ leases(first: 10) { edges { node { reservations {
      ... on HostReservation { allocations { resource_id } } ... on FloatingIpReservation { allocations { resource_id } } } } } } }`;
    expect(rowsOf(byType)).toBe(11 + 2 * 10 * BOOKINGS_PER_LEASE);
  });

  it("counts every host and every floating IP at LIST_ESTIMATE, a host's bookings at BOOKINGS_PER_HOST, a report at REPORT_ROWS", () => {
    expect(rowsOf('{ hosts { id allocations { lease_id } capabilities { key } } }')).toBe(
      LIST_ESTIMATE + LIST_ESTIMATE * BOOKINGS_PER_HOST,
    );
    expect(rowsOf('{ floatingIps { id } host(id: "1") { id } }')).toBe(LIST_ESTIMATE + 1);
    expect(rowsOf('{ usage(start: "2030-01-01 00:00", end: "2030-02-01 00:00") { lines } }')).toBe(REPORT_ROWS);
  });

  it("counts what a mutation's answer reads, not the write", () => {
    expect(rowsOf('mutation { deleteLease(id: "x") }')).toBe(0);
    expect(rowsOf('mutation($input: CreateLeaseInput!) { createLease(input: $input) { id history { type } } }')).toBe(HISTORY_ROWS);
  });

  it('adds aliases, and counts fragments where they are spread, nested or not', () => {
    expect(rowsOf(`{ ${aliases(30, 'leases(first: 20) { edges { node { id } } }')} }`)).toBe(30 * 21);
    const spread = `{ a: leases(first: 5) { ...Page } b: leases(first: 7) { ...Page } }
      fragment Page on LeaseConnection { edges { node { ...Lease } } }
      fragment Lease on Lease { history { type } }`;
    expect(rowsOf(spread)).toBe(6 + 5 * HISTORY_ROWS + 8 + 7 * HISTORY_ROWS);
  });

  it('leaves introspection out', () => {
    expect(rowsOf('{ __schema { types { name fields { name } } } __typename }')).toBe(0);
  });
});

describe('the values an answer holds, estimated before it runs', () => {
  const valuesOf = (query: string): number => estimateOf(query).values;

  it('counts each field answered once per object it is answered for, objects and lists included', () => {
    // leases, edges, 20 nodes, and two fields of each node
    expect(valuesOf('{ leases(first: 20) { edges { node { id name } } } }')).toBe(1 + 1 + 20 + 20 * 2);
    // a list nothing sizes holds LIST_ESTIMATE objects
    expect(valuesOf('{ lease(id: "x") { events { id } } }')).toBe(1 + 1 + LIST_ESTIMATE * 1);
  });

  it('grows with aliases of plain fields, which read no more rows: a flood of them is seen before it runs', () => {
    const flood = estimateOf(`{ leases(first: ${MAX_PAGE}) { edges { node { ${aliases(9000, 'id')} } } } }`);
    expect(flood.rows).toBe(MAX_PAGE + 1);
    expect(flood.values).toBeGreaterThan(9000 * MAX_PAGE);
  });
});

describe('page sizes, literal or variable, as the resolver will get them', () => {
  const PAGE = 'query($first: Int) { leases(first: $first) { edges { node { id } } } }';

  it("takes a variable's value, else its default, else the default page", () => {
    expect(estimateOf(PAGE, { first: 7 })).toMatchObject({ rows: 8, badPages: [] });
    expect(estimateOf('query($first: Int = 9) { leases(first: $first) { edges { node { id } } } }')).toMatchObject({
      rows: 10,
      badPages: [],
    });
    expect(estimateOf(PAGE)).toMatchObject({ rows: DEFAULT_PAGE + 1, badPages: [] });
    expect(estimateOf(PAGE, { first: null })).toMatchObject({ rows: DEFAULT_PAGE + 1, badPages: [] });
  });

  it.each([0, -1, MAX_PAGE + 1, 2 ** 31 - 1, 1.5, '5', true])('names %j as a variable a bad page, counted at the largest page', (first) => {
    expect(estimateOf(PAGE, { first })).toMatchObject({ rows: MAX_PAGE + 1, badPages: [first] });
  });

  it('a negative literal cannot make the estimate smaller: beside 300 pages of histories it is a bad page, and the rest still counts', () => {
    const attack = `{ negative: leases(first: -100000000) { edges { node { id } } }
      ${aliases(300, 'leases(first: 500) { edges { node { id history { position type } } } }')} }`;
    const { rows, badPages } = estimateOf(attack);
    expect(badPages).toEqual([-100000000]);
    expect(rows).toBe(MAX_PAGE + 1 + 300 * (501 + 500 * HISTORY_ROWS));
  });

  it('checks page sizes inside fragments too', () => {
    const query = 'query($n: Int) { ...Leases } fragment Leases on Query { leases(first: $n) { edges { cursor } } }';
    expect(estimateOf(query, { n: 0 }).badPages).toEqual([0]);
    expect(estimateOf(query, { n: 4 }).badPages).toEqual([]);
  });
});
