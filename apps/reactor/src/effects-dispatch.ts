import type { EffectPhase, EffectRecord, Leftover, Reservation } from '#domain/index.js';
import type { EffectContext, EffectsRegistry, ReservationEffects } from '#plugins/effects.port.js';

type EffectsCall = <R extends Reservation>(
  adapter: ReservationEffects<R>,
  context: EffectContext,
  reservation: R,
) => Promise<readonly EffectRecord[]>;

const CALL: Readonly<Record<EffectPhase, EffectsCall>> = {
  start: (adapter, context, reservation) => adapter.onStart(context, reservation),
  before_end: (adapter, context, reservation) => adapter.beforeEnd(context, reservation),
  end: (adapter, context, reservation) => adapter.onEnd(context, reservation),
  update: (adapter, context, reservation) => adapter.onUpdate(context, reservation),
};

/** Runs the context's phase on the reservation's adapter; the switch keeps resource type and adapter in step. */
export const applyEffects = (
  registry: EffectsRegistry,
  context: EffectContext,
  reservation: Reservation,
): Promise<readonly EffectRecord[]> => {
  const call = CALL[context.phase];
  switch (reservation.resourceType) {
    case 'physical:host':
      return call(registry['physical:host'], context, reservation);
    case 'virtual:instance':
      return call(registry['virtual:instance'], context, reservation);
    case 'flavor:instance':
      return call(registry['flavor:instance'], context, reservation);
    case 'virtual:floatingip':
      return call(registry['virtual:floatingip'], context, reservation);
    default: {
      const _never: never = reservation;
      return _never;
    }
  }
};

/** What of the reservation is still in the cloud after its lease ended, from its type's adapter. */
export const leftoversOf = (registry: EffectsRegistry, context: EffectContext, reservation: Reservation): Promise<readonly Leftover[]> => {
  switch (reservation.resourceType) {
    case 'physical:host':
      return registry['physical:host'].leftovers(context, reservation);
    case 'virtual:instance':
      return registry['virtual:instance'].leftovers(context, reservation);
    case 'flavor:instance':
      return registry['flavor:instance'].leftovers(context, reservation);
    case 'virtual:floatingip':
      return registry['virtual:floatingip'].leftovers(context, reservation);
    default: {
      const _never: never = reservation;
      return _never;
    }
  }
};
