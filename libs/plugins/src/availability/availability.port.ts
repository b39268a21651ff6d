import type { Reservation } from '#domain/index.js';
import type { HostQuery } from '../query/blazar-query.js';
import type { ResourceKindName } from '../resource-kinds.js';

/**
 * Resources of one kind whose bookings can change where a reservation is admitted: the availability search
 * tries starts only where a booking on one of them begins or ends (docs/availability.md). Kind-level: the
 * calendars are per resource kind, shared by the types that book them.
 */
export type CalendarScope =
  /** Reservable hosts the query matches; `every`: every registered host, reservable or not. */
  | { readonly kind: 'host'; readonly hosts: HostQuery | 'every' }
  /** Floating IPs registered on the network. */
  | { readonly kind: 'floatingip'; readonly networkId: string }
  /** Every registered resource of a kind (resource-kinds.ts). */
  | { readonly kind: ResourceKindName };

/**
 * A request that, alone, is admitted at a start exactly when `min` reservable hosts matching `query` are
 * free over the whole window, cleaning time included: what a sweep over the hosts' calendars finds without
 * trying the admission at each start (libs/application's HostSweeper). With other reservations, no
 * earlier start can admit the whole request.
 */
export interface WholeHostSweep<Q> {
  demand(request: Q): { readonly query: HostQuery; readonly min: number };
  /**
   * The request for one host: it meets every refusal of the request's but for lack of capacity (a
   * property it may not use, ...), which the sweep does not judge, at the cost of one host's admission.
   */
  single(request: Q): Q;
}

/** The views of the host kind's capacity that GET /v1/capacity reports per zone, each under one type's name. */
export type HostCapacityPool = 'whole-hosts' | 'slots';

/**
 * The calendar page's "free windows for N hosts" search (docs/calendar.md): one reservation of the type as
 * POST /v1/availability reads it, for N whole hosts matching the page's host filter. The server hands this
 * to the page (the browser code knows no type).
 */
export interface CalendarHostSearch {
  /** Fields the page sets to N. */
  readonly countFields: readonly string[];
  /** The field the page sets to its filter, as a Blazar resource query (JSON). */
  readonly filterField: string;
  /** Fields sent as they are. */
  readonly fixedFields: Readonly<Record<string, string>>;
}

/**
 * What one reservation type adds to the availability search (POST/GET /v1/availability, the counter-offers
 * of a 409, a lease's extension), the capacity report and the calendar page. The search itself is the
 * type's admission, tried at candidate starts; these members say where to try and what to report.
 */
export interface ReservationTypeAvailability<R extends Reservation, Q> {
  /** The units a request asks for, as a window reports it (`requested`). */
  requested(request: Q): number;
  /** The calendars whose bookings can change where the request is admitted. */
  scopes(request: Q): readonly CalendarScope[];
  /** The same for a pending reservation readmitted under any change its type accepts (an update's counter-offer). */
  heldScopes(reservation: R): readonly CalendarScope[];
  /** How a sweep answers the request without trying its admission; null: only trying answers. */
  readonly sweep: WholeHostSweep<Q> | null;
  /** The policy's refusal codes for lack of capacity: the search tries a later start (any other refusal is the answer). */
  readonly shortages: readonly string[];
  /** The view of the host capacity GET /v1/capacity reports under the type's name; null: none (another type's, or no hosts). */
  readonly capacityPool: HostCapacityPool | null;
  /** The calendar page's free-window search, or null: the page asks no type but one that has it. */
  readonly calendarSearch: CalendarHostSearch | null;
}
