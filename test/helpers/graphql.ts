import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './system.js';

/** A GraphQL client over plain HTTP (POST /graphql, JSON), as any client library sends it. */
export interface GraphqlReply {
  readonly status: number;
  readonly headers: Headers;
  readonly data: any;
  readonly errors:
    | readonly { readonly message: string; readonly path?: readonly (string | number)[]; readonly extensions: Record<string, any> }[]
    | undefined;
  readonly extensions: Record<string, any> | undefined;
}

export const graphqlClient =
  (base: string, token: string | null = null) =>
  async (query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<GraphqlReply> => {
    const response = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json',
        ...(token === null ? {} : { 'X-Auth-Token': token }),
        ...headers,
      },
      body: JSON.stringify({ query, variables }),
    });
    const text = await response.text();
    const body = text.length > 0 ? JSON.parse(text) : {};
    return { status: response.status, headers: response.headers, data: body.data, errors: body.errors, extensions: body.extensions };
  };

/** The first error's code and REST message, for comparisons with Blazar's error body. */
export const firstError = (reply: GraphqlReply): { readonly code: string; readonly error_message: string } | null => {
  const [error] = reply.errors ?? [];
  return error === undefined ? null : { code: String(error.extensions.code), error_message: String(error.extensions.error_message) };
};

/** Every field of a lease as REST shows it, and of its reservations (by resource type) and events. */
export const LEASE_FIELDS = `
  created_at updated_at id name user_id project_id start_date end_date trust_id status degraded
  reservations {
    created_at updated_at id lease_id resource_id resource_type status missing_resources resources_changed
    ... on HostReservation { hypervisor_properties resource_properties before_end min max }
    ... on InstanceReservation { vcpus memory_mb disk_gb amount affinity resource_properties flavor_id aggregate_id server_group_id }
    ... on FloatingIpReservation { network_id amount required_floatingips }
    ... on NetworkReservation { network_name network_description network_properties resource_properties before_end network_id }
    end_action
  }
  events { created_at updated_at id lease_id event_type time status }
`;

/** The ```graphql blocks of docs/graphql.md that are operations of this type. */
export const docExamples = (kind: 'query' | 'mutation' | 'subscription'): string[] =>
  [...readFileSync(join(ROOT, 'docs', 'graphql.md'), 'utf8').matchAll(/```graphql\n([\s\S]*?)```/g)]
    .map((match) => match[1] as string)
    .filter((text) => text.trimStart().startsWith(kind));
