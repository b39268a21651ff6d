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
