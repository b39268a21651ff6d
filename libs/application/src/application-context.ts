import type { AllocationRatios } from '#domain/index.js';
import type { ZoneRule } from '#plugins/zone-rule.js';
import type { CommandHandler } from './command-handler.js';
import type { WriteIndex } from './write-model/write-index.js';

/** Blazar's and Nova's settings the use cases decide with. */
export interface ApplicationSettings {
  /** Blazar [DEFAULT]cleaning_time, minutes between consecutive leases on one host. */
  readonly cleaningTimeMinutes: number;
  /** Blazar [manager]minutes_before_end_lease. */
  readonly minutesBeforeEnd: number;
  /** Nova's cpu/ram/disk allocation ratios: instance slots may take host totals x ratio. */
  readonly allocationRatios: AllocationRatios;
  /** Operators' guardrails on the freepool (absent: none). */
  readonly guardrails?: Guardrails;
}

export interface Guardrails {
  /** LEASEHOLD_FREEPOOL_HEADROOM: free hosts per zone a non-admin lease must leave at every instant of its window. */
  readonly freepoolHeadroom: ZoneRule;
  /** LEASEHOLD_GENERAL_POOL_FLOOR: compute hosts per zone (or share of them) that stay outside the freepool. */
  readonly generalPoolFloor: ZoneRule;
  /** LEASEHOLD_STANDALONE_ZONE_HOSTS: compute hosts per zone of the simulated cloud (standalone mode only). */
  readonly standaloneZoneHosts: ZoneRule;
}

/** What every use case works with: the one command handler, the write side's index of calendars, ids. */
export interface ApplicationContext {
  readonly handler: CommandHandler;
  readonly index: WriteIndex;
  readonly settings: ApplicationSettings;
  /** New ids (UUIDs); deterministic in specifications. */
  readonly newId: () => string;
}
