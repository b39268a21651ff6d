/** The REST calls the page makes, on this origin, with the caller's token when one is given. */
import { ROW_KINDS, ROW_KIND_SPECS, type ResourceWire, type RowKind, byKind } from './calendar-kinds.js';
import type { AllocationWire, CalendarData, LeaseAllocations, LeaseWire, MaintenanceWire } from './calendar-model.js';

export interface AvailabilityWindow {
  readonly start_date: string;
  readonly end_date: string;
  readonly reservations: readonly {
    readonly resource_type: string;
    readonly requested: number;
    readonly matching: number;
    readonly free: number;
  }[];
}

export interface AvailabilityRequest {
  readonly reservations: readonly Record<string, unknown>[];
  readonly duration: number;
  readonly not_before: string;
  readonly not_after: string;
  readonly limit: number;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Blazar's `error_message`, or keystonemiddleware's `error.message` on a 401. */
const messageOf = (status: number, body: unknown): string => {
  if (typeof body === 'object' && body !== null) {
    const record = body as { error_message?: unknown; error?: { message?: unknown } };
    if (typeof record.error_message === 'string') return record.error_message;
    if (typeof record.error?.message === 'string') return record.error.message;
  }
  return `HTTP ${status}`;
};

export class CalendarApi {
  constructor(private readonly token: () => string) {}

  private async call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    const token = this.token();
    if (token !== '') headers['X-Auth-Token'] = token;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    const parsed: unknown = text === '' ? null : JSON.parse(text);
    if (!response.ok) throw new ApiError(response.status, `${method} ${path}: ${messageOf(response.status, parsed)}`);
    return parsed as T;
  }

  private async resources(kind: RowKind): Promise<readonly ResourceWire[]> {
    const { list, listKey } = ROW_KIND_SPECS[kind];
    return (await this.call<Record<string, ResourceWire[] | undefined>>('GET', list))[listKey] ?? [];
  }

  private async allocations(kind: RowKind, query = ''): Promise<readonly AllocationWire[]> {
    return (await this.call<{ allocations: AllocationWire[] }>('GET', `${ROW_KIND_SPECS[kind].allocations}${query}`)).allocations;
  }

  private async maintenance(kind: RowKind): Promise<readonly MaintenanceWire[]> {
    const route = ROW_KIND_SPECS[kind].maintenance;
    return (await this.call<{ maintenance_windows: MaintenanceWire[] }>('GET', route.list)).maintenance_windows;
  }

  /** Every kind's resources, bookings and maintenance windows, and the leases: all or nothing, as one token may read them. */
  async loadCalendar(): Promise<CalendarData> {
    const [resources, allocations, maintenance, leases] = await Promise.all([
      Promise.all(ROW_KINDS.map((kind) => this.resources(kind))),
      Promise.all(ROW_KINDS.map((kind) => this.allocations(kind))),
      Promise.all(ROW_KINDS.map((kind) => this.maintenance(kind))),
      this.call<{ leases: LeaseWire[] }>('GET', '/v1/leases'),
    ]);
    return {
      resources: byKind((kind) => resources[ROW_KINDS.indexOf(kind)] ?? []),
      allocations: byKind((kind) => allocations[ROW_KINDS.indexOf(kind)] ?? []),
      maintenance: byKind((kind) => maintenance[ROW_KINDS.indexOf(kind)] ?? []),
      leases: leases.leases,
    };
  }

  /** One lease's bookings of every kind, ended ones included: the unfiltered lists hold only leases not yet ended. */
  async leaseAllocations(leaseId: string): Promise<LeaseAllocations> {
    const query = `?lease_id=${encodeURIComponent(leaseId)}`;
    const found = await Promise.all(ROW_KINDS.map((kind) => this.allocations(kind, query)));
    return byKind((kind) => found[ROW_KINDS.indexOf(kind)] ?? []);
  }

  async availability(request: AvailabilityRequest): Promise<readonly AvailabilityWindow[]> {
    return (await this.call<{ windows: AvailabilityWindow[] }>('POST', '/v1/availability', request)).windows;
  }
}
