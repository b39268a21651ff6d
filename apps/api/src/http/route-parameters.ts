import { type ArgumentMetadata, Injectable, type PipeTransform } from '@nestjs/common';
import { type DomainError, MAX_CAPABILITY_KEY_LENGTH, RATE_CARD_NAME_PATTERN, invalid, leaseRequestNotFound } from '#domain/index.js';
import { RESERVATION_FIELDS } from '#plugins/reservation-fields.js';
import { RESERVATION_TYPES } from '#plugins/reservation-types.js';
import { reservationQueryParameters } from '../leases/reservation-fields.js';
import { FLAVOR_ID_PATTERN } from '../flavors/flavor.validators.js';
import { printable, textProblem } from './input-rules.js';
import { UUID_PATTERN } from './text.validators.js';
import { flavorNotFound, leaseNotFound, propertyNotFound, resourceNotFound } from './not-found.js';
import { floatingIpNotFound } from '#application/floating-ips/floating-ip.errors.js';
import { networkNotFound } from '#plugins/network/network-segment.rules.js';
import { webhookNotFound } from '#application/webhooks/webhook.use-cases.js';
import { hostNotFound } from '#application/hosts/host.errors.js';
import { maintenanceWindowNotFound } from '#application/maintenance/maintenance.use-cases.js';
import { rateCardNotFound } from '#application/usage/usage.queries.js';

/** What a route parameter may be; anything else is refused before the handler (and the database) sees it. */
export interface ParameterRule {
  /** ECMA-262 pattern, also published in the OpenAPI document. */
  readonly pattern?: string;
  readonly description: string;
  /** The answer to a value that cannot be one: the resource's 404 for a path, a 400 for a query. */
  readonly refuse: (value: string) => DomainError;
}

/** Host ids are handed out by the host registry: 1, 2, 3... (python-blazarclient takes `^[0-9]+$` for an id). */
export const HOST_ID_PATTERN = '^[1-9][0-9]{0,15}$';
/** An extra capability key: 1 to 64 characters (upstream's limit), not all blank, none of them a control character. */
export const PROPERTY_NAME_PATTERN = `^(?=.*\\S)[^\\u0000-\\u001f\\u007f-\\u009f]{1,${MAX_CAPABILITY_KEY_LENGTH}}$`;
/** A position in the log: 0 (before the first event) or a positive integer, below 2^53. */
export const LOG_POSITION_PATTERN = '^(0|[1-9][0-9]{0,14})$';
/** The Swagger UI files /docs serves. */
const ASSET_PATTERN = '^(?=.{1,64}$)[a-z0-9-]+(\\.[a-z0-9-]+)*$';

const uuidFilter = (name: string, what: string): ParameterRule => ({
  pattern: UUID_PATTERN,
  description: `${what} (a UUID)`,
  refuse: () => invalid('MALFORMED_PARAMETER', `Malformed parameter ${name} (must be ${what}, a UUID)`),
});

const flag = (name: string): ParameterRule => ({
  description: 'a flag',
  refuse: () => invalid('MALFORMED_PARAMETER', `Malformed parameter ${name}`),
});

/** Every path parameter any route declares, by name. A route with another name fails its requests and the OpenAPI check. */
export const PATH_PARAMETERS: Readonly<Record<string, ParameterRule>> = {
  leaseId: { pattern: UUID_PATTERN, description: 'a lease id (a UUID)', refuse: leaseNotFound },
  requestId: { pattern: UUID_PATTERN, description: 'a lease request id (a UUID)', refuse: leaseRequestNotFound },
  hostId: { pattern: HOST_ID_PATTERN, description: 'a host id (a positive integer)', refuse: hostNotFound },
  windowId: { pattern: UUID_PATTERN, description: 'a maintenance window id (a UUID)', refuse: maintenanceWindowNotFound },
  floatingIpId: { pattern: UUID_PATTERN, description: 'a floating IP id (a UUID)', refuse: floatingIpNotFound },
  networkId: { pattern: UUID_PATTERN, description: 'a network segment id (a UUID)', refuse: networkNotFound },
  flavorId: { pattern: FLAVOR_ID_PATTERN, description: "a flavor id (Nova's pattern)", refuse: flavorNotFound },
  name: { pattern: PROPERTY_NAME_PATTERN, description: 'an extra capability name', refuse: propertyNotFound },
  asset: { pattern: ASSET_PATTERN, description: 'a file name', refuse: resourceNotFound },
  webhookId: { pattern: UUID_PATTERN, description: 'a webhook id (a UUID)', refuse: webhookNotFound },
  rateCardName: { pattern: RATE_CARD_NAME_PATTERN, description: 'a rate card name', refuse: rateCardNotFound },
  projectId: {
    pattern: '^[A-Za-z0-9_.-]{1,64}$',
    description: 'a project id',
    refuse: () => invalid('MALFORMED_PARAMETER', 'Malformed parameter project_id'),
  },
};

/** Text checked by the parser that reads it (an availability query's reservation fields, as in a lease request). */
const parsed = (name: string, description: string): ParameterRule => ({
  description,
  refuse: () => invalid('MALFORMED_PARAMETER', `Malformed parameter ${name}`),
});

/** GET /v1/availability: one reservation's fields, named as in POST /v1/leases (those types take as parameters), and the search's own. */
export const AVAILABILITY_PARAMETERS: Readonly<Record<string, ParameterRule>> = {
  resource_type: parsed('resource_type', 'the reservation type, e.g. `physical:host`'),
  ...Object.fromEntries(
    reservationQueryParameters(
      RESERVATION_FIELDS,
      RESERVATION_TYPES.flatMap(({ wire }) => wire.fields),
    ).map(({ name, description }) => [name, parsed(name, description)]),
  ),
  duration: parsed('duration', 'minutes, or an ISO 8601 duration'),
  not_before: parsed('not_before', 'a request date or `now`'),
  not_after: parsed('not_after', 'a request date'),
  limit: parsed('limit', 'windows, 1 to 50'),
};

/**
 * Every query parameter any route reads, by name: one rule per name across routes, so a name two
 * routes share (`limit`) keeps the stricter shape here and each route's parser holds its own range.
 */
export const QUERY_PARAMETERS: Readonly<Record<string, ParameterRule>> = {
  ...AVAILABILITY_PARAMETERS,
  lease_id: uuidFilter('lease_id', 'a lease id'),
  reservation_id: uuidFilter('reservation_id', 'a reservation id'),
  detail: flag('detail'),
  all: flag('all'),
  start: {
    description: 'a date: `YYYY-MM-DD HH:MM` (UTC) or ISO 8601 with a zone',
    refuse: () => invalid('MALFORMED_PARAMETER', 'Malformed parameter start'),
  },
  end: {
    description: 'a date: `YYYY-MM-DD HH:MM` (UTC) or ISO 8601 with a zone',
    refuse: () => invalid('MALFORMED_PARAMETER', 'Malformed parameter end'),
  },
  as_of: {
    description: 'an instant (a Leasehold extension): `YYYY-MM-DD HH:MM` (UTC), `now` or ISO 8601 with a zone, not in the future',
    refuse: () => invalid('MALFORMED_PARAMETER', 'Malformed parameter as_of'),
  },
  project_id: {
    pattern: '^[A-Za-z0-9_.-]{1,64}$',
    description: 'a project id',
    refuse: () => invalid('MALFORMED_PARAMETER', 'Malformed parameter project_id'),
  },
  after: {
    pattern: LOG_POSITION_PATTERN,
    description: 'a log position (0 or a positive integer)',
    refuse: () => invalid('MALFORMED_PARAMETER', 'Malformed parameter after (must be a log position: 0 or a positive integer)'),
  },
  limit: {
    pattern: '^[1-9][0-9]{0,3}$',
    description: 'a page size (1 to 1000)',
    refuse: () => invalid('MALFORMED_PARAMETER', 'Malformed parameter limit (must be 1 to 1000)'),
  },
  types: {
    pattern: '^[a-z_.]{1,64}(,[a-z_.]{1,64}){0,99}$',
    description: 'public event types, comma-separated (docs/events.md)',
    refuse: () => invalid('MALFORMED_PARAMETER', 'Malformed parameter types (must be public event types separated by commas)'),
  },
  group_by: {
    pattern: '^(project|lease|reservation|resource)$',
    description: '`project`, `lease`, `reservation` or `resource`',
    refuse: () => invalid('MALFORMED_PARAMETER', 'Malformed parameter group_by (must be project, lease, reservation or resource)'),
  },
  rate_card: {
    pattern: `${RATE_CARD_NAME_PATTERN.slice(0, -1)}(:[1-9][0-9]{0,8})?$`,
    description: 'a rate card name, optionally with `:VERSION`',
    refuse: () => invalid('MALFORMED_PARAMETER', 'Malformed parameter rate_card (must be NAME or NAME:VERSION)'),
  },
  until: {
    description: 'an instant a usage report counts up to: `YYYY-MM-DD HH:MM` (UTC) or ISO 8601 with a zone, not in the future',
    refuse: () => invalid('MALFORMED_PARAMETER', 'Malformed parameter until'),
  },
  as_of_position: {
    pattern: '^[1-9][0-9]{0,15}$',
    description: 'a log position (a positive integer)',
    refuse: () => invalid('MALFORMED_PARAMETER', 'Malformed parameter as_of_position (must be a positive integer)'),
  },
  marker: {
    pattern: `^(${UUID_PATTERN.slice(1, -1)}|${HOST_ID_PATTERN.slice(1, -1)})$`,
    description: 'the id of the last item of the previous page (a UUID, or a host id)',
    refuse: () => invalid('MALFORMED_PARAMETER', 'Malformed parameter marker (must be the id of an item of the list)'),
  },
  sort_key: {
    pattern: '^[a-z_]{1,32}$',
    description: "a field of the list's items (each list names the ones it sorts by)",
    refuse: () => invalid('MALFORMED_PARAMETER', 'Malformed parameter sort_key'),
  },
  sort_dir: {
    pattern: '^(asc|desc)$',
    description: '`asc` or `desc`',
    refuse: () => invalid('MALFORMED_PARAMETER', 'Malformed parameter sort_dir (must be asc or desc)'),
  },
  status: {
    pattern: '^[A-Z_]{1,32}$',
    description: "a lease status (Blazar's: PENDING, STARTING, ACTIVE, TERMINATING, TERMINATED, ERROR)",
    refuse: () => invalid('MALFORMED_PARAMETER', 'Malformed parameter status (must be a lease status)'),
  },
  step: parsed('step', 'the report step: whole minutes, or an ISO 8601 duration'),
  failure_domain: {
    pattern: PROPERTY_NAME_PATTERN,
    description: 'a host capability whose values name failure domains (e.g. `rack`)',
    refuse: () => invalid('MALFORMED_PARAMETER', 'Malformed parameter failure_domain (must be an extra capability name)'),
  },
  outcome: {
    pattern: '^refused$',
    description: '`refused`, the only outcome the audit log records',
    refuse: () => invalid('MALFORMED_PARAMETER', 'Malformed parameter outcome (must be refused)'),
  },
};

const matches = (rule: ParameterRule, value: string): boolean =>
  textProblem(value) === null && (rule.pattern === undefined || new RegExp(rule.pattern).test(value));

const ruleOf = (rules: Readonly<Record<string, ParameterRule>>, kind: string, name: string | undefined): ParameterRule => {
  const rule = name === undefined || !Object.hasOwn(rules, name) ? undefined : rules[name];
  // a programming error: the OpenAPI document lists it as a problem and its e2e test fails
  if (rule === undefined) throw new Error(`${kind} parameter ${String(name)} has no rule in route-parameters.ts`);
  return rule;
};

export const checkPathParameter = (name: string | undefined, value: unknown): string => {
  const rule = ruleOf(PATH_PARAMETERS, 'path', name);
  if (typeof value !== 'string' || !matches(rule, value)) throw rule.refuse(printable(String(value)));
  return value;
};

/** An absent query parameter stays undefined; one given twice (an array) is refused, as is a value the rule refuses. */
export const checkQueryParameter = (name: string | undefined, value: unknown): string | undefined => {
  const rule = ruleOf(QUERY_PARAMETERS, 'query', name);
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalid('MALFORMED_PARAMETER', `Malformed parameter ${String(name)} (must be given once)`);
  if (!matches(rule, value)) throw rule.refuse(value);
  return value;
};

/**
 * Applied to every route (APP_PIPE): a path parameter that cannot name a resource is its 404 and a
 * malformed query parameter a 400, before the handler, and so before any database, sees them.
 */
@Injectable()
export class RouteParametersPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    switch (metadata.type) {
      case 'param':
        return checkPathParameter(metadata.data, value);
      case 'query':
        return checkQueryParameter(metadata.data, value);
      default:
        return value;
    }
  }
}
