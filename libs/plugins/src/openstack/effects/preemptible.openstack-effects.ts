import type { EffectRecord } from '#domain/index.js';
import type { PreemptibleSettings } from '../../cloud-config.js';
import { done } from '../../effects.port.js';
import { PREEMPTIBLE_NAME, childProviderName } from '../../reservation-names.js';
import type { NovaClient, Server } from '../nova.client.js';
import { ignoreNotFound, isNotFound } from '../openstack.errors.js';
import { type PlacementClient, type ResourceProvider, inventoryOf } from '../placement.client.js';
import { type ServerDeletion, deleteServers, ignoreConflict } from './openstack-effects.support.js';

/** LEASEHOLD_PREEMPTIBLE=true: how long a preemptible server gets to shut down cleanly before it is deleted. */
export interface PreemptibleOptions {
  readonly graceMs: number;
  readonly pollMs: number;
  readonly deletion: ServerDeletion;
}

/** The settings' grace period, with Nova polled every second and deletions awaited as at a lease's end. */
export const preemptibleOptionsOf = (settings: PreemptibleSettings | null): PreemptibleOptions | null =>
  settings === null ? null : { graceMs: settings.graceSeconds * 1_000, pollMs: 1_000, deletion: { timeoutMs: 120_000, pollMs: 1_000 } };

/**
 * How many preemptible servers one free host may take at most: the host's own vCPU, memory and disk
 * inventories are the real bound, this only has to be larger.
 */
export const PREEMPTIBLE_SLOTS = 1000;

/**
 * The flavor asks for the preemptible class: only such a flavor can reach a freepool host (admins see extra specs in the embedded flavor).
 */
export const isPreemptible = (server: Server): boolean => {
  const amount = server.flavor.extra_specs?.[`resources:${PREEMPTIBLE_NAME}`];
  return amount !== undefined && Number(amount) > 0;
};

/** A reserved host by its two Nova names, and Leasehold's id for it. */
export interface PreemptibleHost {
  readonly hostId: string;
  readonly hypervisor: string;
  readonly service: string;
}

const childOf = async (placement: PlacementClient, hypervisor: string): Promise<ResourceProvider | null> =>
  placement.findResourceProvider(childProviderName(hypervisor));

/**
 * Opens a free host to preemptible servers: its child provider gets the class's inventory (kept from
 * then on, since running preemptibles hold allocations of it) and the trait the preemptible flavor requires.
 */
export const openPreemptible = async (placement: PlacementClient, hypervisor: string): Promise<EffectRecord> => {
  const record = { operation: 'preemptible.open', resource_provider: childProviderName(hypervisor) };
  const child = await childOf(placement, hypervisor);
  // a host enrollment never finished: nothing can land on it either way
  if (child === null) return done(record, false);
  await placement.ensureResourceClass(PREEMPTIBLE_NAME);
  await placement.ensureTrait(PREEMPTIBLE_NAME);
  const { inventories } = await placement.getInventories(child.uuid);
  const stocked = inventories[PREEMPTIBLE_NAME] !== undefined;
  if (!stocked) await placement.setInventory(child.uuid, PREEMPTIBLE_NAME, inventoryOf(PREEMPTIBLE_SLOTS, { max_unit: 1 }));
  let added = false;
  await placement.updateProviderTraits(child.uuid, (traits) => {
    added = !traits.includes(PREEMPTIBLE_NAME);
    return added ? [...traits, PREEMPTIBLE_NAME] : traits;
  });
  return done(record, added || !stocked);
};

/** Closes a host to new preemptible servers (those running keep their allocations until they are reaped). */
export const closePreemptible = async (placement: PlacementClient, hypervisor: string): Promise<EffectRecord> => {
  const record = { operation: 'preemptible.close', resource_provider: childProviderName(hypervisor) };
  const child = await childOf(placement, hypervisor);
  // read first: a converge finds it closed, and an unchanged PUT would still move the provider's generation on
  if (child === null || !(await placement.getProviderTraits(child.uuid)).traits.includes(PREEMPTIBLE_NAME)) return done(record, false);
  let removed = false;
  await placement.updateProviderTraits(child.uuid, (traits) => {
    removed = traits.includes(PREEMPTIBLE_NAME);
    return traits.filter((trait) => trait !== PREEMPTIBLE_NAME);
  });
  return done(record, removed);
};

/**
 * Unenrollment: closed, and the class's inventory gone (the host runs no servers by then, Leasehold refuses to unregister it otherwise).
 */
export const dropPreemptible = async (placement: PlacementClient, hypervisor: string): Promise<EffectRecord> => {
  const closed = await closePreemptible(placement, hypervisor);
  const child = await childOf(placement, hypervisor);
  const deleted = child !== null && (await ignoreNotFound(placement.deleteInventory(child.uuid, PREEMPTIBLE_NAME)));
  return done({ operation: 'preemptible.drop', resource_provider: childProviderName(hypervisor) }, closed.already !== true || deleted);
};

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface Doomed {
  readonly host: PreemptibleHost;
  readonly server: Server;
}

/** Asks each to shut down; the ones Nova accepted it for are those worth waiting for. */
const stopAll = async (nova: NovaClient, doomed: readonly Doomed[]): Promise<Set<string>> => {
  const stopping = new Set<string>();
  for (const { server } of doomed) {
    if (server.status !== 'ACTIVE') continue;
    // 409: already stopping or in a state that cannot stop; 404: gone meanwhile; either way deletion follows
    let accepted = false;
    await ignoreNotFound(ignoreConflict(nova.stopServer(server.id)).then((ok) => (accepted = ok)));
    if (accepted) stopping.add(server.id);
  }
  return stopping;
};

/** Waits, at most the grace period, until every server told to stop is SHUTOFF (or gone); returns those that got there. */
const awaitShutoff = async (nova: NovaClient, waiting: Set<string>, options: PreemptibleOptions): Promise<Set<string>> => {
  const stopped = new Set<string>();
  const deadline = Date.now() + options.graceMs;
  for (;;) {
    for (const id of waiting) {
      const status = await nova.getServer(id).then(
        (server) => server.status,
        (error: unknown) => {
          if (isNotFound(error)) return 'DELETED';
          throw error;
        },
      );
      if (status === 'SHUTOFF' || status === 'DELETED') {
        stopped.add(id);
        waiting.delete(id);
      }
    }
    if (waiting.size === 0 || Date.now() >= deadline) return stopped;
    await sleep(options.pollMs);
  }
};

/** Written on a server before it is stopped (then with ` stopped` once SHUTOFF): Nova keeps a deleted server's description. */
export const reapMarker = (idempotencyKey: string): string => `leasehold:reap ${idempotencyKey}`;

/** How far back a rerun looks for servers an interrupted attempt deleted before it could record them. */
const RECOVERY_WINDOW_MS = 24 * 3_600_000;

const reapRecord = (host: PreemptibleHost, server: Server, stopped: boolean): EffectRecord => ({
  operation: 'preemptible.reap',
  host_id: host.hostId,
  host: host.service,
  server_id: server.id,
  project_id: server.tenant_id,
  flavor: server.flavor.original_name,
  stopped,
});

/** Marks first, so that a rerun after a crash can still tell which deleted servers this effect reaped. */
const mark = async (nova: NovaClient, doomed: readonly Doomed[], marker: string): Promise<void> => {
  for (const { server } of doomed)
    if (!(server.description ?? '').startsWith(marker)) await ignoreNotFound(nova.setServerDescription(server.id, marker));
};

/** Servers this effect (same idempotency key) deleted in an attempt that ended before its outcome was recorded. */
const deletedEarlier = async (nova: NovaClient, host: PreemptibleHost, marker: string): Promise<EffectRecord[]> => {
  const since = new Date(Date.now() - RECOVERY_WINDOW_MS).toISOString();
  const deleted = await nova.listServers({ host: host.service, deletedSince: since });
  return deleted.flatMap((server) =>
    server.description === marker || server.description === `${marker} stopped`
      ? [reapRecord(host, server, server.description !== marker)]
      : [],
  );
};

/**
 * Shuts down then deletes every preemptible server on the hosts (soft stop, at most the grace period,
 * then delete, waiting until Nova no longer knows them). Other servers are left alone. One record per
 * server reaped, which the lease's decider turns into Lease.PreemptibleServerReaped; a rerun records
 * again the servers an interrupted attempt under the same key already deleted (their description says so).
 */
export const reapPreemptibles = async (
  nova: NovaClient,
  hosts: readonly PreemptibleHost[],
  options: PreemptibleOptions,
  idempotencyKey: string,
): Promise<readonly EffectRecord[]> => {
  const marker = reapMarker(idempotencyKey);
  const doomed: Doomed[] = [];
  const earlier: EffectRecord[] = [];
  for (const host of hosts) {
    for (const server of await nova.listServers({ host: host.service })) if (isPreemptible(server)) doomed.push({ host, server });
    earlier.push(...(await deletedEarlier(nova, host, marker)));
  }
  if (doomed.length === 0) return earlier;
  await mark(nova, doomed, marker);
  const stopped = await awaitShutoff(nova, await stopAll(nova, doomed), options);
  const wasStopped = ({ server }: Doomed): boolean => server.status === 'SHUTOFF' || stopped.has(server.id);
  for (const entry of doomed) if (wasStopped(entry)) await ignoreNotFound(nova.setServerDescription(entry.server.id, `${marker} stopped`));
  await deleteServers(
    nova,
    doomed.map(({ server }) => server),
    options.deletion,
  );
  const fresh = new Set(doomed.map(({ server }) => server.id));
  return [
    ...doomed.map((entry) => reapRecord(entry.host, entry.server, wasStopped(entry))),
    ...earlier.filter((r) => !fresh.has(r.server_id as string)),
  ];
};
