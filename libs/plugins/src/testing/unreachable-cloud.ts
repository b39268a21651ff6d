import { OpenStackSession } from '../openstack/openstack.session.js';

/**
 * A session whose Keystone does not answer (nothing listens on the discard port): every call fails at
 * once with "no answer", as when the cloud is down. Test-only.
 */
export const unreachableSession = (): OpenStackSession =>
  OpenStackSession.create(
    {
      authUrl: 'http://127.0.0.1:9/v3',
      username: 'u',
      password: 'p',
      projectName: 'p',
      userDomainName: 'Default',
      projectDomainName: 'Default',
      regionName: null,
    },
    { timeoutMs: 2_000 },
  );
