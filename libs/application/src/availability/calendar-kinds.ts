import type { Booking, Interval, RegisteredHost, Reservation } from '#domain/index.js';
import type { CalendarScope } from '#plugins/availability/availability.port.js';
import { matchesHost } from '#plugins/query/blazar-query.js';
import { reservedResources } from '#plugins/reservation-holdings.js';
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
  if (scopes.length === 0) return hosts.members.map(() => false);
  if (scopes.some((scope) => scope.hosts === 'every')) return hosts.members.map(() => true);
  return hosts.members.map((host) => {
    const snapshot = toHostSnapshot(host);
    return snapshot.columns.reservable && scopes.some((scope) => scope.hosts !== 'every' && matchesHost(scope.hosts, snapshot));
  });
};

const RELEVANT: { readonly [K in CalendarScope['kind']]: (index: CalendarIndex, scopes: readonly CalendarScope[]) => RelevantCalendars } = {
  host: ({ hosts }, scopes) => ({ calendars: hosts, relevant: relevantHosts(hosts, scopesOf(scopes, 'host')) }),
  floatingip: ({ floatingIps }, scopes) => {
    const networks = new Set(scopesOf(scopes, 'floatingip').map((scope) => scope.networkId));
    return { calendars: floatingIps, relevant: floatingIps.members.map((ip) => networks.has(ip.networkId)) };
  },
};

/** Every kind's calendars, each with the resources the scopes reach. */
export const relevantCalendars = (index: CalendarIndex, scopes: readonly CalendarScope[]): RelevantCalendars[] =>
  Object.values(RELEVANT).map((relevant) => relevant(index, scopes));

type HeldBooking = Interval & { readonly reservationId: string };

const BOOKINGS: { readonly [K in BookedResource['kind']]: (index: WriteIndex, id: string) => readonly HeldBooking[] } = {
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
