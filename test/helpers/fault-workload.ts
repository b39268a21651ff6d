/**
 * A mixed workload for fault injection: clients creating, updating (rename, end now, move the end),
 * deleting and reading leases of three kinds (whole hosts, instance slots, floating IPs), with timers
 * due at once ("now"), at the next minute boundaries and later. It records what the system
 * acknowledged (each 2xx write with its ledger position), every answer that is not allowed, and the
 * connections that failed (a process being down is not an HTTP answer).
 */

/** A seeded pseudo-random generator (mulberry32): a failing run can be replayed from its seed. */
export const seededRandom = (seed: number): (() => number) => {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

export const FAULT_NETWORK = 'f0a17000-0000-4000-8000-00000000fa17';
const HOSTS = 8;
const ADDRESSES = 6;
const HOST_SIZE = { vcpus: 8, memory_mb: 16384, local_gb: 200 };
const SLOT = { vcpus: 2, memory_mb: 2048, disk_gb: 10 };
export const STORAGE_UNAVAILABLE_BODY = {
  error_code: 503,
  error_message: 'Storage unavailable, nothing was changed; try again',
  error_name: 503,
};

export type WriteKind = 'create' | 'rename' | 'reschedule' | 'delete';

/** A write the system acknowledged (2xx) and what it said. */
export interface Acknowledged {
  readonly kind: WriteKind;
  readonly leaseId: string;
  /** X-Leasehold-Position of the answer. */
  readonly position: number;
  /** The lease as the answer showed it (creates and updates). */
  readonly lease: { readonly name: string; readonly start_date: string; readonly end_date: string } | null;
}

interface TrackedLease {
  readonly leaseId: string;
  readonly startMs: number;
  endMs: number;
}

interface Answer {
  readonly status: number;
  readonly body: any;
  readonly headers: Headers;
}

const MINUTE = 60_000;

/** `YYYY-MM-DD HH:MM` of an instant (Blazar's request format, minute precision). */
const requestDate = (ms: number): string => new Date(ms).toISOString().slice(0, 16).replace('T', ' ');

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export interface WorkloadOptions {
  readonly url: () => string;
  readonly seed: number;
  readonly clients?: number;
  /** The processes' wall clock (the real one, or the one libfaketime gives them). */
  readonly clock?: () => number;
  /** Pause between two requests of one client, ms (a bounded rate). */
  readonly pauseMs?: number;
}

export class FaultWorkload {
  readonly acknowledged: Acknowledged[] = [];
  /** Answers no client may get: a 5xx (but a 503 while storage was made unavailable), or an error without Blazar's body. */
  readonly forbidden: string[] = [];
  readonly statuses = new Map<number, number>();
  /** 503s answered while storage was unavailable (the documented answer). */
  storageUnavailableAnswers = 0;
  /** Names sent in writes refused with that 503: none may be in the log. */
  readonly refusedNames: string[] = [];
  connectionErrors = 0;
  requests = 0;
  private readonly random: () => number;
  private readonly leases = new Map<string, TrackedLease>();
  private readonly clock: () => number;
  private running: Promise<void>[] = [];
  private stopping = false;
  /** Storage faults in progress, and when the last one ended (performance.now()). */
  private storageFaultDepth = 0;
  private storageFaultEnded = Number.NEGATIVE_INFINITY;
  private names = 0;

  constructor(private readonly options: WorkloadOptions) {
    this.random = seededRandom(options.seed);
    this.clock = options.clock ?? (() => Date.now());
  }

  /** Hosts (whole, and with room for instance slots) and floating IPs for the leases to take. */
  async setUp(): Promise<void> {
    for (let i = 1; i <= HOSTS; i++) await this.mustCreate('/v1/os-hosts', { name: `fault-${i}`, ...HOST_SIZE });
    for (let i = 1; i <= ADDRESSES; i++)
      await this.mustCreate('/v1/floatingips', { floating_network_id: FAULT_NETWORK, floating_ip_address: `203.0.113.${i}` });
  }

  /** Starts the clients (resumes after pause()). */
  resume(): void {
    this.stopping = false;
    this.running = Array.from({ length: this.options.clients ?? 3 }, () => this.client());
  }

  /** Stops the clients after their request in flight. */
  async pause(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.running);
    this.running = [];
  }

  /**
   * While storage is unavailable (the test fills the disk or holds the lock), a 503 with Blazar's
   * body is the documented answer. A request that overlaps the window may get it.
   */
  async whileStorageUnavailable<T>(fault: () => Promise<T>): Promise<T> {
    this.storageFaultDepth++;
    try {
      return await fault();
    } finally {
      this.storageFaultDepth--;
      this.storageFaultEnded = performance.now();
    }
  }

  /** One request as a client sends it; records what it got. Null when no HTTP answer came (connection refused or reset). */
  async send(method: string, path: string, body?: unknown): Promise<Answer | null> {
    const started = performance.now();
    this.requests++;
    let answer: Answer;
    try {
      const response = await fetch(`${this.options.url()}${path}`, {
        method,
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await response.text();
      answer = { status: response.status, headers: response.headers, body: text.length > 0 ? JSON.parse(text) : null };
    } catch (error) {
      if (error instanceof Error && error.name === 'TimeoutError') this.forbidden.push(`${method} ${path}: no answer in 30 s`);
      else this.connectionErrors++;
      return null;
    }
    this.statuses.set(answer.status, (this.statuses.get(answer.status) ?? 0) + 1);
    this.judge(method, path, answer, started);
    if (answer.status === 503 && typeof (body as { name?: unknown } | undefined)?.name === 'string')
      this.refusedNames.push((body as { name: string }).name);
    return answer;
  }

  private judge(method: string, path: string, answer: Answer, started: number): void {
    const { status, body } = answer;
    const what = `${method} ${path}: ${status} ${JSON.stringify(body)}`;
    if (status === 503) {
      const overlapped = this.storageFaultDepth > 0 || started <= this.storageFaultEnded;
      // a stale read's marker may come along
      const { error_code, error_message, error_name } = body ?? {};
      const documented =
        JSON.stringify({ error_code, error_message, error_name }) === JSON.stringify(STORAGE_UNAVAILABLE_BODY) &&
        answer.headers.get('retry-after') === '1';
      if (overlapped && documented) this.storageUnavailableAnswers++;
      else this.forbidden.push(`${what}${overlapped ? '' : ' (storage was available)'}`);
      return;
    }
    if (status >= 500) this.forbidden.push(what);
    else if (status >= 400 && (body?.error_code !== status || typeof body?.error_message !== 'string'))
      this.forbidden.push(`${what} (not Blazar's error body)`);
  }

  private async mustCreate(path: string, body: unknown): Promise<void> {
    for (let attempt = 0; attempt < 100; attempt++) {
      const answer = await this.send('POST', path, body);
      if (answer?.status === 201) return;
      if (answer !== null) throw new Error(`POST ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
      await sleep(100);
    }
    throw new Error(`POST ${path}: no answer`);
  }

  private async client(): Promise<void> {
    while (!this.stopping) {
      await this.step();
      await sleep((this.options.pauseMs ?? 60) * (0.5 + this.random()));
    }
  }

  private pick<T>(items: readonly T[]): T | undefined {
    return items[Math.floor(this.random() * items.length)];
  }

  private async step(): Promise<void> {
    const roll = this.random();
    const live = [...this.leases.values()];
    const lease = this.pick(live);
    if (roll < 0.45 || lease === undefined) return this.create();
    if (roll < 0.55) return this.rename(lease);
    if (roll < 0.68) return this.endNow(lease);
    if (roll < 0.78) return this.moveEnd(lease);
    if (roll < 0.9) return this.remove(lease);
    await this.send('GET', this.random() < 0.5 ? `/v1/leases/${lease.leaseId}` : '/v1/leases');
  }

  private reservation(): unknown {
    const roll = this.random();
    if (roll < 0.4) return { resource_type: 'physical:host', min: 1, max: 1, hypervisor_properties: '', resource_properties: '' };
    if (roll < 0.75)
      return {
        resource_type: 'virtual:instance',
        amount: 1 + Math.floor(this.random() * 3),
        ...SLOT,
        affinity: null,
        resource_properties: '',
      };
    return { resource_type: 'virtual:floatingip', network_id: FAULT_NETWORK, amount: 1 };
  }

  /** Due at once ("now"), at the next minute boundary, or later; ending within minutes. */
  private schedule(): { start: string; end: string; startMs: number; endMs: number } {
    const minute = Math.floor(this.clock() / MINUTE) * MINUTE;
    const roll = this.random();
    const startMs = roll < 0.5 ? minute : roll < 0.8 ? minute + MINUTE : minute + (2 + Math.floor(this.random() * 10)) * MINUTE;
    const endMs = startMs + (1 + Math.floor(this.random() * 3)) * MINUTE;
    return { start: startMs === minute ? 'now' : requestDate(startMs), end: requestDate(endMs), startMs, endMs };
  }

  private nextName(): string {
    this.names++;
    return `fault-${this.options.seed}-${this.names}`;
  }

  private async create(): Promise<void> {
    const { start, end, startMs, endMs } = this.schedule();
    const body = { name: this.nextName(), start_date: start, end_date: end, reservations: [this.reservation()], events: [] };
    const answer = await this.send('POST', '/v1/leases', body);
    if (answer?.status !== 201) return;
    const leaseId = answer.body.lease.id as string;
    this.leases.set(leaseId, { leaseId, startMs, endMs });
    this.acknowledge('create', leaseId, answer);
  }

  private async rename(lease: TrackedLease): Promise<void> {
    const answer = await this.send('PUT', `/v1/leases/${lease.leaseId}`, { name: this.nextName() });
    if (answer?.status === 200) this.acknowledge('rename', lease.leaseId, answer);
  }

  /** The end due at once: for a lease that has started (else it is refused, which is fine too). */
  private async endNow(lease: TrackedLease): Promise<void> {
    const answer = await this.send('PUT', `/v1/leases/${lease.leaseId}`, { end_date: 'now' });
    if (answer?.status !== 200) return;
    lease.endMs = Math.floor(this.clock() / MINUTE) * MINUTE;
    this.acknowledge('reschedule', lease.leaseId, answer);
  }

  private async moveEnd(lease: TrackedLease): Promise<void> {
    const endMs = lease.endMs + (this.random() < 0.5 ? -1 : 1) * MINUTE;
    const answer = await this.send('PUT', `/v1/leases/${lease.leaseId}`, { end_date: requestDate(endMs) });
    if (answer?.status !== 200) return;
    lease.endMs = endMs;
    this.acknowledge('reschedule', lease.leaseId, answer);
  }

  private async remove(lease: TrackedLease): Promise<void> {
    const answer = await this.send('DELETE', `/v1/leases/${lease.leaseId}`);
    if (answer?.status === 404) this.leases.delete(lease.leaseId);
    if (answer?.status !== 204) return;
    this.leases.delete(lease.leaseId);
    this.acknowledge('delete', lease.leaseId, answer);
  }

  private acknowledge(kind: WriteKind, leaseId: string, answer: Answer): void {
    const position = Number(answer.headers.get('x-leasehold-position'));
    if (!Number.isSafeInteger(position) || position <= 0) this.forbidden.push(`${kind} of ${leaseId}: no X-Leasehold-Position`);
    const shown = answer.body?.lease;
    this.acknowledged.push({
      kind,
      leaseId,
      position,
      lease: shown === undefined ? null : { name: shown.name, start_date: shown.start_date, end_date: shown.end_date },
    });
  }

  /** Requests, answers by status, refused connections: the figures a round prints. */
  summary(): string {
    const statuses = [...this.statuses]
      .sort(([a], [b]) => a - b)
      .map(([status, count]) => `${status}: ${count}`)
      .join(', ');
    return `${this.requests} requests (${statuses}; ${this.connectionErrors} without an answer), ${this.acknowledged.length} writes acknowledged`;
  }
}
