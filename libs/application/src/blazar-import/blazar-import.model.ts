import type { Capabilities, EffectRecord, HostInfo, LeasePhase, Reservation } from '#domain/index.js';

/**
 * What the import found that Leasehold's invariants forbid. Each names the lease it leaves out (null: only
 * the row named); `--on-conflict` says whether any of them refuses the whole import.
 */
export interface ImportProblem {
  readonly kind: 'double_booking' | 'inverted_dates' | 'dangling_reference' | 'unreadable_row' | 'unsupported';
  readonly leaseId: string | null;
  readonly message: string;
}

/** A record the import keeps, but not quite as Blazar had it (said in the dry run, never refuses). */
export interface ImportNote {
  readonly message: string;
}

export interface ImportedHost {
  readonly hostId: string;
  readonly info: HostInfo;
  readonly capabilities: Capabilities;
  readonly reservable: boolean;
  readonly createdAt: string;
  readonly updatedAt: string | null;
}

export interface ImportedFloatingIp {
  readonly floatingIpId: string;
  readonly networkId: string;
  readonly subnetId: string;
  readonly address: string;
  readonly createdAt: string;
}

export interface ImportedProperty {
  readonly id: string;
  readonly name: string;
  readonly createdAt: string;
}

/** Where one of Blazar's lease events stood: its id, and what its status says the service had done. */
export interface ImportedPhase {
  readonly eventId: string;
  readonly phase: LeasePhase;
  readonly status: 'UNDONE' | 'IN_PROGRESS' | 'DONE' | 'ERROR';
  /** When it was due. */
  readonly time: string;
  /** When Blazar last changed it (its due time when never). */
  readonly at: string;
}

export interface ImportedReservation {
  readonly reservation: Reservation;
  readonly status: string;
  readonly missingResources: boolean;
  readonly resourcesChanged: boolean;
  readonly updatedAt: string;
  /** Capability names its queries read (a host booking records them). */
  readonly propertyNames: readonly string[];
  /** What Blazar's start left in the cloud that the view shows (an instance reservation's aggregate and server group). */
  readonly startEffects: readonly EffectRecord[];
}

export interface ImportedLease {
  readonly leaseId: string;
  readonly name: string;
  readonly projectId: string;
  readonly userId: string;
  readonly trustId: string | null;
  readonly startDate: string;
  readonly endDate: string;
  readonly status: string;
  readonly createdAt: string;
  readonly phases: Readonly<Record<LeasePhase, ImportedPhase | null>>;
  readonly reservations: readonly ImportedReservation[];
}

/** Blazar's database as the ledger will hold it, and what could not be taken as it was. */
export interface BlazarState {
  readonly revision: string;
  readonly hosts: readonly ImportedHost[];
  readonly floatingIps: readonly ImportedFloatingIp[];
  readonly privateProperties: readonly ImportedProperty[];
  readonly leases: readonly ImportedLease[];
  readonly problems: readonly ImportProblem[];
  readonly notes: readonly ImportNote[];
}
