import { type ReservationRules, conflictField } from '#domain/index.js';
import type { Affinity, FlavorInstanceReservation, InstanceReservation, VirtualInstanceReservation } from './instance.reservation.js';

/** What a change asks of an instance reservation: the amount always, other fields when it sets them. */
export interface InstanceChange {
  readonly amount: number;
  readonly vcpus?: number;
  readonly memoryMb?: number;
  readonly diskGb?: number;
  readonly affinity?: Affinity;
  readonly resourceProperties?: string;
}

const SIZES = ['vcpus', 'memoryMb', 'diskGb', 'resourceProperties'] as const;

/** Upstream: before the start any field may change; once started only `amount`, and only upward (409). */
export const checkStartedInstanceChange = (current: InstanceReservation, wanted: InstanceChange): void => {
  const changed: string[] = SIZES.filter((field) => wanted[field] !== undefined && wanted[field] !== current[field]);
  if (wanted.affinity !== undefined && wanted.affinity !== current.affinity) changed.push('affinity');
  if (changed.length > 0) {
    const names = changed.map((field) => `{field:${field}}`).join(', ');
    throw conflictField('CANT_UPDATE_PARAMETER', `Only {field:amount} can be changed once the reservation has started (not ${names})`);
  }
  if (wanted.amount < current.amount) {
    throw conflictField('CANT_UPDATE_PARAMETER', `The {field:amount} of a started reservation can only grow (from ${current.amount})`);
  }
};

/** A flavor reservation stays of its flavor (409): another flavor is another reservation. */
export const checkFlavorUnchanged = (current: FlavorInstanceReservation, flavorId: string | null): void => {
  if (flavorId !== null && flavorId !== current.sourceFlavorId) {
    throw conflictField('CANT_UPDATE_PARAMETER', '{field:flavorId} cannot be updated; make a new reservation for another flavor');
  }
};

const slotHostIds = (reservation: InstanceReservation): readonly string[] => reservation.allocations.map((a) => a.hostId);

/** virtual:instance: once started only more instances; the slots of a host that goes down move elsewhere. */
export const virtualInstanceRules: ReservationRules<VirtualInstanceReservation> = {
  checkChange: (current, next, started) => {
    if (started) checkStartedInstanceChange(current, next);
  },
  healedHostIds: slotHostIds,
  remindsBeforeEnd: () => false,
};

/** flavor:instance: as virtual:instance, and the flavor never changes. */
export const flavorInstanceRules: ReservationRules<FlavorInstanceReservation> = {
  checkChange: (current, next, started) => {
    checkFlavorUnchanged(current, next.sourceFlavorId);
    if (started) checkStartedInstanceChange(current, next);
  },
  healedHostIds: slotHostIds,
  remindsBeforeEnd: () => false,
};
