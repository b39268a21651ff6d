import { execFile } from 'node:child_process';
import type { CliResult } from './cli.js';

/**
 * Chameleon's python-blazarclient fork (branch chameleoncloud/2023.1): the site directory
 * scripts/chameleon-client.sh prints, put first on PYTHONPATH so that Debian's /usr/bin/openstack loads its
 * `openstack reservation network ...` commands. Unset: the tests that need it skip themselves.
 */
export const CHAMELEON_CLIENT_SITE = process.env.LEASEHOLD_TEST_CHAMELEON_CLIENT ?? '';

const runPython = (binary: string, args: readonly string[]): Promise<CliResult> =>
  new Promise((resolve) => {
    const env = { ...process.env, OS_CLOUD: '', PYTHONPATH: CHAMELEON_CLIENT_SITE };
    execFile(binary, [...args], { timeout: 60_000, env }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, stdout, stderr });
    });
  });

/** `openstack reservation ...` with the fork's commands, without authentication, against a Leasehold URL. */
export const chameleonOpenstack = (url: string, ...args: string[]): Promise<CliResult> =>
  runPython('/usr/bin/openstack', ['--os-auth-type', 'none', '--os-endpoint', `${url}/v1`, 'reservation', ...args]);

// the same keystoneauth session and endpoint override the fork's OSC plugin (blazarclient/osc/plugin.py) builds
const LIBRARY_CALL = `
import json, sys
from keystoneauth1 import noauth, session
from blazarclient.v1 import client
endpoint, manager, method, *args = sys.argv[1:]
reservation = client.Client(session=session.Session(auth=noauth.NoAuth()), endpoint_override=endpoint)
print(json.dumps(getattr(getattr(reservation, manager), method)(*args)))
`;

/**
 * A call of the fork's Python API (`client.network.get(id)`): what its `network show` and `network allocation show`
 * would send, had their parsers an id argument (in the fork they have none, so the CLI cannot run them).
 */
export const chameleonLibrary = (url: string, manager: string, method: string, ...args: string[]): Promise<CliResult> =>
  runPython('/usr/bin/python3', ['-c', LIBRARY_CALL, `${url}/v1`, manager, method, ...args]);
