import { execFile } from 'node:child_process';

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

const run = (binary: string, args: readonly string[]): Promise<CliResult> =>
  new Promise((resolve) => {
    execFile(binary, [...args], { timeout: 60_000, env: { ...process.env, OS_CLOUD: '' } }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, stdout, stderr });
    });
  });

/** The real `openstack` CLI (python3-openstackclient + python3-blazarclient) against a Leasehold URL. */
export const openstack = (url: string, ...args: string[]): Promise<CliResult> =>
  run('/usr/bin/openstack', ['--os-auth-type', 'none', '--os-endpoint', `${url}/v1`, ...args]);

/** The legacy `blazar` CLI. */
export const blazar = (url: string, ...args: string[]): Promise<CliResult> =>
  run('/usr/bin/blazar', ['--os-auth-type', 'none', '--os-endpoint', `${url}/v1`, ...args]);

/** Parses `-f json` output; `lease create` prints a line before the JSON. */
export const parseJson = (result: CliResult): any => {
  if (result.code !== 0) throw new Error(`CLI failed (${result.code}): ${result.stderr || result.stdout}`);
  const start = Math.min(...['{', '['].map((c) => result.stdout.indexOf(c)).filter((i) => i >= 0));
  return JSON.parse(result.stdout.slice(start));
};

/** `lease show -f json` renders reservations/events as JSON objects concatenated in one string. */
export const parseConcatenated = (text: string): any[] =>
  text.trim() === '' ? [] : JSON.parse(`[${text.replace(/}\s*\n\s*{/g, '},{')}]`);
