import { expect } from 'vitest';
import { ledgerCount } from './api-fixtures.js';
import type { JsonResponse, api } from './http.js';
import type { RunningSystem } from './system.js';

export type Client = ReturnType<typeof api>;

export const describeBody = (response: JsonResponse): string => `${response.status} ${JSON.stringify(response.body)}`;

export const blazarError = (status: number, message: string) => ({ error_code: status, error_message: message, error_name: status });

/**
 * Lease calls against one running system that assert their status, and refused writes that assert
 * Blazar's error body and that the ledger did not grow.
 */
/**
 * A refusal's body without its counter-offer (a capacity 409's `alternatives`, whose first window its
 * message names at the end: checked here), so the refusal compares as upstream's body.
 */
export const withoutCounterOffer = (body: any): any => {
  if (body === null || typeof body !== 'object' || !('alternatives' in body)) return body;
  const { alternatives, ...error } = body;
  expect(Array.isArray(alternatives), 'alternatives is a list').toBe(true);
  const first = alternatives[0];
  if (first === undefined) return error;
  const offer = ` Earliest alternative: ${first.start_date} to ${first.end_date}.`;
  expect(String(error.error_message).endsWith(offer), `the message names the first alternative: ${String(error.error_message)}`).toBe(true);
  // the offer's own full stop closes upstream's message, which ends without one
  const upstream = String(error.error_message).slice(0, -offer.length);
  expect(upstream.endsWith('.'), `a full stop before the offer: ${String(error.error_message)}`).toBe(true);
  return { ...error, error_message: upstream.slice(0, -1) };
};

export const leaseClient = (system: () => RunningSystem, client: () => Client) => {
  /** Sends a write that must be refused: checks status and Blazar's error body, and that no event was appended. */
  const rejected = async (send: () => Promise<JsonResponse>, status: number, message: string): Promise<void> => {
    const before = ledgerCount(system().dataDir);
    const response = await send();
    expect(response.status, describeBody(response)).toBe(status);
    expect(withoutCounterOffer(response.body)).toEqual(blazarError(status, message));
    expect(ledgerCount(system().dataDir), 'a refused write must not append to the ledger').toBe(before);
  };

  const leaseBody = (name: string, start: string, end: string, reservations: unknown[]) => ({
    name,
    start_date: start,
    end_date: end,
    reservations,
    events: [],
  });

  const createLease = async (name: string, start: string, end: string, reservations: unknown[]): Promise<any> => {
    const response = await client().post('/v1/leases', leaseBody(name, start, end, reservations));
    expect(response.status, describeBody(response)).toBe(201);
    return response.body.lease;
  };

  const refusedLease = (
    name: string,
    start: string,
    end: string,
    reservations: unknown[],
    status: number,
    message: string,
  ): Promise<void> => rejected(() => client().post('/v1/leases', leaseBody(name, start, end, reservations)), status, message);

  const showLease = async (leaseId: string): Promise<any> => {
    const response = await client().get(`/v1/leases/${leaseId}`);
    expect(response.status, describeBody(response)).toBe(200);
    return response.body.lease;
  };

  const updateLease = async (leaseId: string, body: Record<string, unknown>): Promise<any> => {
    const response = await client().put(`/v1/leases/${leaseId}`, body);
    expect(response.status, describeBody(response)).toBe(200);
    return response.body.lease;
  };

  const refusedUpdate = (leaseId: string, body: Record<string, unknown>, status: number, message: string): Promise<void> =>
    rejected(() => client().put(`/v1/leases/${leaseId}`, body), status, message);

  return { rejected, leaseBody, createLease, refusedLease, showLease, updateLease, refusedUpdate };
};
