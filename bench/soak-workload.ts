import { blazarDate } from './bench-http.js';

/**
 * The soak's mixed workload, one request at a time as a driver asks for it: creates of short leases
 * (instance slots, whole hosts, floating IPs) due at once or at the next minute boundaries, renames,
 * ends brought forward to now, ends moved, deletes, and reads of single resources. Every lease lives a
 * few minutes, so starts, before-ends and ends fire every few seconds all along.
 */

export const SOAK_NETWORK = '50ac0000-0000-4000-8000-00000000500a';
export const SOAK_HOSTS = 20;
export const SOAK_ADDRESSES = 30;
export const SOAK_HOST_SIZE = { vcpus: 64, memory_mb: 262144, local_gb: 2000 };
const SLOT = { vcpus: 2, memory_mb: 4096, disk_gb: 20 };
const MINUTE = 60_000;

export interface SoakRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly path: string;
  readonly body?: unknown;
  /** Called with the answer's status and body. */
  readonly answered: (status: number, body: any) => void;
}

interface Lease {
  readonly id: string;
  readonly startMs: number;
  endMs: number;
}

const requestDate = (ms: number): string => blazarDate(ms);

export class SoakWorkload {
  private readonly leases = new Map<string, Lease>();
  private names = 0;
  private calls = 0;

  constructor(private readonly random: () => number = Math.random) {}

  /** Leases this workload believes alive (created, not yet deleted or seen gone). */
  get live(): number {
    return this.leases.size;
  }

  next(nowMs: number): SoakRequest {
    if (++this.calls % 500 === 0) this.forgetEnded(nowMs);
    const roll = this.random();
    const lease = this.pick();
    if (roll < 0.4 || lease === undefined) return this.create(nowMs);
    if (roll < 0.5) return this.rename(lease);
    if (roll < 0.6) return this.endNow(lease, nowMs) ?? this.read(lease);
    if (roll < 0.68) return this.moveEnd(lease, nowMs) ?? this.read(lease);
    if (roll < 0.8) return this.remove(lease);
    return this.read(lease);
  }

  /** Leases past their end are of no more use than deleted ones (they keep the driver's own memory flat). */
  private forgetEnded(nowMs: number): void {
    for (const lease of this.leases.values()) if (lease.endMs < nowMs - MINUTE) this.leases.delete(lease.id);
  }

  private pick(): Lease | undefined {
    if (this.leases.size === 0) return undefined;
    const all = [...this.leases.values()];
    return all[Math.floor(this.random() * all.length)];
  }

  private reservation(): unknown {
    const roll = this.random();
    if (roll < 0.6)
      return {
        resource_type: 'virtual:instance',
        amount: 1 + Math.floor(this.random() * 4),
        ...SLOT,
        affinity: null,
        resource_properties: '',
      };
    if (roll < 0.8) return { resource_type: 'physical:host', min: 1, max: 1, hypervisor_properties: '', resource_properties: '' };
    return { resource_type: 'virtual:floatingip', network_id: SOAK_NETWORK, amount: 1 };
  }

  private create(nowMs: number): SoakRequest {
    const minute = Math.floor(nowMs / MINUTE) * MINUTE;
    const startMs = this.random() < 0.7 ? minute : minute + (1 + Math.floor(this.random() * 2)) * MINUTE;
    const endMs = startMs + (1 + Math.floor(this.random() * 3)) * MINUTE;
    this.names++;
    const body = {
      name: `soak-${this.names}`,
      start_date: startMs === minute ? 'now' : requestDate(startMs),
      end_date: requestDate(endMs),
      reservations: [this.reservation()],
      events: [],
    };
    return {
      method: 'POST',
      path: '/v1/leases',
      body,
      answered: (status, answer) => {
        if (status === 201) this.leases.set(answer.lease.id, { id: answer.lease.id, startMs, endMs });
      },
    };
  }

  private rename(lease: Lease): SoakRequest {
    this.names++;
    return {
      method: 'PUT',
      path: `/v1/leases/${lease.id}`,
      body: { name: `soak-${this.names}` },
      answered: (status) => this.forgetIfGone(lease, status),
    };
  }

  /** Only for a lease that has started and has more than a minute left (else the API rightly refuses it). */
  private endNow(lease: Lease, nowMs: number): SoakRequest | null {
    if (lease.startMs > nowMs - MINUTE || lease.endMs < nowMs + MINUTE) return null;
    return {
      method: 'PUT',
      path: `/v1/leases/${lease.id}`,
      body: { end_date: 'now' },
      answered: (status) => {
        if (status === 200) lease.endMs = Math.floor(nowMs / MINUTE) * MINUTE;
        this.forgetIfGone(lease, status);
      },
    };
  }

  private moveEnd(lease: Lease, nowMs: number): SoakRequest | null {
    if (lease.endMs < nowMs + 2 * MINUTE) return null;
    const endMs = lease.endMs + MINUTE;
    return {
      method: 'PUT',
      path: `/v1/leases/${lease.id}`,
      body: { end_date: requestDate(endMs) },
      answered: (status) => {
        if (status === 200) lease.endMs = endMs;
        this.forgetIfGone(lease, status);
      },
    };
  }

  private remove(lease: Lease): SoakRequest {
    return {
      method: 'DELETE',
      path: `/v1/leases/${lease.id}`,
      answered: (status) => {
        if (status === 204 || status === 404) this.leases.delete(lease.id);
      },
    };
  }

  private read(lease: Lease): SoakRequest {
    const roll = this.random();
    const path = roll < 0.6 ? `/v1/leases/${lease.id}` : roll < 0.8 ? '/v1/os-hosts' : '/v1/floatingips';
    return { method: 'GET', path, answered: (status) => this.forgetIfGone(lease, status) };
  }

  private forgetIfGone(lease: Lease, status: number): void {
    if (status === 404) this.leases.delete(lease.id);
  }
}
