import type { ApiConfig } from '../config.js';
import { PolicyEnforcer } from '#application/policy/policy.enforcer.js';
import type { Authenticator, Identity } from './identity.js';
import { KeystoneAuthenticator } from './keystone-authenticator.js';
import { StaticTokenAuthenticator } from './static-tokens.js';
import { describeError } from '#domain/index.js';

/** How requests are authenticated and authorized, built once at start from the configuration. */
export interface AuthSetup {
  /** null in auth mode `none`: every request acts as `localIdentity`. */
  readonly authenticator: Authenticator | null;
  readonly localIdentity: Identity;
  readonly policy: PolicyEnforcer;
  readonly wwwAuthenticateUri: string | null;
}

/** Auth mode `none` (loopback only): the configured default user and project, with the admin role. */
export const localIdentity = (config: ApiConfig): Identity => ({
  userId: config.defaultUserId,
  projectId: config.defaultProjectId,
  roles: ['admin', 'member', 'reader'],
  userName: null,
  projectName: null,
  userDomainId: null,
  projectDomainId: null,
  isAdmin: true,
});

const log = (line: Record<string, unknown>): void => console.log(JSON.stringify({ app: 'api', ...line }));

/** Reads the tokens and policy files (an error here stops the service before it listens). */
export const createAuthSetup = (config: ApiConfig): AuthSetup => {
  const policy = PolicyEnforcer.load(config.policyFile);
  const base = { localIdentity: localIdentity(config), policy, wwwAuthenticateUri: config.wwwAuthenticateUri };
  if (config.auth === 'static') {
    if (config.tokensFile === null) throw new Error('LEASEHOLD_TOKENS_FILE must be set when LEASEHOLD_AUTH=static');
    const authenticator = StaticTokenAuthenticator.load(config.tokensFile);
    log({ auth: 'static', tokens: authenticator.size, policy: config.policyFile ?? 'defaults' });
    return { ...base, authenticator };
  }
  if (config.auth === 'keystone') {
    if (config.keystone === null) throw new Error('LEASEHOLD_KEYSTONE_URL must be set when LEASEHOLD_AUTH=keystone');
    const keystone = config.keystone;
    const authenticator = new KeystoneAuthenticator(keystone);
    authenticator.warmUp().then(
      () =>
        log({
          auth: 'keystone',
          keystone: keystone.url,
          service_user: keystone.username,
          service_token: 'obtained',
          policy: config.policyFile ?? 'defaults',
        }),
      (error: unknown) =>
        console.error(JSON.stringify({ app: 'api', auth: 'keystone', keystone: keystone.url, warning: describeError(error) })),
    );
    return { ...base, authenticator };
  }
  log({ auth: 'none', user_id: config.defaultUserId, project_id: config.defaultProjectId, policy: config.policyFile ?? 'defaults' });
  return { ...base, authenticator: null };
};
