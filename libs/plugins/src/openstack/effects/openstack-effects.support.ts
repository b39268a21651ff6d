import type { EffectRecord } from '#domain/index.js';
import { type EffectContext, EffectFailedError } from '../../effects.port.js';
import type { NeutronClient } from '../neutron.client.js';
import type { Aggregate, Hypervisor, NovaClient, Server } from '../nova.client.js';
import { OpenStackConflictError, OpenStackError, OpenStackHttpError, ignoreNotFound, isNotFound } from '../openstack.errors.js';
import { type OpenStackSession, requestIdFor } from '../openstack.session.js';
import { PlacementClient } from '../placement.client.js';

export {
  FREEPOOL_TRAIT,
  childProviderName,
  reservationAggregateName,
  reservationCustomName,
  reservationObjectName,
} from '../../reservation-names.js';

/** Every call of one effect shares one global request id, derived from the effect's idempotency key. */
export interface EffectClients {
  readonly nova: NovaClient;
  readonly placement: PlacementClient;
  readonly neutron: NeutronClient;
}

export interface OpenStackClients {
  readonly session: OpenStackSession;
  readonly nova: NovaClient;
  readonly neutron: NeutronClient;
}

export const clientsFor = (clients: OpenStackClients, context: EffectContext): EffectClients => {
  const id = requestIdFor(context.idempotencyKey);
  return {
    nova: clients.nova.withRequestId(id),
    placement: new PlacementClient(clients.session.withRequestId(id)),
    neutron: clients.neutron.withRequestId(id),
  };
};

/**
 * Runs the steps of one effect; a refusal of the cloud (a 4xx that stays a 4xx) becomes the recorded
 * outcome with the cloud's message and the steps done so far. No answer, a 5xx or 429 stay transient.
 */
export const recording = async (steps: (effects: EffectRecord[]) => Promise<void>): Promise<readonly EffectRecord[]> => {
  const effects: EffectRecord[] = [];
  try {
    await steps(effects);
  } catch (error) {
    if (error instanceof EffectFailedError) throw error.effects.length === 0 ? new EffectFailedError(error.message, effects) : error;
    if (error instanceof OpenStackHttpError && !error.transient) throw new EffectFailedError(error.cloudMessage, effects);
    if (error instanceof OpenStackError && !error.transient) throw new EffectFailedError(error.message, effects);
    throw error;
  }
  return effects;
};

/** Still-pending work the next attempt finishes (e.g. servers that take a while to go away): transient, not an outcome. */
export class EffectNotFinishedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EffectNotFinishedError';
  }
}

/** True when the call succeeded, false when the cloud answered 409 (already done). */
export const ignoreConflict = async (call: Promise<unknown>): Promise<boolean> => {
  try {
    await call;
    return true;
  } catch (error) {
    if (error instanceof OpenStackConflictError) return false;
    throw error;
  }
};

export const hostnameOf = (context: EffectContext, hostId: string): string => {
  const name = context.resourceNames[hostId];
  // the reactor resolves names before calling: a missing one is its bug, retried rather than recorded
  if (name === undefined) throw new Error(`No hypervisor hostname known for host ${hostId}`);
  return name;
};

export const requireHypervisor = async (nova: NovaClient, hostname: string): Promise<Hypervisor> => {
  const hypervisor = await nova.findHypervisor(hostname);
  if (hypervisor === null) throw new EffectFailedError(`No hypervisor named ${hostname} in Nova`, []);
  return hypervisor;
};

/** The named aggregate, created if missing (a concurrent creator wins the name: then its aggregate is used). */
export const ensureAggregate = async (
  nova: NovaClient,
  name: string,
): Promise<{ readonly aggregate: Aggregate; readonly created: boolean }> => {
  const existing = await nova.findAggregate(name);
  if (existing !== null) return { aggregate: existing, created: false };
  try {
    return { aggregate: await nova.createAggregate(name), created: true };
  } catch (error) {
    const raced = error instanceof OpenStackConflictError ? await nova.findAggregate(name) : null;
    if (raced === null) throw error;
    return { aggregate: raced, created: false };
  }
};

/** True when every key of `wanted` has that value in `current`. */
export const includesAll = (current: Readonly<Record<string, string>>, wanted: Readonly<Record<string, string>>): boolean =>
  Object.entries(wanted).every(([key, value]) => current[key] === value);

export interface ServerDeletion {
  readonly timeoutMs: number;
  readonly pollMs: number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Deletes the servers and waits (bounded) until Nova no longer knows them; still there after the wait: transient. */
export const deleteServers = async (nova: NovaClient, servers: readonly Server[], wait: ServerDeletion): Promise<number> => {
  for (const server of servers) await ignoreNotFound(nova.deleteServer(server.id));
  const deadline = Date.now() + wait.timeoutMs;
  let remaining = servers.map((server) => server.id);
  while (remaining.length > 0) {
    const still: string[] = [];
    for (const id of remaining) {
      const gone = await nova.getServer(id).then(
        () => false,
        (error: unknown) => {
          if (isNotFound(error)) return true;
          throw error;
        },
      );
      if (!gone) still.push(id);
    }
    remaining = still;
    if (remaining.length === 0) break;
    if (Date.now() > deadline)
      throw new EffectNotFinishedError(`Servers still being deleted after ${wait.timeoutMs} ms: ${remaining.join(', ')}`);
    await sleep(wait.pollMs);
  }
  return servers.length;
};
