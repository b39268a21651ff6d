import { LeaseRequestBook } from '#application/lease-requests/lease-request.book.js';
import type { ExistingLeaseRequest } from '#domain/index.js';
import { toBlazarDate, toBlazarTimestamp } from '#read-model/blazar-format.js';
import { type CliContext, writeOut } from '../cli-context.js';
import { textTable } from '../text-table.js';

export interface QueueOptions {
  readonly project?: string;
  readonly format: 'table' | 'json';
}

/** A queued request as `leasehold queue` prints it (the API's names and date forms). */
interface QueuedRow {
  readonly position: number;
  readonly id: string;
  readonly project_id: string;
  readonly name: string;
  readonly resource_types: string;
  readonly duration: number;
  readonly not_before: string;
  readonly start_by: string;
  readonly created_at: string;
}

const COLUMNS = ['position', 'id', 'project_id', 'name', 'resource_types', 'duration', 'not_before', 'start_by', 'created_at'] as const;

const rowOf = ({ request }: ExistingLeaseRequest, position: number): QueuedRow => ({
  position,
  id: request.requestId,
  project_id: request.projectId,
  name: request.name,
  resource_types: request.reservations.map((reservation) => reservation.resourceType).join(','),
  duration: request.durationMinutes,
  not_before: toBlazarDate(request.notBefore),
  start_by: toBlazarDate(request.startBy),
  created_at: toBlazarTimestamp(request.submittedAt),
});

/**
 * The work of `leasehold queue`, loaded only for it: the queue folded from the log, as the API's book folds it. The
 * predicted starts need the availability search over the calendars, which the API runs: GET /v1/lease-requests/{id}.
 */
export const runQueue = async (context: CliContext, options: QueueOptions): Promise<void> => {
  const store = await context.openStore();
  try {
    const book = new LeaseRequestBook(store);
    await book.catchUp();
    const positions = book.queuePositions();
    const rows = book
      .list(options.project ?? null)
      .flatMap((state) => {
        const position = positions.get(state.request.requestId);
        return position === undefined ? [] : [rowOf(state, position)];
      })
      .sort((a, b) => a.position - b.position);
    const text =
      options.format === 'json'
        ? JSON.stringify({ lease_requests: rows })
        : textTable(COLUMNS, [rows.map((row) => COLUMNS.map((column) => row[column]))]);
    await writeOut(context.stdout, text);
  } finally {
    await store.close();
  }
};
