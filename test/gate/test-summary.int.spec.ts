/**
 * The line CI reads (scripts/test-summary.mjs) must fail whenever vitest fails, not only when a test does.
 * The reports are vitest's own: planted spec files run by the real vitest in a temp folder, so the test
 * follows vitest's report format as it is (a throwing beforeAll marks its tests skipped, a throwing
 * afterAll leaves them passed, an unhandled rejection is not in the report at all).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/system.js';

const SUMMARY_LINE = /^\d+ passed, \d+ failed(, \d+ skipped)?$/;

const PLANTED: Record<string, string> = {
  'passing.spec.mjs': `import { expect, it } from 'vitest';
it('passes', () => { expect(1 + 1).toBe(2); });
it.skip('is skipped on purpose', () => {});`,
  'all-pass.spec.mjs': `import { expect, it } from 'vitest';
it('passes', () => { expect(1 + 1).toBe(2); });`,
  'failing-test.spec.mjs': `import { expect, it } from 'vitest';
it('passes', () => { expect(1).toBe(1); });
it('fails', () => { expect(1).toBe(2); });`,
  'before-all.spec.mjs': `import { beforeAll, describe, expect, it } from 'vitest';
describe('a server that does not answer', () => {
  beforeAll(() => { throw new Error('connect ECONNREFUSED 127.0.0.1:1'); });
  it('one', () => { expect(1).toBe(1); });
  it('two', () => { expect(1).toBe(1); });
});`,
  'after-all.spec.mjs': `import { afterAll, expect, it } from 'vitest';
afterAll(() => { throw new Error('teardown failed'); });
it('passes', () => { expect(1).toBe(1); });`,
  'unhandled-rejection.spec.mjs': `import { expect, it } from 'vitest';
it('passes while a promise it dropped rejects', async () => {
  void Promise.reject(new Error('nobody awaited me'));
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(1).toBe(1);
});`,
  'import-error.spec.mjs': `import { it } from 'vitest';
throw new Error('the file itself fails to load');
it('never collected', () => {});`,
};

interface Run {
  readonly code: number;
  readonly stdout: string;
}

const run = (args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Run> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.resume();
    child.once('error', reject);
    child.once('close', (code) => resolve({ code: code ?? -1, stdout }));
  });

/** This process's env without what vitest sets for its workers or what selects test servers. */
const cleanEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('VITEST') && !key.startsWith('LEASEHOLD_TEST_'))),
  ...extra,
});

describe('scripts/test-summary.mjs on real vitest reports', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'leasehold-gate-'));
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    writeFileSync(join(dir, 'package.json'), '{"type": "module"}\n');
    writeFileSync(join(dir, 'vitest.config.mjs'), "export default { test: { include: ['*.spec.mjs'] } };\n");
    for (const [name, text] of Object.entries(PLANTED)) writeFileSync(join(dir, name), `${text}\n`);
  });

  afterAll(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  const summarize = async (report: string, vitestCode: string, env: Record<string, string>) => {
    const { code, stdout } = await run([join(ROOT, 'scripts/test-summary.mjs'), report, vitestCode], dir, cleanEnv(env));
    const lines = stdout.trimEnd().split('\n');
    const last = lines.at(-1) ?? '';
    expect(last).toMatch(SUMMARY_LINE);
    return { code, lines, last };
  };

  /** Runs vitest on one planted file as scripts/test.sh does, then the summary with vitest's exit code. */
  const vitestThenSummary = async (spec: string, env: Record<string, string> = {}) => {
    const report = `${spec}.json`;
    const vitest = await run(
      [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', spec, '--reporter=json', `--outputFile=${report}`],
      dir,
      cleanEnv(),
    );
    const summary = await summarize(report, String(vitest.code), env);
    return { vitestCode: vitest.code, ...summary };
  };

  it('a passing run (with a test skipped on purpose) passes', async () => {
    const result = await vitestThenSummary('passing.spec.mjs');
    expect(result.vitestCode).toBe(0);
    expect(result.last).toBe('1 passed, 0 failed, 1 skipped');
    expect(result.code).toBe(0);
  });

  it('a failing test fails', async () => {
    const result = await vitestThenSummary('failing-test.spec.mjs');
    expect(result.last).toBe('1 passed, 1 failed');
    expect(result.code).toBe(1);
  });

  it('a throwing beforeAll fails, though vitest counts its tests as skipped, and the file is named', async () => {
    const result = await vitestThenSummary('before-all.spec.mjs');
    expect(result.vitestCode).toBe(1);
    expect(result.last).toBe('0 passed, 1 failed, 2 skipped');
    expect(result.lines).toContainEqual(
      expect.stringMatching(/^FAILED outside its tests: before-all\.spec\.mjs: .*\(2 of its tests did not run\)$/),
    );
    expect(result.code).toBe(1);
  });

  it('a throwing afterAll fails, though every test passed', async () => {
    const result = await vitestThenSummary('after-all.spec.mjs');
    expect(result.last).toBe('1 passed, 1 failed');
    expect(result.lines).toContainEqual(expect.stringMatching(/^FAILED outside its tests: after-all\.spec\.mjs: teardown failed/));
    expect(result.code).toBe(1);
  });

  it("an unhandled rejection fails through vitest's exit code (its report does not show it)", async () => {
    const result = await vitestThenSummary('unhandled-rejection.spec.mjs');
    expect(result.vitestCode).toBe(1);
    expect(result.last).toBe('1 passed, 1 failed');
    expect(result.lines).toContainEqual(expect.stringMatching(/^FAILED: vitest exited with code 1 /));
    expect(result.code).toBe(1);
  });

  it('a file that fails to load fails', async () => {
    const result = await vitestThenSummary('import-error.spec.mjs');
    expect(result.last).toBe('0 passed, 1 failed');
    expect(result.lines).toContainEqual('FAILED outside its tests: import-error.spec.mjs: the file itself fails to load');
    expect(result.code).toBe(1);
  });

  it('no report (vitest did not get that far) fails', async () => {
    const result = await summarize('no-such-report.json', '1', {});
    expect(result.last).toBe('0 passed, 1 failed');
    expect(result.code).toBe(1);
  });

  it('without test servers the run still passes and says which were missing when tests were skipped; with LEASEHOLD_TEST_SERVERS=required each missing one fails it', async () => {
    await vitestThenSummary('passing.spec.mjs');
    const local = await summarize('passing.spec.mjs.json', '0', { LEASEHOLD_TEST_KEYSTONE_URL: 'http://127.0.0.1:1/v3' });
    expect(local.code).toBe(0);
    expect(local.last).toBe('1 passed, 0 failed, 1 skipped');
    const said = local.lines.slice(0, -1).join('\n');
    expect(said).toMatch(/PostgreSQL \(LEASEHOLD_TEST_PG_URL, LEASEHOLD_TEST_PG_E2E_URL unset/);
    expect(said).toMatch(/OpenStack \(LEASEHOLD_TEST_OPENSTACK_ENV unset/);
    expect(said).toMatch(/Kafka \(LEASEHOLD_TEST_KAFKA_MOCK_BROKERS unset/);
    expect(said).toMatch(/RabbitMQ \(LEASEHOLD_TEST_AMQP_URL unset; scripts\/services\/rabbitmq-up.sh starts one/);
    expect(said).toMatch(/MariaDB \(LEASEHOLD_TEST_MYSQL_URL unset; scripts\/services\/mariadb-up.sh starts one/);
    expect(said).not.toMatch(/Keystone/);
    await vitestThenSummary('all-pass.spec.mjs');
    const nothingSkipped = await summarize('all-pass.spec.mjs.json', '0', {});
    expect(nothingSkipped.lines).toEqual(['1 passed, 0 failed']);

    const ci = await summarize('passing.spec.mjs.json', '0', {
      LEASEHOLD_TEST_SERVERS: 'required',
      LEASEHOLD_TEST_PG_URL: 'postgres://127.0.0.1:1/t',
      LEASEHOLD_TEST_PG_E2E_URL: 'postgres://127.0.0.1:1/e',
    });
    expect(ci.code).toBe(1);
    expect(ci.last).toBe('1 passed, 5 failed, 1 skipped');
    expect(ci.lines.filter((line) => line.startsWith('FAILED: '))).toEqual([
      expect.stringMatching(/^FAILED: the MariaDB tests could not run: LEASEHOLD_TEST_MYSQL_URL unset/),
      expect.stringMatching(/^FAILED: the Keystone tests could not run: LEASEHOLD_TEST_KEYSTONE_URL unset/),
      expect.stringMatching(/^FAILED: the OpenStack tests could not run: LEASEHOLD_TEST_OPENSTACK_ENV unset/),
      expect.stringMatching(/^FAILED: the Kafka tests could not run: LEASEHOLD_TEST_KAFKA_MOCK_BROKERS unset/),
      expect.stringMatching(/^FAILED: the RabbitMQ tests could not run: LEASEHOLD_TEST_AMQP_URL unset/),
    ]);
  });
});
