/** What the standalone adapters may be configured with (each type takes the part it knows). */
export interface StandaloneEffectsOptions {
  /** Upstream's [physical:host]before_end: what a reservation's 'default' before-end action means. */
  readonly defaultBeforeEnd?: 'snapshot' | '';
  /** Upstream's [physical:host]blazar_az_prefix. */
  readonly availabilityZonePrefix?: string;
}
