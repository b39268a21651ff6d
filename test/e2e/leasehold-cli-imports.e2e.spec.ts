/**
 * What the built `leasehold` loads for each command (issue 32): `help` loads commander and the CLI's own
 * declarations, nothing of a command's work; the reading commands load no framework (Nest) and, but for
 * verify, which replays into a read model, no ORM. Every module Node loads is recorded by a loader hook
 * (node --import); nothing is timed here: the figures are bench/cli-startup.ts's.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';

const MAIN = new URL('../../dist/apps/cli/src/main.js', import.meta.url).pathname;

/** Appends the URL of every module Node loads (ESM, and CommonJS entered from ESM) to the file it is given. */
const HOOKS = `
import { appendFileSync } from 'node:fs';
let file;
export const initialize = (data) => { file = data.file; };
export const load = (url, context, next) => { appendFileSync(file, url + '\\n'); return next(url, context); };
`;

const recorder = (file: string): string =>
  `data:text/javascript,${encodeURIComponent(
    `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOKS)}`)}, { data: { file: ${JSON.stringify(file)} } });`,
  )}`;

interface Loaded {
  readonly code: number;
  readonly stderr: string;
  /** What each module is: a package's name, or our own module's path under dist/. */
  readonly packages: readonly string[];
  readonly own: readonly string[];
}

const packageOf = (url: string): string | null => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ?? null;
const ownPath = (url: string): string | null => /\/dist\/((?:apps|libs)\/.*)$/.exec(url)?.[1] ?? null;

describe('leasehold: what each command loads', () => {
  let dir: string;
  let dataDir: string;
  let runs = 0;

  const loaded = (...args: string[]): Promise<Loaded> => {
    const file = join(dir, `modules-${++runs}.txt`);
    return new Promise((resolve) => {
      const env = { ...process.env, LEASEHOLD_DATA_DIR: dataDir, LEASEHOLD_READ_MODEL_URL: '' };
      execFile(process.execPath, ['--import', recorder(file), MAIN, ...args], { env, timeout: 60_000 }, (error, _stdout, stderr) => {
        const urls = readFileSync(file, 'utf8')
          .split('\n')
          .filter((url) => url !== '');
        resolve({
          code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1,
          stderr,
          packages: [...new Set(urls.map(packageOf).filter((name) => name !== null))].sort(),
          own: urls.map(ownPath).filter((path) => path !== null),
        });
      });
    });
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'leasehold-cli-imports-'));
    dataDir = join(dir, 'data');
    // an empty log: each command loads all it needs before it finds there is nothing to read
    await SqliteEventStore.open({ file: join(dataDir, 'events.sqlite') }).close();
  });

  afterAll(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it.each(['help', '--help', 'usage --help', 'history --help', 'queue --help', 'backup --help', 'restore --help', 'import-blazar --help'])(
    'leasehold %s loads commander and the CLI, no command code and no library but the usage report groups',
    async (line) => {
      const result = await loaded(...line.split(' '));
      expect(result.code, result.stderr).toBe(0);
      expect(result.packages).toEqual(['commander']);
      expect(result.own.filter((path) => !path.startsWith('apps/cli/'))).toEqual(['libs/application/src/usage/usage-groups.js']);
      expect(result.own.filter((path) => path.endsWith('.run.js'))).toEqual([]);
    },
  );

  it.each([
    [['history', 'no-such-lease'], 2],
    [['usage', '--from', '2025-01-01 00:00', '--to', '2025-02-01 00:00'], 2],
    [['export'], 0],
    [['queue'], 0],
    [['import-blazar', '--database', 'sqlite:///no-such-blazar.sqlite'], 1],
  ])('%j loads neither Nest nor MikroORM', async (args, code) => {
    const result = await loaded(...args);
    expect(result.code, result.stderr).toBe(code);
    expect(result.packages.filter((name) => name.startsWith('@nestjs/') || name.startsWith('@mikro-orm/'))).toEqual([]);
    // the command's own work was loaded: the figures above are not those of a command that stopped short
    expect(result.own).toContain(`apps/cli/src/commands/${args[0]}.run.js`);
  });

  it('verify, which replays into a read model, loads MikroORM but no Nest', async () => {
    const result = await loaded('verify');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^leasehold: no read model at /);
    expect(result.own).toContain('apps/cli/src/commands/verify.run.js');
    expect(result.packages).toContain('@mikro-orm/core');
    expect(result.packages.filter((name) => name.startsWith('@nestjs/'))).toEqual([]);
  });
});
