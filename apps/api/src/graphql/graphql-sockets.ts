import { type IncomingMessage, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { HttpAdapterHost } from '@nestjs/core';
import type { GraphQLSchemaHost } from '@nestjs/graphql';
import { CloseCode, type Context, type Server, handleProtocols, makeServer } from 'graphql-ws';
import { type RawData, WebSocket, WebSocketServer } from 'ws';
import type { Caller } from '#application/caller.js';
import { describeError } from '#domain/index.js';
import type { WebSocketSettings } from '../config.js';
import { blazarError } from '../http/blazar-error.js';
import { HeldCounts } from '../http/held-counts.js';
import type { GraphqlContext } from './graphql-context.js';
import { subscriptionsOnly } from './socket-auth.js';

/** One socket, as graphql-ws hands it to each hook and operation (its `extra`). */
export interface SocketConnection {
  readonly request: IncomingMessage;
  readonly socket: WebSocket;
  /** The project of the caller its `connection_init` authenticated, counted until it closes; null before. */
  tenant: string | null;
  /** The turn of the last message received: the next one starts a turn of the event loop after it. */
  turn: Promise<void>;
  /** Messages received whose turn has not come yet. */
  waiting: number;
}

/**
 * Messages a socket may have waiting for their turn; at this many it is read no further (TCP holds the rest)
 * until one starts.
 */
const MAX_WAITING_MESSAGES = 32;

/** ws 8's `pause()` and `resume()` (its lib/websocket.js), which @types/ws does not declare yet. */
type Pausable = WebSocket & { pause(): void; resume(): void };

type Params = Record<string, unknown> | undefined;

/** Checks the token of `connection_init` and makes the caller of the socket's operations (null: refused). */
export type Authenticate = (request: IncomingMessage, params: Params) => Promise<Caller | null>;

/** A refusal that closes the socket with its own code, thrown from a graphql-ws hook. */
class SocketRefused extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
  ) {
    super(reason);
  }
}

const PATH = '/graphql';
const GOING_AWAY = 1001;
const MESSAGE_TOO_BIG = 1009;
const TRY_AGAIN_LATER = 1013;
/** As graphql-ws's own server: a socket whose peer does not answer a ping within this is dropped. */
const KEEP_ALIVE_MS = 12_000;
/** How long a shutdown waits for clients to answer its close. */
const SHUTDOWN_GRACE_MS = 2_000;

const pathOf = (request: IncomingMessage): string => new URL(request.url ?? '/', 'http://socket').pathname;

const bytesOf = (data: RawData): Buffer => (Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data));

/** Answers a handshake with an HTTP error (Blazar's body) and closes the connection: nothing of a socket is made. */
const refuseHandshake = (socket: Duplex, status: number, message: string): void => {
  const body = JSON.stringify(blazarError(status, message));
  socket.once('finish', () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
};

/** Pings the peer; one that has not answered the last ping by the next is gone, and its socket is dropped. */
const keepAlive = (socket: WebSocket): (() => void) => {
  let answered = true;
  socket.on('pong', () => (answered = true));
  const timer = setInterval(() => {
    if (!answered) return socket.terminate();
    answered = false;
    socket.ping();
  }, KEEP_ALIVE_MS);
  return () => clearInterval(timer);
};

/**
 * GraphQL's WebSocket (graphql-ws over ws, on the HTTP server's upgrades to /graphql), made here rather
 * than by @nestjs/apollo so that its bounds hold before anything is read: a message over the largest
 * size is never read past its header (ws's maxPayload, 1009), a smaller bound holds until
 * `connection_init` is accepted, a socket gets a time to send it, and connections are counted per
 * client address (at the handshake, before authentication: 429) and per project (after it: 1013).
 */
export class GraphqlSockets implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('graphql');
  private readonly sockets: WebSocketServer;
  private readonly perAddress = new HeldCounts<string>();
  private readonly perTenant = new HeldCounts<string>();
  private closing = false;

  constructor(
    private readonly settings: WebSocketSettings,
    private readonly authenticate: Authenticate,
    private readonly http: HttpAdapterHost,
    private readonly schema: GraphQLSchemaHost,
  ) {
    this.sockets = new WebSocketServer({ noServer: true, maxPayload: settings.maxMessageBytes, perMessageDeflate: false, handleProtocols });
  }

  /** Once the schema is built: from then on the HTTP server hands its upgrades here. */
  onApplicationBootstrap(): void {
    const graphqlWs = makeServer<Params, SocketConnection>({
      schema: this.schema.schema,
      context: ({ extra }): GraphqlContext => ({ req: extra.request }),
      connectionInitWaitTimeout: this.settings.initTimeoutMs,
      onConnect: (context) => this.admit(context),
      onSubscribe: subscriptionsOnly,
    });
    const server = this.http.httpAdapter.getHttpServer() as { on(event: 'upgrade', listener: (...args: never[]) => void): void };
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => this.upgrade(graphqlWs, request, socket, head));
  }

  /**
   * Every socket is told the server goes away (clients reconnect elsewhere), and its closing handshake
   * waited for; a client that does not answer in time is dropped. Before the GraphQL module stops:
   * Apollo's drain (which @nestjs/apollo adds) ends every idle connection, these sockets included.
   */
  async onModuleDestroy(): Promise<void> {
    this.closing = true;
    const sockets = [...this.sockets.clients];
    const gone = Promise.all(sockets.map((socket) => new Promise((resolve) => socket.once('close', resolve))));
    for (const socket of sockets) socket.close(GOING_AWAY, 'Going away');
    const drop = setTimeout(() => sockets.forEach((socket) => socket.terminate()), SHUTDOWN_GRACE_MS);
    await gone;
    clearTimeout(drop);
  }

  private upgrade(graphqlWs: Server<SocketConnection>, request: IncomingMessage, socket: Duplex, head: Buffer): void {
    if (pathOf(request) !== PATH) return refuseHandshake(socket, 404, `No WebSocket at ${pathOf(request)}; GraphQL's is at ${PATH}`);
    if (this.closing) return refuseHandshake(socket, 503, 'This server is shutting down; connect to another');
    const address = request.socket.remoteAddress ?? 'unknown';
    const { maxConnectionsPerAddress } = this.settings;
    if (this.perAddress.of(address) >= maxConnectionsPerAddress)
      return refuseHandshake(socket, 429, `Too many WebSocket connections from ${address}: at most ${maxConnectionsPerAddress}`);
    // counted until the connection closes, whether the handshake completes or not
    this.perAddress.add(address);
    socket.once('close', () => this.perAddress.remove(address));
    this.sockets.handleUpgrade(request, socket, head, (websocket) => this.open(graphqlWs, websocket, request));
  }

  private open(graphqlWs: Server<SocketConnection>, socket: WebSocket, request: IncomingMessage): void {
    const connection: SocketConnection = { request, socket, tenant: null, turn: Promise.resolve(), waiting: 0 };
    const closed = graphqlWs.opened(
      {
        protocol: socket.protocol,
        send: (data) =>
          new Promise<void>((resolve, reject) => {
            if (socket.readyState !== WebSocket.OPEN) return resolve();
            socket.send(data, (error) => (error === undefined || error === null ? resolve() : reject(error)));
          }),
        close: (code, reason) => socket.close(code, reason),
        onMessage: (handle) => socket.on('message', (data: RawData) => this.enqueue(connection, data, handle)),
      },
      connection,
    );
    const stopPinging = keepAlive(socket);
    // the receiver's own refusals (a message over maxPayload: 1009, a malformed frame) have already closed the socket with their code
    socket.on('error', (error) => this.logger.debug(`socket from ${request.socket.remoteAddress ?? 'unknown'}: ${describeError(error)}`));
    socket.once('close', (code, reason) => {
      stopPinging();
      if (connection.tenant !== null) this.perTenant.remove(connection.tenant);
      void closed(code, reason.toString());
    });
  }

  /**
   * One message of a socket starts per turn of the event loop, in the order they came: hundreds of subscribe
   * messages in one read (each parsed, validated and run up to its first await) would otherwise hold the
   * process for every other client until the last had started.
   */
  private enqueue(connection: SocketConnection, data: RawData, handle: (data: string) => Promise<void>): void {
    connection.waiting += 1;
    if (connection.waiting === MAX_WAITING_MESSAGES) (connection.socket as Pausable).pause();
    connection.turn = connection.turn.then(nextTurn).then(() => {
      connection.waiting -= 1;
      if (connection.waiting === MAX_WAITING_MESSAGES - 1) (connection.socket as Pausable).resume();
      void this.receive(connection, data, handle);
    });
  }

  /** Until `connection_init` is accepted, a message over the smaller bound is refused unread by graphql-ws. */
  private async receive(connection: SocketConnection, data: RawData, handle: (data: string) => Promise<void>): Promise<void> {
    const bytes = bytesOf(data);
    if (connection.tenant === null && bytes.length > this.settings.maxInitBytes) {
      return connection.socket.close(
        MESSAGE_TOO_BIG,
        `Message too big before connection_init: at most ${this.settings.maxInitBytes} bytes`,
      );
    }
    try {
      await handle(bytes.toString());
    } catch (error) {
      if (error instanceof SocketRefused) return connection.socket.close(error.code, error.reason);
      this.logger.error(describeError(error, { stack: true }));
      connection.socket.close(CloseCode.InternalServerError, 'Internal server error');
    }
  }

  /** `connection_init`: the token, then the project's count of sockets. */
  private async admit(context: Context<Params, SocketConnection>): Promise<boolean> {
    const connection = context.extra;
    const caller = await this.authenticate(connection.request, context.connectionParams);
    // a socket that closed while its token was checked holds nothing
    if (caller === null || connection.socket.readyState !== WebSocket.OPEN) return false;
    const { maxConnectionsPerTenant } = this.settings;
    if (this.perTenant.of(caller.projectId) >= maxConnectionsPerTenant)
      throw new SocketRefused(TRY_AGAIN_LATER, `This project has ${maxConnectionsPerTenant} sockets open, the most it may`);
    this.perTenant.add(caller.projectId);
    connection.tenant = caller.projectId;
    return true;
  }
}
