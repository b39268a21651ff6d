import type { EffectPhase, EffectRecord, Leftover, Reservation } from '#domain/index.js';
import type { EffectContext, EffectsRegistry, ReservationEffects } from '#plugins/effects.port.js';

const CALL: Readonly<
  Record<EffectPhase, (adapter: ReservationEffects, context: EffectContext, reservation: Reservation) => Promise<readonly EffectRecord[]>>
> = {
  start: (adapter, context, reservation) => adapter.onStart(context, reservation),
  before_end: (adapter, context, reservation) => adapter.beforeEnd(context, reservation),
  end: (adapter, context, reservation) => adapter.onEnd(context, reservation),
  update: (adapter, context, reservation) => adapter.onUpdate(context, reservation),
};

/** The adapter of the reservation's own type (the registry pairs each type with its adapter). */
const adapterOf = (registry: EffectsRegistry, reservation: Reservation): ReservationEffects => registry[reservation.resourceType];

/** Runs the context's phase on the adapter of the reservation's type. */
export const applyEffects = (
  registry: EffectsRegistry,
  context: EffectContext,
  reservation: Reservation,
): Promise<readonly EffectRecord[]> => CALL[context.phase](adapterOf(registry, reservation), context, reservation);

/** What of the reservation is still in the cloud after its lease ended, from its type's adapter. */
export const leftoversOf = (registry: EffectsRegistry, context: EffectContext, reservation: Reservation): Promise<readonly Leftover[]> =>
  adapterOf(registry, reservation).leftovers(context, reservation);
