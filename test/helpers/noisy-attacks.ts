import type { IncomingMessage } from 'node:http';
import { type Server, type ServerResponse, createServer } from 'node:http';
import { type Socket as TcpSocket, connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';

/**
 * The attacks of issue 31, as one hostile project runs them against a running system. They run in
 * the attacker's own process (noisy-attacker.ts): what an attack costs its client (99 MB frames,
 * megabytes of GraphQL answers, thousands of subscription messages) stays out of the process that
 * times the victim. Each starts, holds or repeats its traffic until stopped, and then tells what
 * the server answered it.
 */
export type AttackPlan =
  | {
      /**
       * The same GraphQL query from `connections` clients at once, each sending it again once answered, at most every
       * `intervalMs` (a refusal is quick: without a pause this would be a flood of requests, another attack); once each if `once`.
       */
      readonly kind: 'graphql';
      readonly url: string;
      readonly token: string;
      readonly query: string;
      readonly connections: number;
      readonly once: boolean;
      readonly intervalMs: number;
    }
  | {
      /** `subscriptions` leaseEvents subscriptions over `sockets` sockets on the attacker's lease, renamed every `renameIntervalMs`. */
      readonly kind: 'subscriptions';
      readonly url: string;
      readonly token: string;
      readonly leaseId: string;
      readonly sockets: number;
      readonly subscriptions: number;
      readonly renameIntervalMs: number;
    }
  | {
      /** `bigMessages` sockets whose first message is `bigMessageBytes` long, and `silentSockets` that never send connection_init. */
      readonly kind: 'websockets';
      readonly url: string;
      readonly bigMessages: number;
      readonly bigMessageBytes: number;
      readonly silentSockets: number;
    }
  | {
      /** `webhooks` webhooks to a receiver that answers after `receiverDelayMs`, and a lease renamed every `writeIntervalMs`. */
      readonly kind: 'webhooks';
      readonly url: string;
      readonly token: string;
      readonly leaseId: string;
      readonly webhooks: number;
      readonly receiverDelayMs: number;
      readonly writeIntervalMs: number;
    }
  | {
      /** `streams` Server-Sent Event streams of GET /v1/events, held open. */
      readonly kind: 'sse';
      readonly url: string;
      readonly token: string;
      readonly streams: number;
    }
  | {
      /** `sockets` requests whose headers never end: one more byte every `byteIntervalMs` (slowloris). */
      readonly kind: 'slow-headers';
      readonly url: string;
      readonly sockets: number;
      readonly byteIntervalMs: number;
    }
  | {
      /** `bodyBytes` bodies to POST /v1/leases and /graphql from `connections` clients, every `intervalMs`, with and without a length. */
      readonly kind: 'large-bodies';
      readonly url: string;
      readonly token: string;
      readonly connections: number;
      readonly bodyBytes: number;
      readonly intervalMs: number;
    };

/** What the server answered an attack: counts by outcome (`HTTP 429`, `close 1009`...) and a few figures. */
export type AttackOutcome = Readonly<Record<string, number>>;

export interface RunningAttack {
  stop(): Promise<AttackOutcome>;
}

class Tally {
  private readonly counts = new Map<string, number>();

  add(key: string, by = 1): void {
    this.counts.set(key, (this.counts.get(key) ?? 0) + by);
  }

  max(key: string, value: number): void {
    this.counts.set(key, Math.max(this.counts.get(key) ?? value, value));
  }

  outcome(): AttackOutcome {
    return Object.fromEntries([...this.counts].sort(([a], [b]) => a.localeCompare(b)));
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

const jsonHeaders = (token: string): Record<string, string> => ({ 'Content-Type': 'application/json', 'X-Auth-Token': token });

/** A request that failed without an answer (the server reset it, or the attack aborted it). */
const failure = (error: unknown): string => {
  const cause = (error as { cause?: { code?: string } }).cause?.code;
  return `no answer (${cause ?? (error as Error).name})`;
};

export const startAttack = async (plan: AttackPlan): Promise<RunningAttack> => {
  switch (plan.kind) {
    case 'graphql':
      return graphqlFlood(plan);
    case 'subscriptions':
      return subscriptionFanOut(plan);
    case 'websockets':
      return websocketFlood(plan);
    case 'webhooks':
      return webhookFlood(plan);
    case 'sse':
      return streamFlood(plan);
    case 'slow-headers':
      return slowHeaders(plan);
    case 'large-bodies':
      return largeBodies(plan);
    default: {
      const _never: never = plan;
      return _never;
    }
  }
};

/** Whether a GraphQL answer carried data, or only errors: a query that failed at run time has already run. */
const graphqlVerdict = (status: number, text: string): string => {
  if (status !== 200) return `HTTP ${status}`;
  const body = JSON.parse(text) as { data?: unknown };
  return body.data === null || body.data === undefined ? 'HTTP 200 errors only' : 'HTTP 200 with data';
};

const graphqlFlood = (plan: Extract<AttackPlan, { kind: 'graphql' }>): RunningAttack => {
  const tally = new Tally();
  const abort = new AbortController();
  const body = JSON.stringify({ query: plan.query });
  const client = async (): Promise<void> => {
    do {
      const started = performance.now();
      try {
        const response = await fetch(`${plan.url}/graphql`, {
          method: 'POST',
          headers: jsonHeaders(plan.token),
          body,
          signal: abort.signal,
        });
        tally.add(graphqlVerdict(response.status, await response.text()));
        tally.max('slowest answer ms', Math.round(performance.now() - started));
      } catch (error) {
        tally.add(abort.signal.aborted ? 'unanswered at stop' : failure(error));
      }
      await sleep(plan.intervalMs - (performance.now() - started));
    } while (!plan.once && !abort.signal.aborted);
  };
  const clients = Array.from({ length: plan.connections }, client);
  return {
    stop: async () => {
      abort.abort();
      await Promise.all(clients);
      return tally.outcome();
    },
  };
};

/** The little of ws's client the attacks use (ws ships no types: test/types/ws.d.ts). */
interface Socket {
  on(event: 'open', listener: () => void): void;
  on(event: 'message', listener: (data: Buffer) => void): void;
  on(event: 'close', listener: (code: number) => void): void;
  on(event: 'error', listener: (error: Error) => void): void;
  send(data: string | Buffer, options?: { readonly binary: boolean }, sent?: (error?: Error) => void): void;
  terminate(): void;
}
const SocketClient = WebSocket as new (url: string, protocol: string, options: { generateMask(mask: Buffer): void }) => Socket;

/**
 * A client must mask what it sends; an all-zero mask leaves the bytes as they are, and ws then skips
 * the work (in JavaScript, 99 MB takes the attacker's process a second): a hostile client spends nothing on it.
 */
const zeroMask = (mask: Buffer): void => void mask.fill(0);

/** A graphql-ws socket; `closed` resolves with the close code (1006: no close frame) once the server or the attack ends it. */
const openSocket = (
  url: string,
  tally: Tally,
): { readonly socket: Socket; readonly opened: Promise<boolean>; readonly closed: Promise<number> } => {
  const socket = new SocketClient(`${url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws', { generateMask: zeroMask });
  const opened = new Promise<boolean>((resolve) => {
    socket.on('open', () => resolve(true));
    socket.on('error', (error) => {
      tally.add(/Unexpected server response: \d+/.exec(error.message)?.[0] ?? `socket error (${error.message.slice(0, 40)})`);
      resolve(false);
    });
  });
  const closed = new Promise<number>((resolve) => socket.on('close', resolve));
  return { socket, opened, closed };
};

const TYPE = /"type":"(\w+)"/;
const ID = /"id":"([^"]+)"/;

/** How long the attacker waits at its stop for the server to answer every subscription it asked for (an event or a refusal). */
const ANSWERS_MS = 15_000;

const subscriptionFanOut = async (plan: Extract<AttackPlan, { kind: 'subscriptions' }>): Promise<RunningAttack> => {
  const tally = new Tally();
  const refused = new Set<string>();
  const delivering = new Set<string>();
  let stopping = false;
  const query = 'subscription($id: ID!) { leaseEvents(leaseId: $id) { position type } }';
  const perSocket = Math.ceil(plan.subscriptions / plan.sockets);
  const sockets = await Promise.all(
    Array.from({ length: plan.sockets }, async (_, s) => {
      const connection = openSocket(plan.url, tally);
      const ids = Array.from({ length: perSocket }, (_, i) => `s${s}-${i}`);
      let acknowledged: () => void = () => undefined;
      const ack = new Promise<void>((resolve) => (acknowledged = resolve));
      connection.socket.on('message', (data) => {
        const head = data.subarray(0, 80).toString();
        const type = TYPE.exec(head)?.[1] ?? 'unknown';
        if (type === 'connection_ack') acknowledged();
        if (type === 'next') {
          tally.add('events received');
          delivering.add(ID.exec(head)?.[1] ?? '?');
        }
        if (type === 'error' || type === 'complete') refused.add(ID.exec(head)?.[1] ?? '?');
      });
      void connection.closed.then((code) => {
        acknowledged();
        if (!stopping) ids.forEach((id) => refused.add(id));
        if (!stopping) tally.add(`close ${code}`);
      });
      if (await connection.opened) {
        connection.socket.send(JSON.stringify({ type: 'connection_init', payload: { 'X-Auth-Token': plan.token } }));
        await ack;
        for (const id of ids)
          connection.socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query, variables: { id: plan.leaseId } } }));
      }
      return connection;
    }),
  );
  const renames = renameLoop(plan.url, plan.token, plan.leaseId, plan.renameIntervalMs, tally);
  return {
    stop: async () => {
      // a subscription the server has not answered yet (a loaded machine) is not counted as held: each gets its answer first
      const asked = perSocket * plan.sockets;
      const answered = () => new Set([...refused, ...delivering]).size >= asked;
      for (const deadline = performance.now() + ANSWERS_MS; !answered() && performance.now() < deadline;) await sleep(50);
      if (!answered()) tally.add('subscriptions unanswered', asked - new Set([...refused, ...delivering]).size);
      stopping = true;
      await renames.stop();
      tally.add('subscriptions refused', refused.size);
      tally.add('subscriptions live', perSocket * plan.sockets - refused.size);
      for (const { socket } of sockets) socket.terminate();
      return tally.outcome();
    },
  };
};

/** Renames the lease again and again (every `intervalMs`), counting the answers: the attacker's own events. */
const renameLoop = (url: string, token: string, leaseId: string, intervalMs: number, tally: Tally): { stop(): Promise<void> } => {
  let stopping = false;
  const loop = (async () => {
    for (let n = 0; !stopping; n++) {
      try {
        const response = await fetch(`${url}/v1/leases/${leaseId}`, {
          method: 'PUT',
          headers: jsonHeaders(token),
          body: JSON.stringify({ name: `noisy-${n}` }),
        });
        await response.arrayBuffer();
        tally.add(`rename HTTP ${response.status}`);
      } catch (error) {
        tally.add(`rename ${failure(error)}`);
      }
      await sleep(intervalMs);
    }
  })();
  return {
    stop: async () => {
      stopping = true;
      await loop;
    },
  };
};

/** A valid connection_init message padded to `bytes`: the server has to take all of it in before it can read it. */
const paddedInit = (bytes: number): Buffer => {
  const head = Buffer.from('{"type":"connection_init","payload":{"pad":"');
  const tail = Buffer.from('"}}');
  const message = Buffer.alloc(bytes, 'a');
  head.copy(message, 0);
  tail.copy(message, bytes - tail.length);
  return message;
};

/** How long the big frames may take to go out before the attack counts as under way anyway. */
const SENDING_MS = 20_000;

/** Under way once every big frame is out or refused: until then the server has little of it to hold. */
const websocketFlood = async (plan: Extract<AttackPlan, { kind: 'websockets' }>): Promise<RunningAttack> => {
  const tally = new Tally();
  const started = performance.now();
  const big = paddedInit(plan.bigMessageBytes);
  let stopping = false;
  const open = (label: string, send: boolean): { readonly socket: Socket; readonly out: Promise<unknown> } => {
    const connection = openSocket(plan.url, tally);
    let openedAt = performance.now();
    void connection.closed.then((code) => {
      if (stopping) return;
      tally.add(`${label} close ${code}`);
      tally.max(`${label} open for ms (longest)`, Math.round(performance.now() - openedAt));
    });
    const sent = connection.opened.then(async (opened) => {
      openedAt = performance.now();
      if (opened) tally.add(`${label} opened`);
      if (!opened || !send) return;
      await new Promise<void>((resolve) =>
        connection.socket.send(big, { binary: false }, (error) => {
          if (!(error instanceof Error)) tally.add(`${label} sent`);
          resolve();
        }),
      );
    });
    return { socket: connection.socket, out: Promise.race([sent, connection.closed]) };
  };
  const bigOnes = Array.from({ length: plan.bigMessages }, () => open('big', true));
  const silent = Array.from({ length: plan.silentSockets }, () => open('silent', false));
  await Promise.race([Promise.all(bigOnes.map(({ out }) => out)), sleep(SENDING_MS)]);
  tally.max('big frames out after ms', Math.round(performance.now() - started));
  return {
    stop: async () => {
      stopping = true;
      for (const { socket } of [...bigOnes, ...silent]) socket.terminate();
      return tally.outcome();
    },
  };
};

/** A receiver that takes each delivery in and answers it only after `delayMs` (or never, if the attack ends first). */
const slowReceiver = async (delayMs: number, tally: Tally): Promise<{ readonly url: string; readonly server: Server }> => {
  const waiting = new Set<NodeJS.Timeout>();
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    tally.add('deliveries received');
    request.resume();
    const timer = setTimeout(() => {
      waiting.delete(timer);
      response.writeHead(200).end();
    }, delayMs);
    waiting.add(timer);
  });
  server.on('close', () => waiting.forEach(clearTimeout));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
};

const webhookFlood = async (plan: Extract<AttackPlan, { kind: 'webhooks' }>): Promise<RunningAttack> => {
  const tally = new Tally();
  const receiver = await slowReceiver(plan.receiverDelayMs, tally);
  const registered: string[] = [];
  for (let n = 0; n < plan.webhooks; n++) {
    const response = await fetch(`${plan.url}/v1/webhooks`, {
      method: 'POST',
      headers: jsonHeaders(plan.token),
      body: JSON.stringify({ url: `${receiver.url}/hook-${n}`, event_types: ['*'], secret: 'noisy-neighbour-secret-0123456789' }),
    });
    const body = (await response.json()) as { webhook?: { id: string } };
    tally.add(`register HTTP ${response.status}`);
    if (body.webhook !== undefined) registered.push(body.webhook.id);
  }
  const writes = renameLoop(plan.url, plan.token, plan.leaseId, plan.writeIntervalMs, tally);
  return {
    stop: async () => {
      await writes.stop();
      // the publisher drops a deleted webhook's queue: nothing of this attack is left sending after it
      for (const id of registered) await fetch(`${plan.url}/v1/webhooks/${id}`, { method: 'DELETE', headers: jsonHeaders(plan.token) });
      receiver.server.closeAllConnections();
      await new Promise((resolve) => receiver.server.close(resolve));
      return tally.outcome();
    },
  };
};

const streamFlood = async (plan: Extract<AttackPlan, { kind: 'sse' }>): Promise<RunningAttack> => {
  const tally = new Tally();
  const abort = new AbortController();
  const draining: Promise<unknown>[] = [];
  for (let n = 0; n < plan.streams; n++) {
    const response = await fetch(`${plan.url}/v1/events`, {
      headers: { Accept: 'text/event-stream', 'X-Auth-Token': plan.token },
      signal: abort.signal,
    });
    tally.add(`stream HTTP ${response.status}`);
    draining.push(response.arrayBuffer().catch(() => undefined));
  }
  return {
    stop: async () => {
      abort.abort();
      await Promise.all(draining);
      return tally.outcome();
    },
  };
};

const slowHeaders = async (plan: Extract<AttackPlan, { kind: 'slow-headers' }>): Promise<RunningAttack> => {
  const tally = new Tally();
  const { hostname, port } = new URL(plan.url);
  let stopping = false;
  const sockets: TcpSocket[] = await Promise.all(
    Array.from(
      { length: plan.sockets },
      () =>
        new Promise<TcpSocket>((resolve) => {
          const socket = connect(Number(port), hostname, () => {
            socket.write(`GET /v1/leases HTTP/1.1\r\nHost: ${hostname}\r\nX-Slow: `);
            resolve(socket);
          });
          socket.on('data', (chunk: Buffer) => tally.add(`answered ${chunk.toString().split(' ', 2)[1] ?? '?'}`));
          socket.on('error', () => undefined);
          socket.on('close', () => !stopping && tally.add('closed by the server'));
        }),
    ),
  );
  const drip = setInterval(() => sockets.forEach((socket) => socket.writable && socket.write('a')), plan.byteIntervalMs);
  return {
    stop: async () => {
      stopping = true;
      clearInterval(drip);
      tally.add('sockets held', sockets.filter((socket) => !socket.destroyed).length);
      sockets.forEach((socket) => socket.destroy());
      return tally.outcome();
    },
  };
};

/** A JSON body of `bytes`: one long lease name, as a client that does not care sends it. */
const largeBody = (bytes: number): Buffer => {
  const head = Buffer.from('{"name":"');
  const tail = Buffer.from('","start_date":"now","end_date":"2099-01-01 00:00","reservations":[]}');
  const body = Buffer.alloc(bytes, 'n');
  head.copy(body, 0);
  tail.copy(body, bytes - tail.length);
  return body;
};

/** The same body without a Content-Length (chunked): the server learns its size only by reading it. */
const chunked = (body: Buffer): ReadableStream<Uint8Array> => {
  let offset = 0;
  return new ReadableStream({
    pull: (controller) => {
      if (offset >= body.length) return controller.close();
      controller.enqueue(body.subarray(offset, offset + 65_536));
      offset += 65_536;
    },
  });
};

const largeBodies = (plan: Extract<AttackPlan, { kind: 'large-bodies' }>): RunningAttack => {
  const tally = new Tally();
  const abort = new AbortController();
  const body = largeBody(plan.bodyBytes);
  const client = async (c: number): Promise<void> => {
    for (let n = c; !abort.signal.aborted; n++) {
      await sleep(plan.intervalMs);
      const path = n % 2 === 0 ? '/v1/leases' : '/graphql';
      const withLength = n % 4 < 2;
      try {
        const response = await fetch(`${plan.url}${path}`, {
          method: 'POST',
          headers: jsonHeaders(plan.token),
          body: withLength ? body : chunked(body),
          signal: abort.signal,
          ...(withLength ? {} : { duplex: 'half' }),
        });
        await response.arrayBuffer();
        tally.add(`HTTP ${response.status}`);
      } catch (error) {
        if (!abort.signal.aborted) tally.add(failure(error));
      }
    }
  };
  const clients = Array.from({ length: plan.connections }, (_, c) => client(c));
  return {
    stop: async () => {
      abort.abort();
      await Promise.all(clients);
      return tally.outcome();
    },
  };
};
