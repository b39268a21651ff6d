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

/**
 * The address actually dialled is checked, not the one the name resolved to at registration: a name
 * that now resolves to a refused address (DNS rebinding) gets no connection.
 */
const checkedLookup =
  (policy: TargetPolicy, resolve: Resolve): LookupFunction =>
  (hostname, options, callback) => {
    resolve(hostname)
      .then((addresses) => {
        const allowed = hostNameListed(policy, hostname) ? addresses : addresses.filter((address) => addressAllowed(policy, address));
        const address = allowed[0];
        if (address === undefined) throw refusedTarget(hostname);
        const family = isIP(address);
        if (options.all === true) callback(null, [{ address, family }]);
        else callback(null, address, family);
      })
      .catch((error: unknown) => callback(error as NodeJS.ErrnoException, '', 0));
  };

/**
 * One POST over node:http(s), against the operator's target policy; never throws (the outcome is the
 * result). Redirects are not followed, and the receiver's answer is drained unread: only its status counts.
 */
export const httpSender =
  (policy: TargetPolicy, resolve: Resolve = resolveAll): Send =>
  ({ url, headers, body, timeoutMs }) =>
    new Promise((resolvePromise) => {
      const target = new URL(url);
      const host = urlHost(target);
      if (isIP(host) !== 0 && !hostNameListed(policy, host) && !addressAllowed(policy, host)) {
        resolvePromise({ statusCode: null, error: refusedTarget(host).message });
        return;
      }
      const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
      const request = send(
        target,
        {
          method: 'POST',
          headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
          lookup: checkedLookup(policy, resolve),
          timeout: timeoutMs,
          agent: false,
        },
        (response) => {
          response.resume();
          response.on('end', () => resolvePromise({ statusCode: response.statusCode ?? null, error: null }));
          response.on('error', (error) => resolvePromise({ statusCode: response.statusCode ?? null, error: error.message }));
        },
      );
      request.on('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      request.on('error', (error) => resolvePromise({ statusCode: null, error: error.message }));
      request.end(body);
    });
