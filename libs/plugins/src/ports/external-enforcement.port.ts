import type { Capabilities } from '#domain/index.js';

/** The operator's usage service's three endpoints, joined onto its base URL (upstream's names). */
export type ExternalEndpoint = 'check-create' | 'check-update' | 'on-end';

/** What the service answered: 204, 403 (with the body's `message` when it sent one), or anything else (no answer, another status). */
export type ExternalAnswer =
  | { readonly kind: 'allowed' }
  | { readonly kind: 'refused'; readonly message: string | null }
  | { readonly kind: 'failed'; readonly reason: string };

/** Upstream's ExternalServiceFilter transport: POSTs a JSON body, never throws (a failure is an answer). */
export interface ExternalEnforcementService {
  call(endpoint: ExternalEndpoint, body: unknown): Promise<ExternalAnswer>;
}

/** What an external service that cannot be consulted (timeout, no connection, a status other than 204 or 403) comes to. */
export type OnError = 'deny' | 'allow';

export interface ExternalServiceSettings {
  /** Base URL: `check-create`, `check-update` and `on-end` are joined onto it. */
  readonly baseUrl: string;
  /** Sent as `X-Auth-Token` when set. */
  readonly token: string | null;
  readonly timeoutMs: number;
  readonly onError: OnError;
}

/** What a lease body says of an allocated resource, from the write side's registry (null: no longer registered). */
export interface EnforcementResources {
  host(hostId: string): { readonly hypervisorHostname: string; readonly capabilities: Capabilities } | null;
  floatingIp(floatingIpId: string): { readonly networkId: string; readonly address: string } | null;
}
