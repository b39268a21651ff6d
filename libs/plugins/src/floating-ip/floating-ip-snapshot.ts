import type { Interval } from '#domain/shared/interval.js';

/** What the floating-IP policy sees of a registered address: its network, calendar and maintenance windows. */
export interface FloatingIpSnapshot {
  readonly id: string;
  readonly networkId: string;
  readonly address: string;
  /** Sorted by start, never overlapping. */
  readonly bookings: readonly (Interval & { readonly reservationId: string })[];
  /** Maintenance windows, sorted by start (docs/maintenance.md): no booking may gain an instant inside one. */
  readonly maintenance: readonly Interval[];
}
