import { type LookupFunction, isIP } from 'node:net';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import {
  type Resolve,
  type TargetPolicy,
  addressAllowed,
  hostNameListed,
  resolveAll,
  urlHost,
} from '#application/webhooks/webhook-targets.js';

export interface SendResult {
  /** The receiver's HTTP status; null when the request got none (then `error` says why). */
  readonly statusCode: number | null;
  readonly error: string | null;
}

export interface SendOptions {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly timeoutMs: number;
}

export type Send = (options: SendOptions) => Promise<SendResult>;

const refusedTarget = (host: string): Error =>
  new Error(`target refused: ${host} is not an allowed webhook target (LEASEHOLD_WEBHOOK_ALLOWED_TARGETS)`);

/** The promise, or the signal's reason if it aborts first: nothing that hangs (a lookup, a socket) outlives the attempt. */
const until = <T>(promise: Promise<T>, signal: AbortSignal): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
    promise.then(resolve, reject);
  });

/**
 * The addresses to dial, resolved once for this attempt and every one checked (as at registration): a name
 * that now resolves to a refused address (DNS rebinding) gets no connection, even beside allowed ones.
 */
const checkedAddresses = async (policy: TargetPolicy, resolve: Resolve, host: string, signal: AbortSignal): Promise<readonly string[]> => {
  const addresses = isIP(host) !== 0 ? [host] : await until(resolve(host), signal);
  const listed = hostNameListed(policy, host);
  if (addresses.length === 0 || !addresses.every((address) => listed || addressAllowed(policy, address))) throw refusedTarget(host);
  return addresses;
};

/** A lookup that answers the checked addresses and asks no resolver: the connection goes where the check looked. */
const pinned =
  (addresses: readonly string[]): LookupFunction =>
  (_hostname, options, callback) => {
    const [first = ''] = addresses;
    if (options.all === true)
      callback(
        null,
        addresses.map((address) => ({ address, family: isIP(address) })),
      );
    else callback(null, first, isIP(first));
  };

const post = (target: URL, addresses: readonly string[], headers: SendOptions['headers'], body: string, signal: AbortSignal) =>
  new Promise<SendResult>((resolve) => {
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const failed = (error: Error): SendResult => ({
      statusCode: null,
      error: signal.aborted ? (signal.reason as Error).message : error.message,
    });
    const request = send(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        lookup: pinned(addresses),
        signal,
        agent: false,
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve({ statusCode: response.statusCode ?? null, error: null }));
        response.on('error', (error) => resolve({ ...failed(error), statusCode: response.statusCode ?? null }));
      },
    );
    request.on('error', (error) => resolve(failed(error)));
    request.end(body);
  });

/**
 * One POST over node:http(s), against the operator's target policy; never throws (the outcome is the
 * result). The timeout bounds the whole attempt (resolving, connecting, the answer to its last byte): a
 * receiver that trickles its answer holds a sending slot no longer than one that is silent. Redirects are
 * not followed, and the receiver's answer is drained unread: only its status counts.
 */
export const httpSender =
  (policy: TargetPolicy, resolve: Resolve = resolveAll): Send =>
  async ({ url, headers, body, timeoutMs }) => {
    const target = new URL(url);
    const controller = new AbortController();
    const deadline = setTimeout(() => controller.abort(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    try {
      const addresses = await checkedAddresses(policy, resolve, urlHost(target), controller.signal);
      // the race too: the attempt ends at the deadline whatever the socket's events
      return await until(post(target, addresses, headers, body, controller.signal), controller.signal);
    } catch (error) {
      return { statusCode: null, error: (error as Error).message };
    } finally {
      clearTimeout(deadline);
    }
  };
