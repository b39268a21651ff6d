import type { ExternalServiceSettings, OnError } from '#plugins/ports/external-enforcement.port.js';
import { type Environment, integerSetting } from '../application-settings.js';
import type { LeaseStackingPolicy, StackingScope } from './lease-stacking.rules.js';
import type { MaxLeaseDurationPolicy } from './max-lease-duration.rules.js';

export const FILTER_NAMES = ['max_lease_duration', 'external_service', 'lease_stacking'] as const;

export type FilterName = (typeof FILTER_NAMES)[number];

export interface EnforcementConfig {
  /** In the order they run; empty: none (upstream's default). */
  readonly filters: readonly FilterName[];
  readonly maxLeaseDuration: MaxLeaseDurationPolicy;
  /** Set when `external_service` is enabled. */
  readonly external: ExternalServiceSettings | null;
  /** Set when `lease_stacking` is enabled. */
  readonly stacking: LeaseStackingPolicy | null;
  /** Upstream's context fields: where the caller's Keystone is and the region (null: not known here). */
  readonly authUrl: string | null;
  readonly regionName: string | null;
}

const list = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');

const isFilterName = (name: string): name is FilterName => (FILTER_NAMES as readonly string[]).includes(name);

const filterNames = (env: Environment): FilterName[] => {
  const names = list(env.LEASEHOLD_ENFORCEMENT_FILTERS);
  for (const name of names) {
    if (!isFilterName(name)) throw new Error(`LEASEHOLD_ENFORCEMENT_FILTERS: unknown filter '${name}' (known: ${FILTER_NAMES.join(', ')})`);
  }
  return [...new Set(names)] as FilterName[];
};

const baseUrl = (env: Environment): string => {
  const value = env.LEASEHOLD_ENFORCEMENT_EXTERNAL_URL ?? '';
  if (value === '')
    throw new Error(
      'LEASEHOLD_ENFORCEMENT_FILTERS has external_service: LEASEHOLD_ENFORCEMENT_EXTERNAL_URL must be set (the usage service base URL)',
    );
  const url = URL.parse(value);
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.host === '') {
    throw new Error(`LEASEHOLD_ENFORCEMENT_EXTERNAL_URL must be an http(s) URL, got ${value}`);
  }
  return value.endsWith('/') ? value : `${value}/`;
};

const onError = (env: Environment): OnError => {
  const value = env.LEASEHOLD_ENFORCEMENT_EXTERNAL_ON_ERROR ?? '';
  if (value === '' || value === 'deny') return 'deny';
  if (value === 'allow') return 'allow';
  throw new Error(`LEASEHOLD_ENFORCEMENT_EXTERNAL_ON_ERROR must be deny or allow, got ${value}`);
};

const externalSettings = (env: Environment): ExternalServiceSettings => {
  const timeoutMs = integerSetting(env, 'LEASEHOLD_ENFORCEMENT_EXTERNAL_TIMEOUT_MS', 5000);
  if (timeoutMs === 0) throw new Error('LEASEHOLD_ENFORCEMENT_EXTERNAL_TIMEOUT_MS must be a positive integer, got 0');
  const token = env.LEASEHOLD_ENFORCEMENT_EXTERNAL_TOKEN ?? '';
  return { baseUrl: baseUrl(env), token: token === '' ? null : token, timeoutMs, onError: onError(env) };
};

const stackingScope = (env: Environment): StackingScope => {
  const value = (env.LEASEHOLD_LEASE_STACKING_SCOPE ?? '').trim();
  if (value === '' || value === 'resource_properties') return { kind: 'resource_properties' };
  const name = value.startsWith('property:') ? value.slice('property:'.length).trim() : '';
  if (name === '') throw new Error(`LEASEHOLD_LEASE_STACKING_SCOPE must be resource_properties or property:<host property>, got ${value}`);
  return { kind: 'property', name };
};

/** No default for the limit: an operator who enables the filter says how many leases a project may stack. */
const stackingPolicy = (env: Environment): LeaseStackingPolicy => {
  const max = integerSetting(env, 'LEASEHOLD_LEASE_STACKING_MAX', 0);
  if (max === 0)
    throw new Error('LEASEHOLD_ENFORCEMENT_FILTERS has lease_stacking: LEASEHOLD_LEASE_STACKING_MAX must be a positive integer');
  return { max, scope: stackingScope(env), exemptProjectIds: new Set(list(env.LEASEHOLD_LEASE_STACKING_EXEMPT_PROJECTS)) };
};

/** Throws a message naming the variable for anything it cannot use: a process refuses to start rather than enforce something else. */
export const enforcementConfigFromEnv = (env: Environment): EnforcementConfig => {
  const filters = filterNames(env);
  const optional = (name: string): string | null => ((env[name] ?? '') === '' ? null : (env[name] as string));
  return {
    filters,
    maxLeaseDuration: {
      maxSeconds: integerSetting(env, 'LEASEHOLD_MAX_LEASE_DURATION_SECONDS', 86_400),
      exemptProjectIds: new Set(list(env.LEASEHOLD_MAX_LEASE_DURATION_EXEMPT_PROJECTS)),
      extensionWindowHours: integerSetting(env, 'LEASEHOLD_LEASE_EXTENSION_WINDOW_HOURS', 0),
    },
    external: filters.includes('external_service') ? externalSettings(env) : null,
    stacking: filters.includes('lease_stacking') ? stackingPolicy(env) : null,
    authUrl: optional('LEASEHOLD_KEYSTONE_URL'),
    regionName: optional('LEASEHOLD_OPENSTACK_REGION_NAME'),
  };
};
