/**
 * README.md's "Reserve a network segment" step, run as written (its shell block, with bash, curl and node) against
 * the running system: the README's URL is the only thing changed, to the test system's.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, type RunningSystem, startSystem } from '../helpers/system.js';

const README_URL = 'http://127.0.0.1:1234';

/** The shell block of the README section with this heading. */
const shellBlock = (heading: string): string => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf(`\n## ${heading}\n`));
  const match = /```sh\n([\s\S]*?)\n```/.exec(section);
  if (match?.[1] === undefined) throw new Error(`no shell block under "## ${heading}"`);
  return match[1];
};

const bash = (script: string): Promise<{ code: number; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    execFile('bash', ['-euo', 'pipefail', '-c', script], { timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
    });
  });

describe("README.md's network reservation step", () => {
  let system: RunningSystem;

  beforeAll(async () => {
    system = await startSystem();
  });

  afterAll(async () => {
    await system?.stop();
  });

  it('registers a segment, creates a lease holding it and shows the lease', async () => {
    const script = shellBlock('Reserve a network segment');
    expect(script).toContain(README_URL);
    const result = await bash(script.split(README_URL).join(system.url));
    expect(result.code, result.stderr).toBe(0);
    const [segment, lease] = result.stdout.split(/(?<=\})(?=\{)/).map((text) => JSON.parse(text));
    expect(segment.network).toMatchObject({ network_type: 'vlan', physical_network: 'physnet1', segment_id: 150 });
    expect(lease.lease).toMatchObject({ name: 'net-lease', status: 'PENDING' });
    expect(lease.lease.reservations).toEqual([
      expect.objectContaining({
        resource_type: 'network',
        network_name: 'mynet',
        network_properties: '["==", "$physical_network", "physnet1"]',
        network_id: null,
        end_action: 'delete_network',
      }),
    ]);
    const allocations = (await (await fetch(`${system.url}/v1/networks/${segment.network.id}/allocation`)).json()) as {
      allocation: { reservations: unknown[] };
    };
    expect(allocations.allocation.reservations).toEqual([expect.objectContaining({ lease_id: lease.lease.id })]);
  });
});
