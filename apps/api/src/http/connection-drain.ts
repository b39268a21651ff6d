import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Server as TlsServer } from 'node:tls';
import { HeldCounts } from './held-counts.js';

/**
 * At a stop, every connection is closed as soon as it holds no request: at once if it holds none, else once its last
 * answer is out. Node's `server.close()` alone waits for each connection it does not count as idle, and one that has
 * never sent a request is not idle to it: a client that opens a connection ahead of need (undici's fetch does, after
 * a response it aborted, such as an event stream's) held the stop until Apollo's drain gave up after 10 s, or the
 * headers timeout after 66 s. Requests in flight are still answered to the end.
 */
export class ConnectionDrain {
  private readonly connections = new Set<Socket>();
  private readonly requests = new HeldCounts<Socket>();
  private stopping = false;

  /** On HTTPS a connection counts from the end of its handshake: the requests arrive on the TLS socket. */
  constructor(server: Server) {
    server.on(server instanceof TlsServer ? 'secureConnection' : 'connection', (socket: Socket) => this.opened(socket));
    server.on('request', (request: IncomingMessage, response: ServerResponse) => this.started(request.socket, response));
  }

  /** Closes the connections that hold no request, and each other one after its last answer. */
  stop(): void {
    this.stopping = true;
    for (const socket of this.connections) if (this.requests.of(socket) === 0) socket.destroy();
  }

  private opened(socket: Socket): void {
    this.connections.add(socket);
    socket.once('close', () => this.connections.delete(socket));
  }

  private started(socket: Socket, response: ServerResponse): void {
    this.requests.add(socket);
    // after the answer is out, or the client gone; a hijacked answer (an event stream) too, once it ends
    response.once('close', () => {
      this.requests.remove(socket);
      if (this.stopping && this.requests.of(socket) === 0) socket.end();
    });
  }
}
