import type { JsonResponse, api } from './http.js';

/** One request of a racing client: a create (201), an update (200) or a delete (204). */
export interface RaceAction {
  readonly method: 'POST' | 'PUT' | 'DELETE';
  readonly path: string;
  readonly body?: unknown;
  readonly expected: 201 | 200 | 204;
}

export const createLease = (body: unknown): RaceAction => ({ method: 'POST', path: '/v1/leases', body, expected: 201 });

/** `YYYY-MM-DDTHH:MM:SS.ffffff` -> the request format `YYYY-MM-DD HH:MM`. */
export const requestDate = (value: string): string => value.slice(0, 16).replace('T', ' ');

const send = (http: ReturnType<typeof api>, action: RaceAction): Promise<JsonResponse> => {
  switch (action.method) {
    case 'POST':
      return http.post(action.path, action.body);
    case 'PUT':
      return http.put(action.path, action.body);
    case 'DELETE':
      return http.delete(action.path);
    default: {
      const _never: never = action.method;
      return _never;
    }
  }
};

/**
 * What racing clients were told: the leases as last accepted (created or updated, not deleted), what
 * each kind of request got (accepted or refused with 409) and anything else, which is a failure.
 */
export class RaceRecord<Kind extends string> {
  readonly latest = new Map<string, any>();
  readonly deleted = new Set<string>();
  readonly unexpected: string[] = [];
  readonly tally: Map<Kind, { accepted: number; refused: number }>;

  constructor(kinds: readonly Kind[]) {
    this.tally = new Map(kinds.map((k) => [k, { accepted: 0, refused: 0 }]));
  }

  /** Sends the action and records its outcome; `mine` (the client's live leases, oldest first) follows it. */
  async play(http: ReturnType<typeof api>, kind: Kind, action: RaceAction, mine: string[], label: string): Promise<void> {
    const response = await send(http, action);
    const counts = this.tally.get(kind)!;
    if (response.status === action.expected && action.method === 'DELETE') {
      counts.accepted++;
      const leaseId = action.path.split('/').at(-1)!;
      mine.splice(mine.indexOf(leaseId), 1);
      this.latest.delete(leaseId);
      this.deleted.add(leaseId);
    } else if (response.status === action.expected) {
      counts.accepted++;
      this.latest.set(response.body.lease.id, response.body.lease);
      if (action.method === 'POST') mine.push(response.body.lease.id);
    } else if (response.status === 409 && action.method !== 'DELETE') {
      counts.refused++;
    } else {
      this.unexpected.push(`${label} (${kind}, ${action.method} ${action.path}): ${response.status} ${JSON.stringify(response.body)}`);
    }
  }

  get accepted(): number {
    return [...this.tally.values()].reduce((n, t) => n + t.accepted, 0);
  }

  get refused(): number {
    return [...this.tally.values()].reduce((n, t) => n + t.refused, 0);
  }

  summary(): string {
    return JSON.stringify(Object.fromEntries(this.tally));
  }
}
