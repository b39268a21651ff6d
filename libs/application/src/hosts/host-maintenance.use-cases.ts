import { type MaintenanceWindow, type RegisteredHost, hostDecider, hostStream } from '#domain/index.js';
import type { ApplicationContext } from '../application-context.js';
import { type Caller, authorize } from '../caller.js';
import { type AppCommand, appendTo, eventMetadata } from '../command.js';
import type { Handled } from '../command-handler.js';
import { ACTIONS } from '../policy/policy-defaults.js';
import { hostNotFound } from './host.errors.js';

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

const registeredHost = (context: ApplicationContext, hostId: string): { state: RegisteredHost; revision: number } => {
  const { state, revision } = context.index.host(hostId);
  if (state.status !== 'Registered') throw hostNotFound(hostId);
  return { state, revision };
};

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
    const { handler, index, newId } = this.context;
    const { hostId, window } = command.data;
    const windowId = newId();
    return handler.handle(async () => {
      await index.catchUp();
      const host = registeredHost(this.context, hostId);
      const data = { windowId, ...window, now: command.metadata.now };
      const events = hostDecider.decide({ type: 'ScheduleHostMaintenance', data }, host.state);
      const appends = [appendTo(hostStream(hostId), host.revision, events, eventMetadata(command.metadata), newId)];
      return { appends, result: { hostId, windowId, ...window } };
    });
  }

  async cancel(command: CancelHostMaintenance): Promise<Handled<null>> {
    authorize(command.metadata.actor, MAINTENANCE_POLICY.cancel);
    const { handler, index, newId } = this.context;
    const { hostId, windowId } = command.data;
    return handler.handle(async () => {
      await index.catchUp();
      const host = registeredHost(this.context, hostId);
      const events = hostDecider.decide({ type: 'CancelHostMaintenance', data: { windowId, now: command.metadata.now } }, host.state);
      return { appends: [appendTo(hostStream(hostId), host.revision, events, eventMetadata(command.metadata), newId)], result: null };
    });
  }

  /** One host's windows (`hostId`), or every host's, by host then start; from the write side, so a caller's own writes show. */
  async list(caller: Caller, hostId: string | null): Promise<HostMaintenanceWindow[]> {
    authorize(caller, MAINTENANCE_POLICY.list);
    await this.context.index.catchUp();
    if (hostId !== null) return windowsOf(registeredHost(this.context, hostId).state);
    return this.context.index.registeredHosts().flatMap(windowsOf);
  }
}
