/**
 * Test-only: the leases projection as it was before the projections' fold was made cheaper (commit
 * d7cda6f), on the fold and reverse patch of then, kept word for word as the oracle the faster one
 * must match row for row. Not built, not exported.
 */
import type { EntitySchema } from '@mikro-orm/core';
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
  type Version,
} from '#read-model/index.js';
import type { BatchRows } from '../../batch-rows.js';
import type { Projection } from '../../projection.js';
import { evolveLeaseView } from '#read-model/testing/lease-view.reference.js';
import { reversePatch } from '#read-model/testing/version-patch.reference.js';

const dates = (event: LeaseEvent): { startDate: string; endDate: string } | null =>
  event.type === 'Lease.Created' || event.type === 'Lease.Rescheduled'
    ? { startDate: event.data.startDate, endDate: event.data.endDate }
    : null;

const reservationRows = (doc: LeaseView | null): Map<string, ReservationRow> =>
  new Map(
    doc === null
      ? []
      : doc.reservations.map((r) => [
          r.id,
          { id: r.id, leaseId: doc.id, projectId: doc.project_id, resourceType: r.resource_type, status: r.status },
        ]),
  );

/**
 * Makes lh_reservations hold exactly the reservations of the lease's new document (none once it is
 * gone): the rows are derived from the document alone, so they are written without being read.
 */
const syncReservations = (rows: BatchRows, before: LeaseView | null, after: LeaseView | null): void => {
  const table = rows.table(ReservationEntity);
  const wanted = reservationRows(after);
  for (const previous of before?.reservations ?? []) if (!wanted.has(previous.id)) table.remove(previous.id);
  for (const row of wanted.values()) table.put(row);
};

/**
 * Keeps the version the event at `position` replaces, as a reverse patch against `next` (the
 * document replacing it) while the run of patches is shorter than LEASE_PATCH_RUN, whole otherwise
 * (and when the lease is gone: nothing comes after it to patch). Returns the lease's new run of patches.
 */
const keepLeaseVersion = (rows: BatchRows, row: LeaseRow, position: number, next: LeaseView | null): number => {
  if (row.since >= position) return row.patchRun;
  const patch = next !== null && row.patchRun < LEASE_PATCH_RUN ? reversePatch(row.doc, next) : null;
  const columns = { id: row.id, projectId: row.projectId, startDate: row.startDate };
  keepVersion(
    rows,
    LeaseVersionEntity,
    row.since,
    position,
    patch === null ? { ...columns, doc: row.doc, patch: null } : { ...columns, doc: patch, patch: true },
  );
  return patch === null ? 0 : row.patchRun + 1;
};

const leaseIdOf = (event: FoldableEvent): string => (event.data as LeaseEvent['data']).leaseId;

/** lh_leases (the Blazar lease document plus query columns, and its past versions) and lh_reservations. */
export const leasesProjectionBefore: Projection = {
  name: 'leases',
  canHandle: LEASE_EVENT_TYPES,
  async preload(rows, events): Promise<void> {
    await rows.table(LeaseEntity).load(events.map(leaseIdOf));
  },
  async apply(rows, recorded: FoldableEvent): Promise<void> {
    const event = { type: recorded.type, data: recorded.data } as LeaseEvent;
    const leaseId = event.data.leaseId;
    const leases = rows.table(LeaseEntity);
    const row = await leases.get(leaseId);
    const before = row?.doc ?? null;
    const doc = evolveLeaseView(before, event);
    const patchRun = row !== null && doc !== before ? keepLeaseVersion(rows, row, recorded.position, doc) : (row?.patchRun ?? 0);
    if (doc === null) {
      if (row !== null) leases.remove(leaseId);
    } else {
      leases.put({
        id: leaseId,
        projectId: doc.project_id,
        userId: doc.user_id,
        name: doc.name,
        ...(dates(event) ?? { startDate: row?.startDate ?? '', endDate: row?.endDate ?? '' }),
        status: doc.status,
        createdAt: doc.created_at,
        updatedAt: doc.updated_at,
        doc,
        since: doc === before && row !== null ? row.since : recorded.position,
        patchRun,
      });
    }
    // evolveLeaseView keeps the reservations array when an event does not touch it
    if (before?.reservations !== doc?.reservations) syncReservations(rows, before, doc);
  },
};

const keepVersion = <V extends Version>(
  rows: BatchRows,
  history: EntitySchema<V>,
  since: number,
  position: number,
  columns: Omit<V, keyof Version>,
): void => {
  if (since >= position) return;
  rows.added(history).add({ ...columns, validFrom: since, validTo: position } as V);
};
