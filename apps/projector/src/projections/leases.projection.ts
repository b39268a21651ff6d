import type { EntityManager } from '@mikro-orm/core';
import { LEASE_EVENT_TYPES, type LeaseEvent } from '#domain/index.js';
import type { RecordedEvent } from '#event-store/event-store.port.js';
import {
  LeaseEntity,
  type LeaseRow,
  LeaseVersionEntity,
  type LeaseView,
  ReservationEntity,
  type ReservationRow,
  evolveLeaseView,
} from '#read-model/index.js';
import { type Projection, findRow } from '../projection.js';
import { keepVersion } from '../versions.js';

const dates = (event: LeaseEvent): { startDate: string; endDate: string } | null =>
  event.type === 'Lease.Created' || event.type === 'Lease.Rescheduled'
    ? { startDate: event.data.startDate, endDate: event.data.endDate }
    : null;

const reservationRows = (doc: LeaseView | null): Map<string, ReservationRow> =>
  new Map(
    doc === null
      ? []
      : doc.reservations.map((r) => [r.id, { id: r.id, leaseId: doc.id, projectId: doc.project_id, resourceType: r.resource_type, status: r.status }]),
  );

/** Makes lh_reservations hold exactly the reservations of the lease's new document (none once it is gone). */
const syncReservations = async (em: EntityManager, before: LeaseView | null, after: LeaseView | null): Promise<void> => {
  const wanted = reservationRows(after);
  for (const previous of before?.reservations ?? []) {
    if (wanted.has(previous.id)) continue;
    const row = await findRow(em, ReservationEntity, { id: previous.id });
    if (row !== null) em.remove(row);
  }
  for (const [id, columns] of wanted) {
    const row = await findRow(em, ReservationEntity, { id });
    if (row === null) em.create(ReservationEntity, columns);
    else em.assign(row, columns);
  }
};

const keepLeaseVersion = (em: EntityManager, row: LeaseRow, position: number): void =>
  keepVersion(em, LeaseVersionEntity, row.since, position, { id: row.id, projectId: row.projectId, startDate: row.startDate, doc: row.doc });

/** lh_leases (the Blazar lease document plus query columns, and its past versions) and lh_reservations. */
export const leasesProjection: Projection = {
  name: 'leases',
  canHandle: LEASE_EVENT_TYPES,
  async apply(em, recorded: RecordedEvent): Promise<void> {
    const event = { type: recorded.type, data: recorded.data } as LeaseEvent;
    const leaseId = event.data.leaseId;
    const row = await findRow(em, LeaseEntity, { id: leaseId });
    const before = row?.doc ?? null;
    const doc = evolveLeaseView(before, event);
    if (row !== null && doc !== before) keepLeaseVersion(em, row, recorded.position);
    if (doc === null) {
      if (row !== null) em.remove(row);
    } else {
      const columns = {
        projectId: doc.project_id,
        userId: doc.user_id,
        name: doc.name,
        ...(dates(event) ?? { startDate: row?.startDate ?? '', endDate: row?.endDate ?? '' }),
        status: doc.status,
        doc,
        ...(doc === before ? {} : { since: recorded.position }),
      };
      if (row === null) em.create(LeaseEntity, { id: leaseId, ...columns });
      else em.assign(row, columns);
    }
    // evolveLeaseView keeps the reservations array when an event does not touch it
    if (before?.reservations !== doc?.reservations) await syncReservations(em, before, doc);
  },
};
