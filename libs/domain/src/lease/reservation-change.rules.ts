import { conflictField, invalidField } from '../shared/errors.js';
import type { Affinity, FlavorInstanceReservation, FloatingIpReservation, InstanceReservation, Reservation } from './lease.types.js';

/**
 * What a change of an existing reservation may touch, as upstream's plugins decide it. The admission
 * modules ask these before allocating (so a request gets the error it always got); the lease decider
 * asks them again of the reservation it records.
 */

/** A reservation named by a change, with the resource type the change says it has (null: not said). */
export interface TypedChange {
  readonly id: string;
  readonly resourceType: string | null;
}

const resourceTypeChanged = () => conflictField('CANT_UPDATE_PARAMETER', '{field:resourceType} cannot be updated');

/** A reservation keeps the type it was made with (409). Changes of reservations the lease lacks are judged elsewhere. */
export const checkResourceTypes = (reservations: readonly Reservation[], changes: readonly TypedChange[]): void => {
  for (const change of changes) {
    const reservation = reservations.find((r) => r.id === change.id);
    if (change.resourceType !== null && reservation !== undefined && change.resourceType !== reservation.resourceType)
      throw resourceTypeChanged();
  }
};

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

/** What a change asks of a floating-IP reservation (null: left alone). */
export interface FloatingIpChange {
  readonly networkId: string | null;
  readonly requiredFloatingIps: readonly string[] | null;
}

/** A floating-IP reservation stays on its network, and its required addresses can only be cleared (400). */
export const checkFloatingIpChange = (current: FloatingIpReservation, change: FloatingIpChange): void => {
  if (change.networkId !== null && change.networkId !== current.networkId)
    throw invalidField('CANT_UPDATE_PARAMETER', '{field:networkId} cannot be updated');
  if (change.requiredFloatingIps !== null && change.requiredFloatingIps.length > 0) {
    throw invalidField('CANT_UPDATE_PARAMETER', '{field:requiredFloatingIps} can only be cleared (set to [])');
  }
};

/** A started floating-IP reservation keeps the addresses it holds: its amount cannot go below them (400). */
export const checkStartedFloatingIpAmount = (current: FloatingIpReservation, amount: number): void => {
  const held = current.allocations.length;
  if (amount < held) {
    throw invalidField(
      'CANT_UPDATE_PARAMETER',
      `The {field:amount} of a started floating IP reservation cannot go below the ${held} addresses it holds`,
    );
  }
};

const sameList = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((item, i) => item === b[i]);

/** The rules above, asked of a reservation as a change would record it (`next`) against the one recorded (`current`). */
export const checkReservationChange = (current: Reservation, next: Reservation, started: boolean): void => {
  if (next.resourceType !== current.resourceType) throw resourceTypeChanged();
  switch (current.resourceType) {
    case 'physical:host':
      return;
    case 'virtual:instance':
    case 'flavor:instance': {
      const wanted = next as InstanceReservation;
      if (current.resourceType === 'flavor:instance') checkFlavorUnchanged(current, (wanted as FlavorInstanceReservation).sourceFlavorId);
      if (started) checkStartedInstanceChange(current, wanted);
      return;
    }
    case 'virtual:floatingip': {
      const wanted = next as FloatingIpReservation;
      const required = sameList(wanted.requiredFloatingIps, current.requiredFloatingIps) ? null : wanted.requiredFloatingIps;
      checkFloatingIpChange(current, { networkId: wanted.networkId, requiredFloatingIps: required });
      if (started) checkStartedFloatingIpAmount(current, wanted.amount);
      return;
    }
    default: {
      const _never: never = current;
      return _never;
    }
  }
};
