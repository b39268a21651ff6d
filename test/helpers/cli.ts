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
export const parseConcatenated = (text: string): any[] => (text.trim() === '' ? [] : JSON.parse(`[${text.replace(/}\s*\n\s*{/g, '},{')}]`));

/** The command's stdout; fails with its stderr when it exited non-zero. */
export const succeeded = (result: CliResult): string => {
  if (result.code !== 0) throw new Error(`CLI failed (${result.code}): ${result.stderr || result.stdout}`);
  return result.stdout.trim();
};

/** The non-empty lines the command printed on stderr; fails when it exited 0. */
export const failed = (result: CliResult): string[] => {
  if (result.code === 0) throw new Error(`CLI unexpectedly succeeded: ${result.stdout}`);
  return result.stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
};

/** `lease show/create -f json` with `reservations` and `events` turned back into arrays. */
export const parseLease = (result: CliResult): any => {
  const lease = parseJson(result);
  return { ...lease, reservations: parseConcatenated(lease.reservations), events: parseConcatenated(lease.events) };
};

/** A table printed by cliff (`+---+` borders): its rows as arrays of trimmed cells, header row first. */
export const parseTable = (text: string): string[][] =>
  text
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) =>
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim()),
    );

/** Leasehold's own CLI, built (`dist/`), with these settings; stdout and stderr are pipes, never a terminal. */
export const leaseholdWith = (settings: Readonly<Record<string, string>>, ...args: string[]): Promise<CliResult> =>
  new Promise((resolve) => {
    const main = new URL('../../dist/apps/cli/src/main.js', import.meta.url).pathname;
    const env = { ...process.env, LEASEHOLD_READ_MODEL_URL: '', ...settings };
    execFile(process.execPath, [main, ...args], { timeout: 120_000, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, stdout, stderr });
    });
  });

/** `leasehold` on a data folder with its SQLite read model. */
export const leasehold = (dataDir: string, ...args: string[]): Promise<CliResult> =>
  leaseholdWith({ LEASEHOLD_DATA_DIR: dataDir }, ...args);

const RULE = /^[- ]*-[- ]*$/;

/**
 * A table `leasehold` prints (a header, a rule of dashes under each column, the rows): the cells of
 * every row read at the columns the rule marks. Fails unless every row keeps to those columns, so a
 * table that is not aligned (a tab-separated one, a cell wider than its column) fails here.
 */
export const alignedTable = (text: string): string[][] => {
  const lines = text.split('\n').filter((line) => line.length > 0);
  const rule = lines.find((line) => RULE.test(line));
  if (rule === undefined) throw new Error(`no rule of dashes under the header:\n${text}`);
  const spans = [...rule.matchAll(/-+/g)].map((match) => [match.index, match.index + match[0].length] as const);
  return lines
    .filter((line) => !RULE.test(line))
    .map((line) => {
      const outside = [...line].filter((char, i) => char !== ' ' && !spans.some(([from, to]) => i >= from && i < to));
      if (outside.length > 0) throw new Error(`a row leaves its columns (${JSON.stringify(outside.join(''))}):\n${line}\n${rule}`);
      return spans.map(([from, to]) => line.slice(from, to).trim());
    });
};
