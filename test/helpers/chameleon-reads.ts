import type { Exchange } from './client-exchanges.js';

/** What `lease show` prints of a network reservation (the fork prints every key; these are the type's own). */
const NETWORK_RESERVATION = [
  'id',
  'resource_type',
  'status',
  'network_name',
  'network_description',
  'network_properties',
  'resource_properties',
  'before_end',
  'network_id',
].map((key) => `lease.reservations.*.${key}`);

/**
 * The keys the fork's managers (blazarclient/v1/networks.py, leases.py) and commands (shell_commands/, command.py,
 * utils.py) read from each answer: `body['network']`, a list sorted by its default `--sort-by` column, a name
 * looked up in a list (`resource.get('name')`, then `['id']`), the lease dates `lease set` adds to, the list columns
 * it prints. A missing one is a KeyError or an empty column in the client.
 */
const ROUTES: readonly { readonly method: string; readonly path: RegExp; readonly reads: readonly string[] }[] = [
  { method: 'POST', path: /^\/v1\/networks$/, reads: ['network', 'network.id'] },
  {
    method: 'GET',
    path: /^\/v1\/networks$/,
    reads: ['networks', 'networks.*.id', 'networks.*.network_type', 'networks.*.physical_network', 'networks.*.segment_id'],
  },
  {
    method: 'GET',
    path: /^\/v1\/networks\/allocations$/,
    reads: ['allocations', 'allocations.*.resource_id', 'allocations.*.reservations'],
  },
  { method: 'GET', path: /^\/v1\/networks\/properties$/, reads: ['resource_properties', 'resource_properties.*.property'] },
  { method: 'PATCH', path: /^\/v1\/networks\/properties\/[^/]+$/, reads: ['resource_property'] },
  {
    method: 'GET',
    path: /^\/v1\/networks\/[^/]+\/allocation$/,
    reads: ['allocation', 'allocation.resource_id', 'allocation.reservations'],
  },
  { method: 'GET', path: /^\/v1\/networks\/[^/]+$/, reads: ['network'] },
  { method: 'PUT', path: /^\/v1\/networks\/[^/]+$/, reads: ['network'] },
  { method: 'DELETE', path: /^\/v1\/networks\/[^/]+$/, reads: [] },
  { method: 'POST', path: /^\/v1\/leases$/, reads: ['lease', ...NETWORK_RESERVATION] },
  { method: 'GET', path: /^\/v1\/leases$/, reads: ['leases', 'leases.*.id', 'leases.*.name', 'leases.*.start_date', 'leases.*.end_date'] },
  { method: 'GET', path: /^\/v1\/leases\/[^/]+$/, reads: ['lease', 'lease.start_date', 'lease.end_date', ...NETWORK_RESERVATION] },
  { method: 'PUT', path: /^\/v1\/leases\/[^/]+$/, reads: ['lease'] },
  { method: 'DELETE', path: /^\/v1\/leases\/[^/]+$/, reads: [] },
];

/** `?detail=True`: each property's values and privacy, which `network property list --detail` and `property show` print. */
const DETAIL = ['resource_properties.*.values', 'resource_properties.*.private'];

/** The keys the fork reads from this exchange's answer; from an error, its message (`body.get('error_message', body)`). */
export const chameleonReads = (exchange: Pick<Exchange, 'method' | 'path' | 'query' | 'status'>): readonly string[] => {
  if (exchange.status >= 400) return ['error_message'];
  const route = ROUTES.find(({ method, path }) => method === exchange.method && path.test(exchange.path));
  if (route === undefined) throw new Error(`no known reads for ${exchange.method} ${exchange.path}: add the fork's to chameleon-reads.ts`);
  return exchange.query.split('&').includes('detail=True') ? [...route.reads, ...DETAIL] : route.reads;
};
