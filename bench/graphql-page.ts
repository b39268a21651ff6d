import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Call, blazarDate, launch, percentile } from './bench-http.js';

/**
 * A dashboard's page: 100 leases with their reservations and what each holds (whole hosts, instance
 * slots, addresses), once through one GraphQL query and once through the REST calls that give the
 * same data (the leases, then the host and floating-IP allocations), alternating, on one system.
 * `node dist/bench/graphql-page.js` runs it alone.
 */
const LEASES = 100;
const ROUNDS = 200;
const NET = '0b1c2d3e-4f50-4a6b-8c7d-9e0f1a2b3c4d';

const PAGE = `query Page($first: Int!) {
  leases(first: $first) {
    edges { node { id name status start_date end_date reservations { id resource_type status end_action allocations { resource_kind resource_id start_date end_date slots { count } } } } }
  }
}`;

export interface GraphqlPageFigures {
  readonly leases: number;
  readonly rounds: number;
  readonly graphql_p50_ms: number;
  readonly graphql_p95_ms: number;
  readonly rest_p50_ms: number;
  readonly rest_p95_ms: number;
}

const build = async (call: Call): Promise<void> => {
  for (let i = 0; i < 10; i++) await call('POST', '/v1/os-hosts', { name: `page-${i}`, vcpus: 16, memory_mb: 65536, local_gb: 500 });
  for (let i = 0; i < 20; i++) await call('POST', '/v1/floatingips', { floating_network_id: NET, floating_ip_address: `10.70.0.${i + 1}` });
  const t0 = Math.ceil(Date.now() / 3600_000) * 3600_000 + 24 * 3600_000;
  for (let i = 0; i < LEASES; i++) {
    const start = t0 + i * 3600_000;
    const reservations = [
      { resource_type: 'physical:host', min: 1, max: 1, hypervisor_properties: '', resource_properties: '' },
      { resource_type: 'virtual:instance', amount: 2, vcpus: 1, memory_mb: 1024, disk_gb: 10, affinity: null, resource_properties: '' },
      { resource_type: 'virtual:floatingip', network_id: NET, amount: 1 },
    ];
    const created = await call('POST', '/v1/leases', {
      name: `page-${i}`,
      start_date: blazarDate(start),
      end_date: blazarDate(start + 3000_000),
      reservations,
    });
    if (created.status !== 201) throw new Error(`lease ${i}: ${created.status} ${JSON.stringify(created.body)}`);
  }
};

const viaGraphql = async (call: Call): Promise<number> => {
  const answer = await call('POST', '/graphql', { query: PAGE, variables: { first: LEASES } });
  if (answer.status !== 200 || answer.body.errors !== undefined || answer.body.data.leases.edges.length !== LEASES)
    throw new Error(`graphql: ${JSON.stringify(answer.body).slice(0, 300)}`);
  return answer.ms;
};

/** What a REST client asks for the same page: the leases, and every allocation of hosts and of addresses. */
const viaRest = async (call: Call): Promise<number> => {
  const started = performance.now();
  const [leases, hosts, ips] = await Promise.all([
    call('GET', '/v1/leases'),
    call('GET', '/v1/os-hosts/allocations'),
    call('GET', '/v1/floatingips/allocations'),
  ]);
  if (leases.body.leases.length !== LEASES || hosts.status !== 200 || ips.status !== 200) throw new Error('rest: unexpected answer');
  return performance.now() - started;
};

export const runGraphqlPageBench = async (port: number): Promise<GraphqlPageFigures> => {
  const dataDir = mkdtempSync(join(tmpdir(), 'leasehold-bench-graphql-'));
  try {
    const system = await launch(port, dataDir);
    try {
      await build(system.call);
      // both once first: the read models caught up, the code paths warm
      await viaGraphql(system.call);
      await viaRest(system.call);
      const graphql: number[] = [];
      const rest: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        graphql.push(await viaGraphql(system.call));
        rest.push(await viaRest(system.call));
      }
      const ms = (value: number) => +value.toFixed(1);
      return {
        leases: LEASES,
        rounds: ROUNDS,
        graphql_p50_ms: ms(percentile(graphql, 50)),
        graphql_p95_ms: ms(percentile(graphql, 95)),
        rest_p50_ms: ms(percentile(rest, 50)),
        rest_p95_ms: ms(percentile(rest, 95)),
      };
    } finally {
      await system.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
};

export const graphqlPageRows = (figures: GraphqlPageFigures): string[] => [
  `| a page of ${figures.leases} leases with reservations and allocations: one GraphQL query p50 / p95 | ${figures.graphql_p50_ms} ms / ${figures.graphql_p95_ms} ms | not offered |`,
  `| the same data through REST (leases, host and floating-IP allocations, in parallel) p50 / p95 | ${figures.rest_p50_ms} ms / ${figures.rest_p95_ms} ms | |`,
];

if (process.argv[1]?.endsWith('graphql-page.js')) {
  runGraphqlPageBench(Number(process.env.BENCH_PORT ?? 62250))
    .then((figures) => {
      console.log(JSON.stringify(figures, null, 2));
      for (const row of graphqlPageRows(figures)) console.log(row);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
