import {
  type FlavorCatalogEvent,
  type FlavorCatalogState,
  type FloatingIpEvent,
  type FloatingIpRegistryEvent,
  type FloatingIpRegistryState,
  type FloatingIpState,
  type RegisteredFloatingIp,
  FLAVOR_CATALOG_STREAM,
  FLOATING_IP_REGISTRY_STREAM,
  flavorCatalogDecider,
  floatingIpDecider,
  floatingIpRegistryDecider,
  type HostEvent,
  type HostRegistryEvent,
  type HostRegistryState,
  type HostState,
  type LeaseData,
  type RegisteredHost,
  type ResourcePropertyEvent,
  type ResourcePropertyState,
  hostDecider,
  hostRegistryDecider,
  insertSorted,
  PersistentMap,
  resourcePropertyDecider,
} from '#domain/index.js';
import { type EventStore, type RecordedEvent, streamCategory } from '#event-store/event-store.port.js';
import type { HostSnapshot } from '#plugins/physical-host/host-snapshot.js';
import type { CalendarBooking } from '#plugins/resource-kind.js';
import { type AnyResourceKind, RESOURCE_KINDS, RESOURCE_KIND_CATEGORIES, type ResourceKindName } from '#plugins/resource-kinds.js';
import { AsyncMutex } from './async-mutex.js';
import { type ForgottenBookings, forgottenBookingsOf } from './forgotten-bookings.js';
import { type HostIdOrder, hostIdOrderOf } from './hosts-in-id-order.js';
import { type CapabilityIndex, capabilityIndex } from '#plugins/query/capability-index.js';

/** What a snapshot of the index holds (write-index.snapshots.ts): every state it folds, by key. */
export interface WriteIndexPayload {
  readonly registry: Versioned<HostRegistryState>;
  readonly hosts: readonly (readonly [string, Versioned<HostState>])[];
  readonly properties: readonly (readonly [string, Versioned<ResourcePropertyState>])[];
  readonly propertyNames: readonly string[];
  readonly floatingIps: readonly (readonly [string, Versioned<FloatingIpState>])[];
  readonly floatingIpRegistry: Versioned<FloatingIpRegistryState>;
  readonly flavors: Versioned<FlavorCatalogState>;
  /** Each registered resource kind's states (resource-kinds.ts), by kind name. */
  readonly kinds: readonly (readonly [string, KindPayload])[];
  /** The bookings that ended before this instant (epoch ms) are not held (null: none forgotten). */
  readonly keptFromMs: number | null;
}

export interface Versioned<S> {
  readonly state: S;
  /** Last revision of the stream this state was folded from (-1: no stream yet). */
  readonly revision: number;
}

/** One resource kind's states as a snapshot holds them. */
export interface KindPayload {
  readonly resources: readonly (readonly [string, Versioned<unknown>])[];
  readonly registry: Versioned<unknown>;
  readonly properties: readonly (readonly [string, Versioned<unknown>])[];
  readonly propertyNames: readonly string[];
}

/** One resource kind's states in the index: its resources (calendars), its registry, its capability names and their privacy. */
interface KindStates {
  readonly kind: AnyResourceKind;
  readonly resources: Map<string, Versioned<unknown>>;
  registry: Versioned<unknown>;
  readonly properties: Map<string, Versioned<unknown>>;
  readonly propertyNames: Set<string>;
}

const CATEGORIES = ['host', 'hostregistry', 'property', 'floatingip', 'floatingipregistry', 'flavorcatalog', ...RESOURCE_KIND_CATEGORIES];

const kindStates = (kind: AnyResourceKind): KindStates => ({
  kind,
  resources: new Map(),
  registry: { state: kind.registry.fold.initialState(), revision: -1 },
  properties: new Map(),
  propertyNames: new Set(),
});

interface KindStream {
  readonly kind: ResourceKindName;
  readonly role: 'resource' | 'registry' | 'property';
}

/** Which kind's fold an event of a stream category goes to. */
const KIND_STREAMS: ReadonlyMap<string, KindStream> = new Map(
  RESOURCE_KINDS.flatMap((kind): [string, KindStream][] => [
    [kind.category, { kind: kind.kind, role: 'resource' }],
    [streamCategory(kind.registry.stream), { kind: kind.kind, role: 'registry' }],
    [kind.properties.category, { kind: kind.kind, role: 'property' }],
  ]),
);

/** States are immutable, so a snapshot is made once per state (searches ask for every host's, many times). */
const snapshots = new WeakMap<RegisteredHost, HostSnapshot>();

export const toHostSnapshot = (host: RegisteredHost): HostSnapshot => {
  let snapshot = snapshots.get(host);
  if (snapshot === undefined) {
    snapshot = snapshotOf(host);
    snapshots.set(host, snapshot);
  }
  return snapshot;
};

const snapshotOf = (host: RegisteredHost): HostSnapshot => ({
  id: host.hostId,
  columns: {
    id: host.hostId,
    hypervisor_hostname: host.info.hypervisorHostname,
    service_name: host.info.serviceName,
    vcpus: host.info.vcpus,
    memory_mb: host.info.memoryMb,
    local_gb: host.info.localGb,
    cpu_info: host.info.cpuInfo,
    hypervisor_type: host.info.hypervisorType,
    hypervisor_version: host.info.hypervisorVersion,
    availability_zone: host.info.availabilityZone,
    status: null,
    trust_id: null,
    // a down host is no candidate (upstream's monitor clears reservable instead)
    reservable: host.reservable && host.health.status === 'up',
  },
  capabilities: host.capabilities,
  bookings: host.bookings,
  longestBookingMs: host.longestBookingMs,
  maintenance: host.maintenance,
});

const kindPayload = (states: KindStates): KindPayload => ({
  resources: [...states.resources.entries()],
  registry: states.registry,
  properties: [...states.properties.entries()],
  propertyNames: [...states.propertyNames],
});

/**
 * The bookings a calendar still needs at `cutoffMs`: those ending then or later, and those ending after
 * the earliest start among these. A running booking keeps its start when it changes (a started
 * reservation that grows its slots is judged from there on): what overlapped it stays in view, so
 * its judgement is the one a calendar that never forgot would make. The same list when nothing goes.
 */
const keptBookings = <B extends { readonly start: number; readonly end: number }>(
  bookings: readonly B[],
  cutoffMs: number,
): readonly B[] => {
  let from = cutoffMs;
  for (const b of bookings) if (b.end >= cutoffMs && b.start < from) from = b.start;
  const kept = (b: B): boolean => b.end >= cutoffMs || b.end > from;
  return bookings.every(kept) ? bookings : bookings.filter(kept);
};

/**
 * The write side's in-memory view of every host's calendar, the host registry and resource
 * properties, folded from the log and caught up before each decision. Deciding against it is safe
 * because every append carries the revisions it was decided on: a stale view only costs a retry.
 */
export class WriteIndex {
  private position = 0;
  private registry: Versioned<HostRegistryState> = { state: hostRegistryDecider.initialState(), revision: -1 };
  private readonly hosts = new Map<string, Versioned<HostState>>();
  private readonly properties = new Map<string, Versioned<ResourcePropertyState>>();
  private readonly propertyNames = new Set<string>();
  private readonly floatingIps = new Map<string, Versioned<FloatingIpState>>();
  private floatingIpRegistry: Versioned<FloatingIpRegistryState> = { state: floatingIpRegistryDecider.initialState(), revision: -1 };
  private flavors: Versioned<FlavorCatalogState> = { state: flavorCatalogDecider.initialState(), revision: -1 };
  private readonly kinds = new Map<string, KindStates>(RESOURCE_KINDS.map((kind) => [kind.kind, kindStates(kind)]));
  private keptFromMs = Number.NEGATIVE_INFINITY;
  /** Rises each time a host joins or leaves the registered set (bookings leave it as it is). */
  private hostSetVersion = 0;
  private idOrder: HostIdOrder | undefined;
  /** Counts the changes of registered hosts' capabilities: the capability index is made again after one. */
  private capabilityVersion = 0;
  private capabilities: { readonly order: HostIdOrder; readonly version: number; readonly index: CapabilityIndex } | undefined;
  private readonly catchUpLock = new AsyncMutex();

  constructor(private readonly store: EventStore) {}

  catchUp(): Promise<void> {
    return this.catchUpLock.run(async () => {
      for (;;) {
        const events = await this.store.readAll({ from: this.position, limit: 5000, filter: { categories: CATEGORIES } });
        for (const event of events) this.apply(event);
        if (events.length < 5000) return;
      }
    });
  }

  /** The states as of the last position folded in (they are immutable: nothing is copied but the lists). */
  capture(): { readonly position: number; readonly payload: WriteIndexPayload } {
    // bookings recalled for a delete whose append failed go again
    this.trim();
    const payload: WriteIndexPayload = {
      registry: this.registry,
      hosts: [...this.hosts.entries()],
      properties: [...this.properties.entries()],
      propertyNames: [...this.propertyNames],
      floatingIps: [...this.floatingIps.entries()],
      floatingIpRegistry: this.floatingIpRegistry,
      flavors: this.flavors,
      kinds: [...this.kinds].map(([name, states]) => [name, kindPayload(states)] as const),
      keptFromMs: Number.isFinite(this.keptFromMs) ? this.keptFromMs : null,
    };
    return { position: this.position, payload };
  }

  /** Takes a snapshot's states as folded up to `position`; the next catch-up reads the events after it. */
  restore(position: number, payload: WriteIndexPayload): void {
    if (this.position !== 0) throw new Error('a write index is restored before it folds anything');
    this.position = position;
    // a snapshot gives the names back as a Map: held as the folds hold them, they compare and evolve alike
    const { state, revision } = payload.registry;
    this.registry = { state: { ...state, byName: PersistentMap.from(state.byName) }, revision };
    for (const [hostId, host] of payload.hosts) this.hosts.set(hostId, host);
    this.hostSetVersion++;
    for (const [name, property] of payload.properties) this.properties.set(name, property);
    for (const name of payload.propertyNames) this.propertyNames.add(name);
    for (const [floatingIpId, floatingIp] of payload.floatingIps) this.floatingIps.set(floatingIpId, floatingIp);
    this.floatingIpRegistry = payload.floatingIpRegistry;
    this.flavors = payload.flavors;
    for (const [name, kind] of payload.kinds) this.restoreKind(name, kind);
    if (payload.keptFromMs !== null) this.keptFromMs = Math.max(this.keptFromMs, payload.keptFromMs);
  }

  registryState(): Versioned<HostRegistryState> {
    return this.registry;
  }

  host(hostId: string): Versioned<HostState> {
    return this.hosts.get(hostId) ?? { state: hostDecider.initialState(), revision: -1 };
  }

  /**
   * The registered hosts' ids in the allocation policy's id order, sorted again only when a host joins
   * or leaves: each admission walks them from the first without listing or sorting 10,000 hosts.
   */
  hostsInIdOrder(): HostIdOrder {
    if (this.idOrder?.version !== this.hostSetVersion) {
      const ids: string[] = [];
      for (const [hostId, { state }] of this.hosts) if (state.status === 'Registered') ids.push(hostId);
      this.idOrder = hostIdOrderOf(ids, this.hostSetVersion);
    }
    return this.idOrder;
  }

  /**
   * The registered hosts' capability values by place in hostsInIdOrder(), made again only when a host joins, leaves or
   * changes its capabilities: an admission asking for `gpu == true` among 10,000 hosts visits those that have it.
   */
  hostCapabilities(): CapabilityIndex {
    const order = this.hostsInIdOrder();
    if (this.capabilities?.order !== order || this.capabilities.version !== this.capabilityVersion) {
      const capabilitiesAt = order.ids.map((hostId) => {
        const { state } = this.host(hostId);
        return state.status === 'Registered' ? state.capabilities : undefined;
      });
      this.capabilities = { order, version: this.capabilityVersion, index: capabilityIndex(capabilitiesAt) };
    }
    return this.capabilities.index;
  }

  registeredHosts(): RegisteredHost[] {
    const registered: RegisteredHost[] = [];
    for (const { state } of this.hosts.values()) if (state.status === 'Registered') registered.push(state);
    return registered;
  }

  floatingIp(floatingIpId: string): Versioned<FloatingIpState> {
    return this.floatingIps.get(floatingIpId) ?? { state: floatingIpDecider.initialState(), revision: -1 };
  }

  registeredFloatingIps(): RegisteredFloatingIp[] {
    const registered: RegisteredFloatingIp[] = [];
    for (const { state } of this.floatingIps.values()) if (state.status === 'Registered') registered.push(state);
    return registered;
  }

  floatingIpRegistryState(): Versioned<FloatingIpRegistryState> {
    return this.floatingIpRegistry;
  }

  flavorCatalog(): Versioned<FlavorCatalogState> {
    return this.flavors;
  }

  property(name: string): Versioned<ResourcePropertyState> {
    return this.properties.get(name) ?? { state: resourcePropertyDecider.initialState(), revision: -1 };
  }

  isKnownProperty(name: string): boolean {
    return this.propertyNames.has(name);
  }

  /** A resource of a registered kind, as its own stream left it (the kind's initial state before it has one). */
  kindResource<S>(name: ResourceKindName, resourceId: string): Versioned<S> {
    const states = this.kindStatesOf(name);
    return (states.resources.get(resourceId) ?? { state: states.kind.decider.initialState(), revision: -1 }) as Versioned<S>;
  }

  /** The ids of a kind's registered resources (those whose calendar it holds), in the order they were registered. */
  registeredKindResourceIds(name: ResourceKindName): string[] {
    const states = this.kindStatesOf(name);
    const registered: string[] = [];
    for (const [id, { state }] of states.resources) if (states.kind.calendar.bookings(state) !== null) registered.push(id);
    return registered;
  }

  kindRegistry<R>(name: ResourceKindName): Versioned<R> {
    return this.kindStatesOf(name).registry as Versioned<R>;
  }

  kindProperty<P>(name: ResourceKindName, propertyName: string): Versioned<P> {
    const states = this.kindStatesOf(name);
    return (states.properties.get(propertyName) ?? { state: states.kind.properties.fold.initialState(), revision: -1 }) as Versioned<P>;
  }

  /** Whether some resource of the kind has, or had, a capability of that name. */
  isKnownKindProperty(name: ResourceKindName, propertyName: string): boolean {
    return this.kindStatesOf(name).propertyNames.has(propertyName);
  }

  private kindStatesOf(name: string): KindStates {
    const states = this.kinds.get(name);
    if (states === undefined) throw new Error(`No resource kind ${name}`);
    return states;
  }

  /**
   * From now on holds only the bookings that end at `cutoffMs` or later (and what overlaps those, see
   * keptBookings): a long-lived process's calendars hold the present and the future, not every
   * booking of every lease not yet deleted.
   * Sound because nothing decides on a booking that has ended: an update of an ended lease is refused
   * (LEASE_ENDED), healing moves running reservations, new bookings start from now on and keep the
   * cleaning time from what ends before them (the cutoff lies at least that far in the past). A lease
   * deleted later releases what was forgotten through recallForgottenBookings. The cutoff only rises.
   */
  forgetBookingsEndedBefore(cutoffMs: number): void {
    this.keptFromMs = Math.max(this.keptFromMs, cutoffMs);
    this.trim();
  }

  /**
   * Puts back the bookings of an ended lease this view forgot, so that its delete releases them on
   * the calendars as it would from a view that never forgot. The lease, read from its stream and
   * appended with its expected revision, says which hosts and addresses its reservations hold: its
   * reservations and those calendars change together in one append, and a deleted lease is deleted
   * once, so a booking it lists and the calendar lacks is one forgotten, not one released. Only the
   * booking's ids matter to its release; the next trim (or the release) takes it out again.
   */
  recallForgottenBookings(lease: LeaseData): void {
    const forgotten: ForgottenBookings = forgottenBookingsOf(lease, this.keptFromMs);
    for (const [hostId, booking] of forgotten.hosts) {
      const versioned = this.hosts.get(hostId);
      const state = versioned?.state;
      if (
        versioned === undefined ||
        state?.status !== 'Registered' ||
        state.bookings.some((b) => b.reservationId === booking.reservationId)
      )
        continue;
      this.hosts.set(hostId, { ...versioned, state: { ...state, bookings: insertSorted(state.bookings, booking) } });
    }
    for (const [floatingIpId, booking] of forgotten.floatingIps) {
      const versioned = this.floatingIps.get(floatingIpId);
      const state = versioned?.state;
      if (
        versioned === undefined ||
        state?.status !== 'Registered' ||
        state.bookings.some((b) => b.reservationId === booking.reservationId)
      )
        continue;
      this.floatingIps.set(floatingIpId, { ...versioned, state: { ...state, bookings: insertSorted(state.bookings, booking) } });
    }
    for (const { kind, resourceId, booking } of forgotten.kinds) this.recallKindBooking(kind, resourceId, booking);
  }

  private recallKindBooking(name: ResourceKindName, resourceId: string, booking: CalendarBooking): void {
    const { kind, resources } = this.kindStatesOf(name);
    const versioned = resources.get(resourceId);
    const bookings = versioned === undefined ? null : kind.calendar.bookings(versioned.state);
    if (versioned === undefined || bookings === null || bookings.some((b) => b.reservationId === booking.reservationId)) return;
    const state = kind.calendar.withBookings(versioned.state, insertSorted(bookings, kind.calendar.recalled(booking)));
    resources.set(resourceId, { ...versioned, state });
  }

  /** How many bookings the calendars hold (what memory grows with). */
  heldBookings(): number {
    let held = 0;
    for (const { state } of this.hosts.values()) if (state.status === 'Registered') held += state.bookings.length;
    for (const { state } of this.floatingIps.values()) if (state.status === 'Registered') held += state.bookings.length;
    for (const { kind, resources } of this.kinds.values()) {
      for (const { state } of resources.values()) held += kind.calendar.bookings(state)?.length ?? 0;
    }
    return held;
  }

  private trim(): void {
    const cutoffMs = this.keptFromMs;
    if (!Number.isFinite(cutoffMs)) return;
    for (const [hostId, versioned] of this.hosts) {
      const { state } = versioned;
      if (state.status !== 'Registered') continue;
      const bookings = keptBookings(state.bookings, cutoffMs);
      if (bookings !== state.bookings) this.hosts.set(hostId, { ...versioned, state: { ...state, bookings } });
    }
    for (const [floatingIpId, versioned] of this.floatingIps) {
      const { state } = versioned;
      if (state.status !== 'Registered') continue;
      const bookings = keptBookings(state.bookings, cutoffMs);
      if (bookings !== state.bookings) this.floatingIps.set(floatingIpId, { ...versioned, state: { ...state, bookings } });
    }
    for (const { kind, resources } of this.kinds.values()) {
      for (const [resourceId, versioned] of resources) {
        const held = kind.calendar.bookings(versioned.state);
        const bookings = held === null ? null : keptBookings(held, cutoffMs);
        if (bookings !== null && bookings !== held)
          resources.set(resourceId, { ...versioned, state: kind.calendar.withBookings(versioned.state, bookings) });
      }
    }
  }

  private apply(event: RecordedEvent): void {
    if (event.position <= this.position) return;
    this.position = event.position;
    if (event.streamId.startsWith('hostregistry-')) {
      this.registry = {
        state: hostRegistryDecider.evolve(this.registry.state, event as unknown as HostRegistryEvent),
        revision: event.revision,
      };
    } else if (event.streamId === FLOATING_IP_REGISTRY_STREAM) {
      const state = floatingIpRegistryDecider.evolve(this.floatingIpRegistry.state, event as unknown as FloatingIpRegistryEvent);
      this.floatingIpRegistry = { state, revision: event.revision };
    } else if (event.streamId === FLAVOR_CATALOG_STREAM) {
      this.flavors = {
        state: flavorCatalogDecider.evolve(this.flavors.state, event as unknown as FlavorCatalogEvent),
        revision: event.revision,
      };
    } else if (event.streamId.startsWith('floatingip-')) {
      const floatingIpId = event.streamId.slice('floatingip-'.length);
      const state = floatingIpDecider.evolve(this.floatingIp(floatingIpId).state, event as unknown as FloatingIpEvent);
      this.floatingIps.set(floatingIpId, { state, revision: event.revision });
    } else if (event.streamId.startsWith('host-')) {
      this.applyHost(event as unknown as RecordedEvent<HostEvent['data']> & HostEvent);
    } else if (KIND_STREAMS.has(streamCategory(event.streamId))) {
      this.applyKind(event);
    } else if (event.streamId.startsWith('property-')) {
      const name = event.streamId.slice('property-'.length);
      const current = this.property(name);
      this.properties.set(name, {
        state: resourcePropertyDecider.evolve(current.state, event as unknown as ResourcePropertyEvent),
        revision: event.revision,
      });
    }
  }

  private applyKind(event: RecordedEvent): void {
    const category = streamCategory(event.streamId);
    const target = KIND_STREAMS.get(category);
    if (target === undefined) return;
    const states = this.kindStatesOf(target.kind);
    const { kind } = states;
    const id = event.streamId.slice(category.length + 1);
    switch (target.role) {
      case 'resource': {
        const state = kind.decider.evolve(this.kindResource(target.kind, id).state, event);
        states.resources.set(id, { state, revision: event.revision });
        for (const name of kind.properties.namesOf(event)) states.propertyNames.add(name);
        return;
      }
      case 'registry':
        states.registry = { state: kind.registry.fold.evolve(states.registry.state, event), revision: event.revision };
        return;
      case 'property': {
        const state = kind.properties.fold.evolve(this.kindProperty(target.kind, id).state, event);
        states.properties.set(id, { state, revision: event.revision });
        return;
      }
      default: {
        const _never: never = target.role;
        return _never;
      }
    }
  }

  private restoreKind(name: string, payload: KindPayload): void {
    const states = this.kinds.get(name);
    // a kind no longer registered: its events are no longer folded either
    if (states === undefined) return;
    for (const [id, resource] of payload.resources) states.resources.set(id, resource);
    states.registry = payload.registry;
    for (const [propertyName, property] of payload.properties) states.properties.set(propertyName, property);
    for (const propertyName of payload.propertyNames) states.propertyNames.add(propertyName);
  }

  private applyHost(event: RecordedEvent & HostEvent): void {
    const hostId = event.streamId.slice('host-'.length);
    const before = this.host(hostId).state;
    const state = hostDecider.evolve(before, event);
    this.hosts.set(hostId, { state, revision: event.revision });
    if ((before.status === 'Registered') !== (state.status === 'Registered')) this.hostSetVersion++;
    if (event.type === 'Host.Registered' || event.type === 'Host.CapabilitiesUpdated') {
      this.capabilityVersion++;
      for (const key of Object.keys(event.data.capabilities)) this.propertyNames.add(key);
    }
  }
}
