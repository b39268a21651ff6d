import { LEASE_EVENT_TYPES, type LeaseEvent } from '#domain/index.js';
import type { FoldableEvent } from '#event-store/event-store.port.js';
import {
  LEASE_PATCH_RUN,
  LeaseEntity,
  type LeaseRow,
  LeaseVersionEntity,
  type LeaseView,
  ReservationEntity,
  type ReservationRow,
  type ReservationView,
  reversePatch,
} from '#read-model/index.js';
import { evolveLeaseView } from '#plugins/lease-view.js';
import type { BatchRows } from '../batch-rows.js';
import type { Projection } from '../projection.js';
import { keepVersion } from '../versions.js';

/**
 * Makes lh_reservations hold exactly the reservations of the lease's new document (none once it is
 * gone): the rows are derived from the document alone, so they are written without being read.
 * Reservations are a handful per lease: a scan of the other array beats building a Map per event.
 */
const syncReservations = (rows: BatchRows, before: LeaseView | null, after: LeaseView | null): void => {
  const table = rows.table(ReservationEntity);
  const wanted = after?.reservations ?? [];
  for (const previous of before?.reservations ?? []) if (!wanted.some((r) => r.id === previous.id)) table.remove(previous.id);
  if (after !== null) for (const r of after.reservations) table.put(reservationRow(after, r));
};

const reservationRow = (doc: LeaseView, r: ReservationView): ReservationRow => ({
  id: r.id,
  leaseId: doc.id,
  projectId: doc.project_id,
  resourceType: r.resource_type,
  status: r.status,
});

/**
 * Keeps the version the event at `position` replaces, as a reverse patch against `next` (the
 * document replacing it) while the run of patches is shorter than LEASE_PATCH_RUN, whole otherwise
 * (and when the lease is gone: nothing comes after it to patch). Returns the lease's new run of patches.
 */
const keepLeaseVersion = (rows: BatchRows, row: LeaseRow, position: number, next: LeaseView | null): number => {
  if (row.since >= position) return row.patchRun;
  const patch = next !== null && row.patchRun < LEASE_PATCH_RUN ? reversePatch(row.doc, next) : null;
  const columns = {
    id: row.id,
    projectId: row.projectId,
    startDate: row.startDate,
    doc: patch ?? row.doc,
    patch: patch === null ? null : true,
  };
  keepVersion(rows, LeaseVersionEntity, row.since, position, columns);
  return patch === null ? 0 : row.patchRun + 1;
};

const leaseRow = (row: LeaseRow | null, event: LeaseEvent, doc: LeaseView, since: number, patchRun: number): LeaseRow => {
  const dated = event.type === 'Lease.Created' || event.type === 'Lease.Rescheduled';
  return {
    id: event.data.leaseId,
    projectId: doc.project_id,
    userId: doc.user_id,
    name: doc.name,
    startDate: dated ? event.data.startDate : (row?.startDate ?? ''),
    endDate: dated ? event.data.endDate : (row?.endDate ?? ''),
    status: doc.status,
    createdAt: doc.created_at,
    updatedAt: doc.updated_at,
    doc,
    since,
    patchRun,
  };
};

const leaseIdOf = (event: FoldableEvent): string => (event.data as LeaseEvent['data']).leaseId;

/** lh_leases (the Blazar lease document plus query columns, and its past versions) and lh_reservations. */
export const leasesProjection: Projection = {
  name: 'leases',
  canHandle: LEASE_EVENT_TYPES,
  async preload(rows, events): Promise<void> {
    await rows.table(LeaseEntity).load(events.map(leaseIdOf));
  },
  apply(rows, recorded: FoldableEvent): void {
    const event = { type: recorded.type, data: recorded.data } as LeaseEvent;
    const leaseId = event.data.leaseId;
    const leases = rows.table(LeaseEntity);
    const row = leases.loaded(leaseId);
    const before = row?.doc ?? null;
    const doc = evolveLeaseView(before, event);
    // an event that changed nothing (evolveLeaseView gave the same document back) leaves the row as it is
    if (doc === before && row !== null) return;
    const patchRun = row !== null ? keepLeaseVersion(rows, row, recorded.position, doc) : 0;
    if (doc !== null) leases.put(leaseRow(row, event, doc, recorded.position, patchRun));
    else if (row !== null) leases.remove(leaseId);
    // evolveLeaseView keeps the reservations array when an event does not touch it
    if (before?.reservations !== doc?.reservations) syncReservations(rows, before, doc);
  },
};
