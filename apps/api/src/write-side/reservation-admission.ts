import { randomUUID } from 'node:crypto';
import {
  type Affinity,
  type Flavor,
  type FlavorInstanceReservation,
  type FloatingIpReservation,
  type HostReplacement,
  type HostReservation,
  type InstanceReservation,
  type Reservation,
  type SlotAllocation,
  type VirtualInstanceReservation,
  conflict,
  invalid,
  toMs,
} from '../../../../libs/domain/src/index.js';
import { allocateFloatingIps, notEnoughFloatingIpsError } from '../../../../libs/plugins/src/floating-ip/floating-ip-allocation.policy.js';
import { allocateInstances, notEnoughInstanceSlotsError } from '../../../../libs/plugins/src/instance/instance-allocation.policy.js';
import { EMPTY_QUERY } from '../../../../libs/plugins/src/query/blazar-query.js';
import { buildHostRequest } from '../leases/host-reservation.parser.js';
import { buildInstanceRequest, checkAmount, parseRequiredFloatingIps } from '../leases/instance-reservation.parser.js';
import type { BookingPlan, BookingWindow } from '../../../../libs/application/src/write-model/booking-plan.js';
import { flavorResourceProperties } from './flavor-snapshot.js';
import type {
  FlavorInstanceReservationRequest,
  FloatingIpReservationRequest,
  HostReservationRequest,
  InstanceReservationRequest,
  ReservationPatch,
  ReservationRequest,
} from './lease-requests.js';

export interface AdmissionSchedule {
  readonly leaseId: string;
  readonly startDate: string;
  readonly endDate: string;
}

export interface AdmissionCaller {
  /** Private catalog flavors are visible to admins only (Nova: flavors without access are not found). */
  readonly isAdmin: boolean;
}

type PatchField = Exclude<keyof ReservationPatch, 'id' | 'resourceType'>;

const ACCEPTED: { readonly [T in Reservation['resourceType']]: readonly PatchField[] } = {
  'physical:host': ['min', 'max', 'hypervisorProperties', 'resourceProperties', 'beforeEnd'],
  'virtual:instance': ['amount', 'vcpus', 'memoryMb', 'diskGb', 'affinity', 'resourceProperties'],
  'flavor:instance': ['amount', 'affinity', 'flavorId'],
  'virtual:floatingip': ['amount', 'networkId', 'requiredFloatingIps'],
};

const WIRE_NAME: Readonly<Record<PatchField, string>> = {
  min: 'min',
  max: 'max',
  hypervisorProperties: 'hypervisor_properties',
  resourceProperties: 'resource_properties',
  beforeEnd: 'before_end',
  amount: 'amount',
  vcpus: 'vcpus',
  memoryMb: 'memory_mb',
  diskGb: 'disk_gb',
  affinity: 'affinity',
  flavorId: 'flavor_id',
  networkId: 'network_id',
  requiredFloatingIps: 'required_floatingips',
};

/** A patch may only carry the fields of its reservation's type. */
const checkPatchFields = (reservation: Reservation, patch: ReservationPatch): void => {
  const accepted = ACCEPTED[reservation.resourceType];
  for (const field of Object.keys(WIRE_NAME) as PatchField[]) {
    if (patch[field] !== null && !accepted.includes(field)) {
      throw invalid('INVALID_PARAMETER', `Parameter ${WIRE_NAME[field]} cannot be set on a ${reservation.resourceType} reservation`);
    }
  }
};

const sameAffinity = (a: Affinity, b: Affinity): boolean => a === b;

/** What healing one reservation came to: its new allocations, what replaced what, what is still held down. */
export interface Healing {
  readonly reservation: Reservation;
  readonly replacements: readonly HostReplacement[];
  readonly unhealedHostIds: readonly string[];
}

/**
 * Admission of each reservation type against the calendars of one BookingPlan: choose resources with
 * the type's policy, then book them on the working copies (which enforce the invariants again).
 */
export class ReservationAdmission {
  constructor(
    private readonly plan: BookingPlan,
    private readonly flavors: ReadonlyMap<string, Flavor>,
    private readonly schedule: AdmissionSchedule,
    private readonly caller: AdmissionCaller,
  ) {}

  private window(reservationId: string, propertyNames: readonly string[]): BookingWindow {
    return { ...this.schedule, reservationId, propertyNames };
  }

  private get windowMs() {
    return { start: toMs(this.schedule.startDate), end: toMs(this.schedule.endDate) };
  }

  admit(request: ReservationRequest): Reservation {
    const id = randomUUID();
    switch (request.resourceType) {
      case 'physical:host':
        return this.admitHosts(id, request);
      case 'virtual:instance':
        return this.admitInstances(id, request);
      case 'flavor:instance':
        return this.admitFlavorInstances(id, request);
      case 'virtual:floatingip':
        return this.admitFloatingIps(id, request);
      default: {
        const _never: never = request;
        return _never;
      }
    }
  }

  private admitHosts(id: string, request: HostReservationRequest): HostReservation {
    const window = this.window(id, request.propertyNames);
    const hostIds = this.plan.allocate({ min: request.min, max: request.max, query: request.query }, window);
    for (const hostId of hostIds) this.plan.book(hostId, window);
    const { query: _query, propertyNames: _names, ...fields } = request;
    return { id, resourceId: randomUUID(), ...fields, hostIds };
  }

  private admitInstances(id: string, request: InstanceReservationRequest): VirtualInstanceReservation {
    const allocations = this.carveSlots(id, request, null, false);
    const { amount, vcpus, memoryMb, diskGb, affinity, resourceProperties } = request;
    return { id, resourceId: randomUUID(), resourceType: 'virtual:instance', amount, vcpus, memoryMb, diskGb, affinity, resourceProperties, allocations };
  }

  private flavor(flavorId: string): Flavor {
    const flavor = this.flavors.get(flavorId);
    if (flavor === undefined || (!flavor.isPublic && !this.caller.isAdmin)) throw invalid('FLAVOR_NOT_FOUND', `Flavor ${flavorId} could not be found.`);
    return flavor;
  }

  private admitFlavorInstances(id: string, request: FlavorInstanceReservationRequest): FlavorInstanceReservation {
    const flavor = this.flavor(request.flavorId);
    const sizes = { vcpus: flavor.vcpus, memoryMb: flavor.ram, diskGb: flavor.disk + flavor.ephemeral };
    const slots = { resourceType: 'virtual:instance', amount: request.amount, affinity: request.affinity, ...sizes, resourceProperties: '' } as const;
    const allocations = this.carveSlots(id, buildInstanceRequest(slots), null, false);
    return {
      id,
      resourceId: randomUUID(),
      resourceType: 'flavor:instance',
      amount: request.amount,
      ...sizes,
      affinity: request.affinity,
      resourceProperties: flavorResourceProperties(flavor),
      sourceFlavorId: flavor.id,
      extraSpecs: flavor.extraSpecs,
      allocations,
    };
  }

  /** Chooses slots with the instance policy and books them (or moves the reservation's current ones). */
  private carveSlots(id: string, request: InstanceReservationRequest, current: InstanceReservation | null, started: boolean): SlotAllocation[] {
    const window = this.window(id, request.propertyNames);
    const demand = { vcpus: request.vcpus, memoryMb: request.memoryMb, diskGb: request.diskGb };
    const result = allocateInstances(
      {
        amount: request.amount,
        demand,
        affinity: request.affinity,
        query: request.query,
        window: this.windowMs,
        cleaningTimeMs: this.plan.cleaningTimeMs,
        ratios: this.plan.allocationRatios,
        ...(current === null ? {} : { reservationId: id, current: current.allocations, keepAll: started }),
      },
      this.plan.snapshots(),
    );
    if (!result.ok) throw notEnoughInstanceSlotsError(result);
    const before = new Map((current?.allocations ?? []).map((a) => [a.hostId, a.count]));
    for (const [hostId] of before) if (!result.allocations.some((a) => a.hostId === hostId)) this.plan.release(hostId, id);
    for (const allocation of result.allocations) {
      const slots = { count: allocation.count, ...demand };
      if (before.has(allocation.hostId)) this.plan.moveSlots(allocation.hostId, window, slots, started);
      else this.plan.bookSlots(allocation.hostId, window, slots);
    }
    return [...result.allocations];
  }

  private admitFloatingIps(id: string, request: FloatingIpReservationRequest): FloatingIpReservation {
    const allocations = this.chooseFloatingIps(id, request, null, false);
    const { networkId, amount, requiredFloatingIps } = request;
    return { id, resourceId: randomUUID(), resourceType: 'virtual:floatingip', networkId, amount, requiredFloatingIps, allocations };
  }

  private chooseFloatingIps(id: string, request: FloatingIpReservationRequest, current: FloatingIpReservation | null, started: boolean) {
    const window = this.window(id, []);
    const result = allocateFloatingIps(
      {
        networkId: request.networkId,
        amount: request.amount,
        requiredAddresses: request.requiredFloatingIps,
        window: this.windowMs,
        cleaningTimeMs: this.plan.cleaningTimeMs,
        ...(current === null ? {} : { reservationId: id, current: current.allocations.map((a) => a.address), keepAll: started }),
      },
      this.plan.floatingIpSnapshots(),
    );
    if (!result.ok) throw notEnoughFloatingIpsError(result);
    const before = new Set((current?.allocations ?? []).map((a) => a.floatingIpId));
    for (const floatingIpId of before) if (!result.allocations.some((a) => a.floatingIpId === floatingIpId)) this.plan.releaseFloatingIp(floatingIpId, id);
    for (const allocation of result.allocations) {
      if (before.has(allocation.floatingIpId)) this.plan.moveFloatingIp(allocation.floatingIpId, window);
      else this.plan.bookFloatingIp(allocation.floatingIpId, window);
    }
    return [...result.allocations];
  }

  /** An existing reservation under the lease's (possibly new) dates and the request's changes. */
  readmit(reservation: Reservation, patch: ReservationPatch | undefined, started: boolean): Reservation {
    if (patch !== undefined) checkPatchFields(reservation, patch);
    switch (reservation.resourceType) {
      case 'physical:host':
        return this.readmitHosts(reservation, patch, started);
      case 'virtual:instance':
        return this.readmitInstances(reservation, patch, started);
      case 'flavor:instance':
        return this.readmitFlavorInstances(reservation, patch, started);
      case 'virtual:floatingip':
        return this.readmitFloatingIps(reservation, patch, started);
      default: {
        const _never: never = reservation;
        return _never;
      }
    }
  }

  private readmitHosts(reservation: HostReservation, patch: ReservationPatch | undefined, started: boolean): HostReservation {
    const wanted = buildHostRequest({
      min: patch?.min ?? reservation.min,
      max: patch?.max ?? reservation.max,
      hypervisorProperties: patch?.hypervisorProperties ?? reservation.hypervisorProperties,
      resourceProperties: patch?.resourceProperties ?? reservation.resourceProperties,
      beforeEnd: patch?.beforeEnd ?? reservation.beforeEnd,
    });
    const window = this.window(reservation.id, wanted.propertyNames);
    const hostIds = this.chooseHosts(reservation, wanted, window, started);
    for (const hostId of reservation.hostIds) if (!hostIds.includes(hostId)) this.plan.release(hostId, reservation.id);
    for (const hostId of hostIds) {
      if (reservation.hostIds.includes(hostId)) this.plan.move(hostId, window, started);
      else this.plan.book(hostId, window);
    }
    const { query: _query, propertyNames: _names, ...fields } = wanted;
    return { ...reservation, ...fields, hostIds };
  }

  /** A started reservation keeps exactly its hosts (they are already in its aggregate); a pending one may move. */
  private chooseHosts(reservation: HostReservation, wanted: HostReservationRequest, window: BookingWindow, started: boolean): readonly string[] {
    if (!started) return this.plan.allocate({ min: wanted.min, max: wanted.max, query: wanted.query, reservationId: reservation.id, keepHostIds: reservation.hostIds }, window);
    this.plan.checkKeptHosts(reservation.hostIds, window);
    return reservation.hostIds;
  }

  /** Upstream: before the start any field may change; once started only `amount`, and only upward (409). */
  private checkStartedInstanceChange(reservation: InstanceReservation, wanted: { readonly amount: number } & Partial<InstanceReservation>): void {
    const changed = (['vcpus', 'memoryMb', 'diskGb', 'resourceProperties'] as const).filter(
      (field) => wanted[field] !== undefined && wanted[field] !== reservation[field],
    );
    if (wanted.affinity !== undefined && !sameAffinity(wanted.affinity, reservation.affinity)) changed.push('affinity' as never);
    if (changed.length > 0) {
      throw conflict('CANT_UPDATE_PARAMETER', `Only amount can be changed once the reservation has started (not ${changed.map((f) => WIRE_NAME[f]).join(', ')})`);
    }
    if (wanted.amount < reservation.amount) {
      throw conflict('CANT_UPDATE_PARAMETER', `The amount of a started reservation can only grow (from ${reservation.amount})`);
    }
  }

  private readmitInstances(reservation: VirtualInstanceReservation, patch: ReservationPatch | undefined, started: boolean): VirtualInstanceReservation {
    const wanted = buildInstanceRequest({
      amount: patch?.amount ?? reservation.amount,
      vcpus: patch?.vcpus ?? reservation.vcpus,
      memoryMb: patch?.memoryMb ?? reservation.memoryMb,
      diskGb: patch?.diskGb ?? reservation.diskGb,
      affinity: patch?.affinity === null || patch === undefined ? reservation.affinity : patch.affinity.value,
      resourceProperties: patch?.resourceProperties ?? reservation.resourceProperties,
    });
    if (started) this.checkStartedInstanceChange(reservation, wanted);
    const allocations = this.carveSlots(reservation.id, wanted, reservation, started);
    const { amount, vcpus, memoryMb, diskGb, affinity, resourceProperties } = wanted;
    return { ...reservation, amount, vcpus, memoryMb, diskGb, affinity, resourceProperties, allocations };
  }

  private readmitFlavorInstances(reservation: FlavorInstanceReservation, patch: ReservationPatch | undefined, started: boolean): FlavorInstanceReservation {
    if (patch?.flavorId != null && patch.flavorId !== reservation.sourceFlavorId) {
      throw conflict('CANT_UPDATE_PARAMETER', 'flavor_id cannot be updated; make a new reservation for another flavor');
    }
    const amount = checkAmount(patch?.amount ?? reservation.amount);
    const affinity = patch?.affinity === null || patch === undefined ? reservation.affinity : patch.affinity.value;
    if (started) this.checkStartedInstanceChange(reservation, { amount, affinity });
    const { vcpus, memoryMb, diskGb } = reservation;
    const slots = buildInstanceRequest({ amount, vcpus, memoryMb, diskGb, affinity, resourceProperties: '' });
    const allocations = this.carveSlots(reservation.id, slots, reservation, started);
    return { ...reservation, amount, affinity, allocations };
  }

  private readmitFloatingIps(reservation: FloatingIpReservation, patch: ReservationPatch | undefined, started: boolean): FloatingIpReservation {
    if (patch?.networkId != null && patch.networkId !== reservation.networkId) throw invalid('CANT_UPDATE_PARAMETER', 'network_id cannot be updated');
    if (patch?.requiredFloatingIps != null && patch.requiredFloatingIps.length > 0) {
      throw invalid('CANT_UPDATE_PARAMETER', 'required_floatingips can only be cleared (set to [])');
    }
    const amount = checkAmount(patch?.amount ?? reservation.amount);
    if (started && amount < reservation.allocations.length) {
      throw invalid('CANT_UPDATE_PARAMETER', `The amount of a started floating IP reservation cannot go below the ${reservation.allocations.length} addresses it holds`);
    }
    const requiredFloatingIps = patch?.requiredFloatingIps != null ? [] : parseRequiredFloatingIps(reservation.requiredFloatingIps, amount);
    const request: FloatingIpReservationRequest = { resourceType: 'virtual:floatingip', networkId: reservation.networkId, amount, requiredFloatingIps };
    const allocations = this.chooseFloatingIps(reservation.id, request, reservation, started);
    return { ...reservation, amount, requiredFloatingIps, allocations };
  }

  /**
   * Replaces the reservation's hosts that are down with free ones, as upstream's healing does, over
   * the schedule's window (from now on for a started lease). Hosts: one matching free host per failed
   * host. Instances: the failed host's slots elsewhere (all slots on one new host with affinity,
   * hosts the reservation does not use yet with anti-affinity). Down hosts are no candidates. What
   * cannot be replaced is kept (it may come back) and reported unhealed. Null: nothing held is down.
   */
  heal(reservation: Reservation, down: ReadonlySet<string>): Healing | null {
    switch (reservation.resourceType) {
      case 'physical:host':
        return this.healHosts(reservation, down);
      case 'virtual:instance':
      case 'flavor:instance':
        return this.healSlots(reservation, down);
      case 'virtual:floatingip':
        return null;
      default: {
        const _never: never = reservation;
        return _never;
      }
    }
  }

  private healHosts(reservation: HostReservation, down: ReadonlySet<string>): Healing | null {
    const failed = reservation.hostIds.filter((hostId) => down.has(hostId));
    if (failed.length === 0) return null;
    const wanted = buildHostRequest(reservation);
    const window = this.window(reservation.id, wanted.propertyNames);
    // the reservation's own hosts are busy in the window (its bookings count), down ones unreservable
    const chosen = this.plan.allocate({ min: 0, max: failed.length, query: wanted.query }, window);
    const replacements = chosen.map((by, index): HostReplacement => ({ hostId: failed[index] ?? '', by: [by] }));
    for (const { hostId, by } of replacements) {
      this.plan.release(hostId, reservation.id);
      for (const replacement of by) this.plan.book(replacement, window);
    }
    const replacedBy = new Map(replacements.map((r) => [r.hostId, r.by[0] ?? r.hostId]));
    const hostIds = reservation.hostIds.map((hostId) => replacedBy.get(hostId) ?? hostId);
    return { reservation: { ...reservation, hostIds }, replacements, unhealedHostIds: failed.slice(replacements.length) };
  }

  private healSlots(reservation: InstanceReservation, down: ReadonlySet<string>): Healing | null {
    const failed = reservation.allocations.filter((a) => down.has(a.hostId));
    if (failed.length === 0) return null;
    // a flavor reservation's resource_properties is the flavor's description, not a host query
    const { query, propertyNames } = reservation.resourceType === 'virtual:instance' ? buildInstanceRequest(reservation) : { query: EMPTY_QUERY, propertyNames: [] };
    const window = this.window(reservation.id, propertyNames);
    const demand = { vcpus: reservation.vcpus, memoryMb: reservation.memoryMb, diskGb: reservation.diskGb };
    const ask = (amount: number, excluded: ReadonlySet<string>, own: boolean) =>
      allocateInstances(
        {
          amount,
          demand,
          affinity: reservation.affinity,
          query,
          window: this.windowMs,
          cleaningTimeMs: this.plan.cleaningTimeMs,
          ratios: this.plan.allocationRatios,
          ...(own ? { reservationId: reservation.id } : {}),
        },
        this.plan.snapshots().filter((host) => !excluded.has(host.id)),
      );
    if (reservation.affinity === true) {
      // all slots stay together: the whole reservation moves to one host with room for all of them
      const result = ask(reservation.amount, new Set(), true);
      if (!result.ok) return { reservation, replacements: [], unhealedHostIds: failed.map((a) => a.hostId) };
      for (const { hostId } of reservation.allocations) this.plan.release(hostId, reservation.id);
      for (const a of result.allocations) this.plan.bookSlots(a.hostId, window, { count: a.count, ...demand });
      const by = result.allocations.map((a) => a.hostId);
      const replacements = reservation.allocations.map((a) => ({ hostId: a.hostId, by }));
      return { reservation: { ...reservation, allocations: [...result.allocations] }, replacements, unhealedHostIds: [] };
    }
    let allocations = [...reservation.allocations];
    const replacements: HostReplacement[] = [];
    const unhealedHostIds: string[] = [];
    for (const lost of failed) {
      // anti-affinity: never a host the reservation already uses; otherwise any host with room
      const excluded = new Set(reservation.affinity === false ? allocations.map((a) => a.hostId) : []);
      const result = ask(lost.count, excluded, false);
      if (!result.ok) {
        unhealedHostIds.push(lost.hostId);
        continue;
      }
      this.plan.release(lost.hostId, reservation.id);
      allocations = allocations.filter((a) => a.hostId !== lost.hostId);
      for (const found of result.allocations) {
        const held = allocations.find((a) => a.hostId === found.hostId);
        if (held === undefined) {
          this.plan.bookSlots(found.hostId, window, { count: found.count, ...demand });
          allocations.push(found);
        } else {
          this.plan.moveSlots(found.hostId, window, { count: held.count + found.count, ...demand });
          allocations = allocations.map((a) => (a === held ? { hostId: a.hostId, count: a.count + found.count } : a));
        }
      }
      replacements.push({ hostId: lost.hostId, by: result.allocations.map((a) => a.hostId) });
    }
    allocations.sort((a, b) => (a.hostId < b.hostId ? -1 : a.hostId > b.hostId ? 1 : 0));
    return { reservation: { ...reservation, allocations }, replacements, unhealedHostIds };
  }

  release(reservation: Reservation): void {
    switch (reservation.resourceType) {
      case 'physical:host':
        for (const hostId of reservation.hostIds) this.plan.release(hostId, reservation.id);
        return;
      case 'virtual:instance':
      case 'flavor:instance':
        for (const { hostId } of reservation.allocations) this.plan.release(hostId, reservation.id);
        return;
      case 'virtual:floatingip':
        for (const { floatingIpId } of reservation.allocations) this.plan.releaseFloatingIp(floatingIpId, reservation.id);
        return;
      default: {
        const _never: never = reservation;
        return _never;
      }
    }
  }
}

