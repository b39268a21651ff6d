/**
 * The reactor and a lease's Keystone trust: every effect context carries the lease's trustId, and after
 * the end effects the trust is deleted once, recorded with the last reservation's end outcome. The
 * trust adapter is a fake (Keystone is only there in the openstack project; see
 * test/int/openstack/trusts.int.spec.ts for the real one); effects and store are the real standalone ones.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EffectRecord } from '#domain/index.js';
import { reservation } from '#domain/lease/testing/lease.fixtures.js';
import type { RecordedEvent } from '#event-store/event-store.port.js';
import { type EffectContext, EffectFailedError, type EffectsRegistry, type LeaseTrustEffects } from '#plugins/effects.port.js';
import type { HostReservation } from '#plugins/physical-host/host.reservation.js';
import { World, atSecond, decideAndAppend, registerHosts, waitForEvent } from './reactor.fixtures.js';

let world: World;
let hostIds: string[];

beforeEach(async () => {
  world = new World();
  hostIds = await registerHosts(world.store, ['host1', 'host2']);
});

afterEach(async () => {
  await world.close();
});

/** A one-host reservation of that host (lease.fixtures' defaults otherwise). */
const hostReservation = (hostId: string): HostReservation => reservation(randomUUID(), { resourceId: randomUUID(), hostIds: [hostId] });

/** A lease over both hosts that starts in a second and ends two seconds later, with the given trust. */
const createLease = async (trustId: string | null): Promise<{ leaseId: string; reservationIds: string[] }> => {
  const leaseId = randomUUID();
  const reservations = hostIds.map(hostReservation);
  await decideAndAppend(world.store, leaseId, {
    type: 'CreateLease',
    data: {
      leaseId,
      name: `lease-${leaseId.slice(0, 8)}`,
      projectId: 'project-1',
      userId: 'user-1',
      trustId,
      startDate: atSecond(Date.now() + 1000),
      endDate: atSecond(Date.now() + 3000),
      beforeEndDate: null,
      reservations,
      eventIds: { start: randomUUID(), end: randomUUID(), beforeEnd: randomUUID() },
      minutesBeforeEnd: 0,
      now: new Date(Date.now() - 60_000).toISOString(),
    },
  });
  return { leaseId, reservationIds: reservations.map((r) => r.id) };
};

/** Records what the host adapter and the (fake) trust adapter were asked, in order. */
const recorder = (deleteTrust: LeaseTrustEffects['deleteTrust']) => {
  const calls: { readonly what: string; readonly trustId: string | null | undefined }[] = [];
  const wrap = (effects: EffectsRegistry): EffectsRegistry => {
    const inner = effects['physical:host'];
    const seen =
      (what: string, call: (c: EffectContext, r: HostReservation) => Promise<readonly EffectRecord[]>) =>
      (context: EffectContext, reservation: HostReservation) => {
        calls.push({ what: `${what} ${reservation.hostIds.join()}`, trustId: context.trustId });
        return call(context, reservation);
      };
    const host = {
      onStart: seen('start', inner.onStart.bind(inner)),
      beforeEnd: seen('before_end', inner.beforeEnd.bind(inner)),
      onEnd: seen('end', inner.onEnd.bind(inner)),
      onUpdate: seen('update', inner.onUpdate.bind(inner)),
      leftovers: inner.leftovers.bind(inner),
    };
    const trusts: LeaseTrustEffects = {
      deleteTrust: (context, trustId) => {
        calls.push({ what: 'delete trust', trustId });
        return deleteTrust(context, trustId);
      },
    };
    return { ...effects, 'physical:host': host, trusts };
  };
  return { calls, wrap };
};

const endEffects = (events: readonly RecordedEvent[]): Record<string, unknown>[][] =>
  events
    .filter((e) => e.type === 'Reservation.EffectsApplied' && (e.data as { phase: string }).phase === 'end')
    .map((e) => (e.data as { effects: Record<string, unknown>[] }).effects);

describe('reactor: a lease trust', () => {
  it('is in every effect context, and is deleted once after the end effects, recorded with the last outcome', async () => {
    const { calls, wrap } = recorder((_, trustId) => Promise.resolve([{ operation: 'trust.delete', trust_id: trustId }]));
    await world.startReactor({ wrap });
    const { leaseId } = await createLease('trust-1');
    const events = await waitForEvent(world.store, leaseId, 'Lease.Ended');

    const [h1, h2] = hostIds;
    expect(calls).toEqual([
      { what: `start ${h1}`, trustId: 'trust-1' },
      { what: `start ${h2}`, trustId: 'trust-1' },
      { what: `end ${h1}`, trustId: 'trust-1' },
      { what: `end ${h2}`, trustId: 'trust-1' },
      { what: 'delete trust', trustId: 'trust-1' },
    ]);
    const [first, last] = endEffects(events);
    expect(first).not.toContainEqual(expect.objectContaining({ operation: 'trust.delete' }));
    expect(last?.at(-1)).toEqual({ operation: 'trust.delete', trust_id: 'trust-1' });
  });

  it("a refused deletion is recorded with Keystone's message; the lease still ends", async () => {
    const { wrap } = recorder(() => Promise.reject(new EffectFailedError('Keystone refused: 403', [])));
    await world.startReactor({ wrap });
    const { leaseId } = await createLease('trust-2');
    const events = await waitForEvent(world.store, leaseId, 'Lease.Ended');
    expect(endEffects(events).at(-1)?.at(-1)).toEqual({ operation: 'trust.delete', trust_id: 'trust-2', error: 'Keystone refused: 403' });
  });

  it('a lease without a trust has none to delete', async () => {
    const { calls, wrap } = recorder(() => Promise.reject(new Error('not to be called')));
    await world.startReactor({ wrap });
    const { leaseId } = await createLease(null);
    const events = await waitForEvent(world.store, leaseId, 'Lease.Ended');
    expect(calls.every((c) => c.trustId === null)).toBe(true);
    expect(calls.map((c) => c.what)).not.toContain('delete trust');
    expect(endEffects(events).flat()).not.toContainEqual(expect.objectContaining({ operation: 'trust.delete' }));
  });
});
