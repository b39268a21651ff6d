import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionDrain } from './connection-drain.js';

/** A server whose `/stream` answers an event stream that never ends and `/slow` answers after `slowMs`. */
const listening = async (slowMs = 0): Promise<{ server: Server; base: string }> => {
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    if (request.url === '/stream') {
      response.writeHead(200, { 'Content-Type': 'text/event-stream' });
      response.write(': open\n\n');
    } else setTimeout(() => response.end('done'), request.url === '/slow' ? slowMs : 0);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
};

/** How the API stops: the drain first (Fastify's preClose), then the server's own close. */
const stopped = (server: Server, drain: ConnectionDrain | null): Promise<void> => {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  drain?.stop();
  server.closeIdleConnections();
  return closed;
};

/** undici opens a connection ahead of need after a response it aborted: one that never sends a request. */
const abortedStream = async (base: string): Promise<void> => {
  await (await fetch(`${base}/`)).text();
  const abort = new AbortController();
  const response = await fetch(`${base}/stream`, { signal: abort.signal });
  await response.body!.getReader().read();
  abort.abort();
  await new Promise((resolve) => setTimeout(resolve, 200));
};

const within = <T>(promise: Promise<T>, ms: number): Promise<T | 'still waiting'> =>
  Promise.race([promise, new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), ms))]);

describe('ConnectionDrain', () => {
  const servers: Server[] = [];
  afterEach(() => {
    for (const server of servers.splice(0)) server.closeAllConnections();
  });

  it('lets the server close at once after a client aborted an event stream, which alone it does not', async () => {
    const plain = await listening();
    servers.push(plain.server);
    await abortedStream(plain.base);
    expect(await within(stopped(plain.server, null), 1_000)).toBe('still waiting');

    const drained = await listening();
    servers.push(drained.server);
    const drain = new ConnectionDrain(drained.server);
    await abortedStream(drained.base);
    expect(await within(stopped(drained.server, drain), 1_000)).toBeUndefined();
  });

  it('answers a request in flight to the end, then closes its connection', async () => {
    const { server, base } = await listening(300);
    servers.push(server);
    const drain = new ConnectionDrain(server);
    const answer = fetch(`${base}/slow`).then(async (response) => [response.status, await response.text()]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closing = stopped(server, drain);
    expect(await answer).toEqual([200, 'done']);
    expect(await within(closing, 1_000)).toBeUndefined();
  });
});
