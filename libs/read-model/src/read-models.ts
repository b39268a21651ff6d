/**
 * The read models, one per projection: each has its own checkpoint, so one that cannot go on holds
 * back only the reads it serves. The API names the ones a route reads; the projector fills them.
 */
export const READ_MODELS = [
  'leases',
  'hosts',
  'allocations',
  'properties',
  'floatingips',
  'floatingip-allocations',
  'networks',
  'network-allocations',
  'flavors',
  'availability',
] as const;

export type ReadModelName = (typeof READ_MODELS)[number];
