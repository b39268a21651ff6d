import { type DomainError, type MaintenanceWindow, notFound } from '#domain/index.js';
import type { ApplicationContext } from '../application-context.js';
import { type Caller, authorize } from '../caller.js';
import { type AppCommand, appendTo, eventMetadata } from '../command.js';
import type { Handled } from '../command-handler.js';
import { type AnyMaintainedKind, maintainedKind } from './maintained-kinds.js';

/** [startDate, endDate) as ISO-8601 UTC (the transport parsed Blazar's date forms). */
export interface MaintenanceRequest {
  readonly startDate: string;
  readonly endDate: string;
  readonly reason: string;
}

/** `kind` names an entry of MAINTAINED_KINDS, `resourceId` one of its resources. */
export type ScheduleMaintenance = AppCommand<
  'ScheduleMaintenance',
  { readonly kind: string; readonly resourceId: string; readonly window: MaintenanceRequest }
>;
export type CancelMaintenance = AppCommand<
  'CancelMaintenance',
  { readonly kind: string; readonly resourceId: string; readonly windowId: string }
>;

/** One resource's window, as the maintenance routes show it. */
export interface ResourceMaintenanceWindow extends MaintenanceRequest {
  readonly resourceId: string;
  readonly windowId: string;
}

/** A maintenance window id no resource has (the domain says which resource, when it knows). */
export const maintenanceWindowNotFound = (windowId: string): DomainError =>
  notFound('MAINTENANCE_NOT_FOUND', `Maintenance window ${windowId} not found`);

const shown = (resourceId: string, { windowId, startDate, endDate, reason }: MaintenanceWindow): ResourceMaintenanceWindow => ({
  resourceId,
  windowId,
  startDate,
  endDate,
  reason,
});

/**
 * Maintenance windows on every kind that takes them (MAINTAINED_KINDS). A window is appended to its resource's own
 * stream, under the revision it was decided on: a lease booking the resource concurrently appends there too, so
 * one of the two is decided again with the other seen, and no booking ever reaches into a window (docs/maintenance.md).
 */
export class MaintenanceUseCases {
  constructor(private readonly context: ApplicationContext) {}

  async schedule(command: ScheduleMaintenance): Promise<Handled<ResourceMaintenanceWindow>> {
    const kind = maintainedKind(command.data.kind);
    authorize(command.metadata.actor, kind.policy.schedule);
    const { resourceId, window } = command.data;
    const windowId = this.context.newId();
    const data = { windowId, ...window, now: command.metadata.now };
    return this.onResource(kind, command, (state) => kind.schedule(data, state), { resourceId, windowId, ...window });
  }

  async cancel(command: CancelMaintenance): Promise<Handled<null>> {
    const kind = maintainedKind(command.data.kind);
    authorize(command.metadata.actor, kind.policy.cancel);
    const data = { windowId: command.data.windowId, now: command.metadata.now };
    return this.onResource(kind, command, (state) => kind.cancel(data, state), null);
  }

  /**
   * One resource's windows (`resourceId`), or every one's of the kind, by resource then start; from the write side,
   * so a caller's own writes show.
   */
  async list(caller: Caller, kindName: string, resourceId: string | null): Promise<ResourceMaintenanceWindow[]> {
    const kind = maintainedKind(kindName);
    authorize(caller, kind.policy.list);
    const { index } = this.context;
    await index.catchUp();
    const windowsOf = (id: string, state: unknown): ResourceMaintenanceWindow[] => kind.windows(state).map((window) => shown(id, window));
    if (resourceId !== null) return windowsOf(resourceId, kind.registered(index, resourceId).state);
    return kind.every(index).flatMap(([id, state]) => windowsOf(id, state));
  }

  /** Decides on the resource's fresh state and appends the events under the revision it read. */
  private onResource<R>(
    kind: AnyMaintainedKind,
    command: ScheduleMaintenance | CancelMaintenance,
    decide: (state: unknown) => ReturnType<AnyMaintainedKind['schedule']>,
    result: R,
  ): Promise<Handled<R>> {
    const { handler, index, newId } = this.context;
    const { resourceId } = command.data;
    return handler.handle(async () => {
      await index.catchUp();
      const resource = kind.registered(index, resourceId);
      const events = decide(resource.state);
      return {
        appends: [appendTo(kind.stream(resourceId), resource.revision, events, eventMetadata(command.metadata), newId)],
        result,
      };
    });
  }
}
