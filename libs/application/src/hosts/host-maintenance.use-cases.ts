import { type HostCommand, type MaintenanceWindow, type RegisteredHost, hostDecider, hostStream } from '#domain/index.js';
import type { ApplicationContext } from '../application-context.js';
import { type Caller, authorize } from '../caller.js';
import { type AppCommand, appendTo, eventMetadata } from '../command.js';
import type { Handled } from '../command-handler.js';
import { ACTIONS } from '../policy/policy-defaults.js';
import { registered } from './host.use-cases.js';

/** [startDate, endDate) as ISO-8601 UTC (the transport parsed Blazar's date forms). */
export interface MaintenanceRequest {
  readonly startDate: string;
  readonly endDate: string;
  readonly reason: string;
}

export type ScheduleHostMaintenance = AppCommand<
  'ScheduleHostMaintenance',
  { readonly hostId: string; readonly window: MaintenanceRequest }
>;
export type CancelHostMaintenance = AppCommand<'CancelHostMaintenance', { readonly hostId: string; readonly windowId: string }>;

/** One host's window, as the maintenance routes show it. */
export interface HostMaintenanceWindow extends MaintenanceRequest {
  readonly hostId: string;
  readonly windowId: string;
}

export const MAINTENANCE_POLICY = {
  list: ACTIONS.hostMaintenanceGet,
  schedule: ACTIONS.hostMaintenancePost,
  cancel: ACTIONS.hostMaintenanceDelete,
} as const;

const shown = (hostId: string, { windowId, startDate, endDate, reason }: MaintenanceWindow): HostMaintenanceWindow => ({
  hostId,
  windowId,
  startDate,
  endDate,
  reason,
});

const windowsOf = (host: RegisteredHost): HostMaintenanceWindow[] => host.maintenance.map((window) => shown(host.hostId, window));

/**
 * Maintenance windows on hosts. A window is appended to the host's own stream, under the revision it was decided
 * on: a lease booking the host concurrently appends there too, so one of the two is decided again with the other
 * seen, and no booking ever reaches into a window (docs/maintenance.md).
 */
export class HostMaintenanceUseCases {
  constructor(private readonly context: ApplicationContext) {}

  async schedule(command: ScheduleHostMaintenance): Promise<Handled<HostMaintenanceWindow>> {
    authorize(command.metadata.actor, MAINTENANCE_POLICY.schedule);
    const { hostId, window } = command.data;
    const windowId = this.context.newId();
    const data = { windowId, ...window, now: command.metadata.now };
    return this.onHost(command, { type: 'ScheduleHostMaintenance', data }, { hostId, windowId, ...window });
  }

  async cancel(command: CancelHostMaintenance): Promise<Handled<null>> {
    authorize(command.metadata.actor, MAINTENANCE_POLICY.cancel);
    const { windowId } = command.data;
    return this.onHost(command, { type: 'CancelHostMaintenance', data: { windowId, now: command.metadata.now } }, null);
  }

  /** One host's windows (`hostId`), or every host's, by host then start; from the write side, so a caller's own writes show. */
  async list(caller: Caller, hostId: string | null): Promise<HostMaintenanceWindow[]> {
    authorize(caller, MAINTENANCE_POLICY.list);
    const { index } = this.context;
    await index.catchUp();
    if (hostId !== null) return windowsOf(registered(hostId, index.host(hostId)).state);
    return index.registeredHosts().flatMap(windowsOf);
  }

  /** Decides `decision` on the host's fresh state and appends its events under the revision it read. */
  private onHost<R>(command: ScheduleHostMaintenance | CancelHostMaintenance, decision: HostCommand, result: R): Promise<Handled<R>> {
    const { handler, index, newId } = this.context;
    const { hostId } = command.data;
    return handler.handle(async () => {
      await index.catchUp();
      const host = registered(hostId, index.host(hostId));
      const events = hostDecider.decide(decision, host.state);
      return { appends: [appendTo(hostStream(hostId), host.revision, events, eventMetadata(command.metadata), newId)], result };
    });
  }
}
