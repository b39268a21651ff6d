import type { Booking, Interval, RegisteredHost, Reservation } from '#domain/index.js';
import type { CalendarScope } from '#plugins/availability/availability.port.js';
import { matchesHost } from '#plugins/query/blazar-query.js';
import { reservedResources } from '#plugins/reservation-holdings.js';
import { RESOURCE_KINDS, type ResourceKindName, resourceKind } from '#plugins/resource-kinds.js';
import type { BookedResource } from '#plugins/reservation-type.js';
import { type WriteIndex, toHostSnapshot } from '../write-model/write-index.js';
import type { BusyCalendars } from './busy-calendars.js';
import type { CalendarIndex } from './calendar-index.js';
import type { RelevantCalendars } from './candidate-starts.js';

/**
 * What the availability search knows of each resource kind (host, floating IP): calendars are per kind,
 * shared by the reservation types that book them, so this is kind-level; the types say which of them
 * matter to a request (`availability.scopes`) and what a reservation holds (`resources`). A new kind
 * fails to compile here until it has its entries.
 */

type ScopeOf<K extends CalendarScope['kind']> = Extract<CalendarScope, { readonly kind: K }>;

const scopesOf = <K extends CalendarScope['kind']>(scopes: readonly CalendarScope[], kind: K): ScopeOf<K>[] =>
  scopes.filter((scope): scope is ScopeOf<K> => scope.kind === kind);

/** Which hosts the scopes reach: every one, or the reservable ones some query matches. */
const relevantHosts = (hosts: BusyCalendars<RegisteredHost, Booking>, scopes: readonly ScopeOf<'host'>[]): boolean[] => {
  if (scopes.some((scope) => scope.hosts === 'every')) return hosts.members.map(() => true);
  return hosts.members.map((host) => {
    const snapshot = toHostSnapshot(host);
    return snapshot.columns.reservable && scopes.some((scope) => scope.hosts !== 'every' && matchesHost(scope.hosts, snapshot));
  });
};

/** Every resource of a registered kind: its types ask for any of them that matches, which only trying tells. */
const everyResource =
  (name: ResourceKindName) =>
  (index: CalendarIndex): RelevantCalendars => {
    const calendars = index.kind(name);
    return { calendars, relevant: calendars.members.map(() => true) };
  };

type KindRelevance = ReturnType<typeof everyResource>;

const RELEVANT: { readonly [K in CalendarScope['kind']]: (index: CalendarIndex, scopes: readonly CalendarScope[]) => RelevantCalendars } = {
  host: ({ hosts }, scopes) => ({ calendars: hosts, relevant: relevantHosts(hosts, scopesOf(scopes, 'host')) }),
  floatingip: ({ floatingIps }, scopes) => {
    const networks = new Set(scopesOf(scopes, 'floatingip').map((scope) => scope.networkId));
    return { calendars: floatingIps, relevant: floatingIps.members.map((ip) => networks.has(ip.networkId)) };
  },
  // a registered kind's scope names the kind alone: every resource of it is relevant
  ...(Object.fromEntries(RESOURCE_KINDS.map(({ kind }) => [kind, everyResource(kind)])) as Record<ResourceKindName, KindRelevance>),
};

/**
 * The calendars of each kind the scopes reach, with the resources they reach. A kind they do not reach is left
 * out, not listed with nothing relevant: the candidate starts would walk all its bookings at every step.
 */
export const relevantCalendars = (index: CalendarIndex, scopes: readonly CalendarScope[]): RelevantCalendars[] =>
  (Object.keys(RELEVANT) as CalendarScope['kind'][])
    .filter((kind) => scopes.some((scope) => scope.kind === kind))
    .map((kind) => RELEVANT[kind](index, scopes));

type HeldBooking = Interval & { readonly reservationId: string };

const kindBookings =
  (name: ResourceKindName) =>
  (index: WriteIndex, id: string): readonly HeldBooking[] =>
    resourceKind(name).calendar.bookings(index.kindResource(name, id).state) ?? [];

const BOOKINGS: { readonly [K in BookedResource['kind']]: (index: WriteIndex, id: string) => readonly HeldBooking[] } = {
  ...(Object.fromEntries(RESOURCE_KINDS.map(({ kind }) => [kind, kindBookings(kind)])) as Record<
    ResourceKindName,
    ReturnType<typeof kindBookings>
  >),
  host: (index, id) => {
    const { state } = index.host(id);
    return state.status === 'Registered' ? state.bookings : [];
  },
  floatingip: (index, id) => {
    const { state } = index.floatingIp(id);
    return state.status === 'Registered' ? state.bookings : [];
  },
};

/** Every booking on the resources the reservations hold (theirs included), each resource read once. */
export const bookingsOnHeld = (index: WriteIndex, reservations: readonly Reservation[]): HeldBooking[] => {
  const read = new Set<string>();
  return reservations
    .flatMap((reservation) => reservedResources(reservation))
    .flatMap((resource) => {
      const key = `${resource.kind}:${resource.id}`;
      if (read.has(key)) return [];
      read.add(key);
      return BOOKINGS[resource.kind](index, resource.id);
    });
};
