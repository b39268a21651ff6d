import type { AnyMaintainedKind } from '#application/maintenance/maintained-kinds.js';
import type { ResourceMaintenanceWindow } from '#application/maintenance/maintenance.use-cases.js';
import { toBlazarDate } from '#read-model/index.js';

/** A window as the routes answer it: Blazar's names and date form, as a lease's dates; its resource by the kind's id field (`host_id`). */
export interface MaintenanceWindowView {
  readonly id: string;
  readonly start_date: string;
  readonly end_date: string;
  readonly reason: string;
  readonly [idField: string]: string;
}

export const maintenanceWindowView = (kind: AnyMaintainedKind, window: ResourceMaintenanceWindow): MaintenanceWindowView => ({
  id: window.windowId,
  [kind.idField]: window.resourceId,
  start_date: toBlazarDate(window.startDate),
  end_date: toBlazarDate(window.endDate),
  reason: window.reason,
});
