import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SseClient } from '../../bench/sse-client.js';
import { type JsonResponse, api, blazarDate } from './http.js';

/**
 * The victim of the noisy-neighbour suite: a project that reads and writes its leases one request
 * at a time, each timed in this process, and checks that its own webhook and its event stream get
 * the events of its writes. Its requests give up after REQUEST_TIMEOUT_MS, counted at that latency
 * (a server that stopped answering must not stall the suite).
 */
export const REQUEST_TIMEOUT_MS = 3_000;
/** Between two of the victim's requests: an ordinary client's pace, and little CPU for the suite itself. */
const PAUSE_MS = 20;

export interface Timed {
  readonly op: string;
  readonly ms: number;
  /** The answer had the expected status, in time. */
  readonly ok: boolean;
  /** When the answer came (performance.now()). */
  readonly answeredAt: number;
}

/** A write the server acknowledged, and the event it records; `at` is when the answer came (performance.now()). */
export interface Written {
  readonly leaseId: string;
  readonly type: string;
  readonly at: number;
}

export interface VictimRound {
  readonly timed: readonly Timed[];
  readonly written: readonly Written[];
}

/** How late each write's event reached one of the victim's listeners (its webhook, a stream); those that did not come are missing. */
export interface Deliveries {
  readonly latencies: readonly number[];
  readonly missing: number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The public event each of the victim's writes records (docs/events.md). */
const EVENT_OF = { create: 'lease.created', rename: 'lease.renamed', delete: 'lease.deleted' } as const;

const key = (leaseId: string, type: string): string => `${leaseId} ${type}`;

/** Receives the victim's webhook deliveries and notes when each event first came (performance.now()). */
export class VictimReceiver {
  private constructor(
    private readonly server: Server,
    readonly arrivals: ReadonlyMap<string, number>,
  ) {}

  static async start(): Promise<VictimReceiver> {
    const arrivals = new Map<string, number>();
    const server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        const event = JSON.parse(body) as { type: string; subject: string };
        const arrival = key(event.subject.replace(/^leases\//, ''), event.type);
        if (!arrivals.has(arrival)) arrivals.set(arrival, performance.now());
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new VictimReceiver(server, arrivals);
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/victim`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** When each lease event first came on a stream of GET /v1/events. */
export const streamArrivals = (stream: SseClient): Map<string, number> => {
  const arrivals = new Map<string, number>();
  for (const message of stream.messages) {
    const arrival = key(String((JSON.parse(message.data) as { data: { lease_id?: string } }).data.lease_id), message.event);
    if (!arrivals.has(arrival)) arrivals.set(arrival, message.receivedAt);
  }
  return arrivals;
};

export class Victim {
  private readonly client: ReturnType<typeof api>;
  private readonly headers: Record<string, string>;
  private day = 0;

  constructor(
    private readonly url: string,
    token: string,
    /** The victim's standing leases, read by id. */
    private readonly leaseIds: readonly string[],
  ) {
    this.client = api(url);
    this.headers = { 'X-Auth-Token': token };
  }

  /** A stream of the victim's events (GET /v1/events as Server-Sent Events); its answer may be a refusal. */
  openStream(): Promise<SseClient> {
    return SseClient.open(`${this.url}/v1/events`, this.headers);
  }

  /** Reads and writes for `durationMs`: show, list, create, show, rename, list, delete, round and round. */
  async act(durationMs: number): Promise<VictimRound> {
    const round = { timed: [] as Timed[], written: [] as Written[] };
    const { timed } = round;
    const deadline = performance.now() + durationMs;
    for (let turn = 0; performance.now() < deadline; turn++) {
      const standing = this.leaseIds[turn % this.leaseIds.length] as string;
      timed.push(await this.call('show', () => this.client.get(`/v1/leases/${standing}`, this.headers), 200));
      timed.push(await this.call('list', () => this.client.get('/v1/leases', this.headers), 200));
      const created = await this.write('create', null, () => this.client.post('/v1/leases', this.newLease(), this.headers), 201, round);
      if (created === null) continue;
      timed.push(await this.call('show', () => this.client.get(`/v1/leases/${created}`, this.headers), 200));
      const rename = () => this.client.put(`/v1/leases/${created}`, { name: `quiet-${turn}` }, this.headers);
      await this.write('rename', created, rename, 200, round);
      timed.push(await this.call('list', () => this.client.get('/v1/leases', this.headers), 200));
      await this.write('delete', created, () => this.client.delete(`/v1/leases/${created}`, this.headers), 204, round);
    }
    return round;
  }

  private newLease(): Record<string, unknown> {
    this.day++;
    return {
      name: `quiet-${this.day}`,
      start_date: blazarDate(60 * 24 * (400 + this.day)),
      end_date: blazarDate(60 * 24 * (400 + this.day) + 60),
      reservations: [],
      events: [],
    };
  }

  /** A write, timed; once acknowledged, the event its listeners should get. Returns the lease's id (null: not acknowledged). */
  private async write(
    op: keyof typeof EVENT_OF,
    leaseId: string | null,
    send: () => Promise<JsonResponse>,
    expected: number,
    round: { timed: Timed[]; written: Written[] },
  ): Promise<string | null> {
    let id = leaseId;
    const timed = await this.call(
      op,
      async () => {
        const response = await send();
        id ??= (response.body?.lease?.id as string | undefined) ?? null;
        return response;
      },
      expected,
    );
    round.timed.push(timed);
    if (!timed.ok || id === null) return null;
    round.written.push({ leaseId: id, type: EVENT_OF[op], at: timed.answeredAt });
    return id;
  }

  private async call(op: string, send: () => Promise<JsonResponse>, expected: number): Promise<Timed> {
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), REQUEST_TIMEOUT_MS)));
    const response = await Promise.race([send().catch(() => null), late]);
    clearTimeout(timer);
    const answeredAt = performance.now();
    await sleep(PAUSE_MS);
    return { op, ms: answeredAt - started, ok: response !== null && response.status === expected, answeredAt };
  }
}

/** Waits (at most `timeoutMs`) for every write's event to arrive, then how late each came after its write was acknowledged. */
export const deliveriesOf = async (
  written: readonly Written[],
  arrivals: () => ReadonlyMap<string, number>,
  timeoutMs: number,
): Promise<Deliveries> => {
  const deadline = performance.now() + timeoutMs;
  const pending = (): Written[] => written.filter((w) => !arrivals().has(key(w.leaseId, w.type)));
  while (pending().length > 0 && performance.now() < deadline) await sleep(50);
  const seen = arrivals();
  const latencies = written.flatMap((w) => {
    const at = seen.get(key(w.leaseId, w.type));
    // the event can be sent before the answer to its write reaches the victim
    return at === undefined ? [] : [Math.max(0, at - w.at)];
  });
  return { latencies, missing: written.length - latencies.length };
};
