/**
 * The part of ws 8 that Leasehold uses (ws ships no types, and @types/ws is not a dependency): the
 * server GraphQL's subscriptions run on, and the client the tests connect with. What these calls do
 * is held by test/e2e/live-limits.e2e.spec.ts, test/e2e/graphql-subscriptions.e2e.spec.ts and test/e2e/tls.e2e.spec.ts.
 */
declare module 'ws' {
  import type { ClientRequest, IncomingMessage } from 'node:http';
  import type { Duplex } from 'node:stream';

  /** A message as the receiver hands it: a Buffer with the default binary type. */
  export type RawData = Buffer | ArrayBuffer | Buffer[];

  type ReadyState = 0 | 1 | 2 | 3;

  export class WebSocket {
    static readonly CONNECTING: 0;
    static readonly OPEN: 1;
    static readonly CLOSING: 2;
    static readonly CLOSED: 3;
    readonly readyState: ReadyState;
    /** The subprotocol the server chose. */
    readonly protocol: string;
    /** `generateMask`: a mask of zeros is not applied (a client that sends much, fast). `ca`: wss:// trusting that CA. */
    constructor(
      address: string,
      protocols?: string | readonly string[],
      options?: { readonly localAddress?: string; readonly generateMask?: (mask: Buffer) => void; readonly ca?: Buffer },
    );
    send(data: string | Buffer, callback?: (error?: Error | null) => void): void;
    /** Starts the closing handshake; `reason` at most 123 bytes. */
    close(code?: number, reason?: string): void;
    /** Destroys the connection at once. */
    terminate(): void;
    ping(): void;
    on(event: 'message', listener: (data: RawData, isBinary: boolean) => void): this;
    on(event: 'close', listener: (code: number, reason: Buffer) => void): this;
    on(event: 'error', listener: (error: Error) => void): this;
    on(event: 'open' | 'pong', listener: () => void): this;
    on(event: 'unexpected-response', listener: (request: ClientRequest, response: IncomingMessage) => void): this;
    once(event: 'message', listener: (data: RawData, isBinary: boolean) => void): this;
    once(event: 'close', listener: (code: number, reason: Buffer) => void): this;
    once(event: 'error', listener: (error: Error) => void): this;
    once(event: 'open' | 'pong', listener: () => void): this;
    once(event: 'unexpected-response', listener: (request: ClientRequest, response: IncomingMessage) => void): this;
  }

  export interface ServerOptions {
    /** Upgrades are handed over by the caller (handleUpgrade), not taken from a server of its own. */
    readonly noServer?: boolean;
    /** The largest message: the receiver refuses a larger one at its frame header (1009), without reading it. */
    readonly maxPayload?: number;
    readonly perMessageDeflate?: boolean;
    readonly handleProtocols?: (protocols: Set<string>, request: IncomingMessage) => string | false;
  }

  export class WebSocketServer {
    /** The open sockets. */
    readonly clients: Set<WebSocket>;
    constructor(options: ServerOptions);
    handleUpgrade(
      request: IncomingMessage,
      socket: Duplex,
      head: Buffer,
      callback: (socket: WebSocket, request: IncomingMessage) => void,
    ): void;
  }

  export default WebSocket;
}
