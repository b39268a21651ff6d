import type { HostMaintenanceWindow } from '#application/hosts/host-maintenance.use-cases.js';
import { toBlazarDate } from '#read-model/index.js';

/** A window as the routes answer it: Blazar's names and date form, as a lease's dates. */
export interface MaintenanceWindowView {
  readonly id: string;
  readonly host_id: string;
  readonly start_date: string;
  readonly end_date: string;
  readonly reason: string;
}

export const maintenanceWindowView = (window: HostMaintenanceWindow): MaintenanceWindowView => ({
  id: window.windowId,
  host_id: window.hostId,
  start_date: toBlazarDate(window.startDate),
  end_date: toBlazarDate(window.endDate),
  reason: window.reason,
});
