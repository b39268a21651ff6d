import { describeError } from '#domain/index.js';
import type {
  ExternalAnswer,
  ExternalEndpoint,
  ExternalEnforcementService,
  ExternalServiceSettings,
} from '../ports/external-enforcement.port.js';

/** The body's `message` of a 403, when it is JSON with a non-empty string there. */
const messageOf = (text: string): string | null => {
  try {
    const body: unknown = JSON.parse(text);
    const message = typeof body === 'object' && body !== null ? (body as { message?: unknown }).message : undefined;
    return typeof message === 'string' && message.trim() !== '' ? message : null;
  } catch {
    return null;
  }
};

/**
 * Upstream's ExternalServiceFilter transport over fetch: one POST per check, `X-Auth-Token` when a
 * token is configured, given up after the timeout. Lives beside the cloud adapters because the API
 * (checks) and the reactor (on-end) both call it; libs/application knows only its port (ports/external-enforcement.port.ts).
 */
export class HttpExternalEnforcement implements ExternalEnforcementService {
  constructor(
    private readonly settings: ExternalServiceSettings,
    private readonly fetchFn: typeof fetch = fetch,
  ) {}

  async call(endpoint: ExternalEndpoint, body: unknown): Promise<ExternalAnswer> {
    const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json' };
    if (this.settings.token !== null) headers['X-Auth-Token'] = this.settings.token;
    try {
      const response = await this.fetchFn(new URL(endpoint, this.settings.baseUrl), {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      });
      const text = await response.text();
      if (response.status === 204) return { kind: 'allowed' };
      if (response.status === 403) return { kind: 'refused', message: messageOf(text) };
      return { kind: 'failed', reason: `${endpoint} answered HTTP ${response.status}` };
    } catch (error) {
      const timedOut = error instanceof DOMException && error.name === 'TimeoutError';
      if (timedOut) return { kind: 'failed', reason: `${endpoint} did not answer within ${this.settings.timeoutMs} ms` };
      const cause = error instanceof Error && error.cause !== undefined ? ` (${describeError(error.cause)})` : '';
      return { kind: 'failed', reason: `${endpoint}: ${describeError(error)}${cause}` };
    }
  }
}
