import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cruise } from 'dependency-cruiser';
import { ESLint } from 'eslint';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/system.js';

interface RuleSet {
  readonly forbidden: readonly { readonly name: string }[];
  readonly options: Record<string, unknown>;
}

const MANIFEST = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { readonly imports: Record<string, unknown> };
const RULES = createRequire(import.meta.url)(join(ROOT, '.dependency-cruiser.cjs')) as RuleSet;

interface Violation {
  readonly rule: { readonly name: string };
  readonly from: string;
  readonly to: string;
}

interface CruiseSummary {
  readonly violations: readonly Violation[];
  readonly totalCruised: number;
}

const cruiseIn = async (baseDir: string, folders: readonly string[]): Promise<CruiseSummary> => {
  const { tsConfig: _tsConfig, ...options } = RULES.options;
  const result = await cruise([...folders], { ...options, baseDir, validate: true, ruleSet: { forbidden: RULES.forbidden } } as never);
  return (result.output as { summary: CruiseSummary }).summary;
};

/** One file per broken rule, in a tree shaped like the repository's. */
const PLANTED: Readonly<Record<string, string>> = {
  'libs/domain/src/impure.ts': "import { readFileSync } from 'node:fs';\nexport const read = readFileSync;\n",
  'libs/domain/src/upward.ts': "import { handler } from '../../application/src/handler.js';\nexport const h = handler;\n",
  'libs/application/src/handler.ts': "import { app } from '#api/app.js';\nexport const handler = app;\n",
  'libs/event-store/src/upward.ts': "import { I } from '../../plugins/src/nest.js';\nexport const i = I;\n",
  'libs/read-model/src/upward.ts': "import { handler } from '#application/handler.js';\nexport const h = handler;\n",
  'libs/plugins/src/upward.ts': "import { handler } from '#application/handler.js';\nexport const h = handler;\n",
  'libs/application/src/logging.ts': "import { log } from '#observability/logger.js';\nexport const l = log;\n",
  'libs/observability/src/logger.ts': 'export const log = 1;\n',
  'libs/plugins/src/mistyped.ts': "import { nothing } from '#domain/nowhere.js';\nexport const n = nothing;\n",
  'libs/application/src/transport.ts': "import type { FastifyRequest } from 'fastify';\nexport type R = FastifyRequest;\n",
  'libs/application/src/circle-a.ts': "import { b } from './circle-b.js';\nexport const a = (): unknown => b;\n",
  'libs/application/src/circle-b.ts': "import { a } from './circle-a.js';\nexport const b = (): unknown => a;\n",
  'libs/plugins/src/nest.ts': "import { Injectable } from '@nestjs/common';\nexport const I = Injectable;\n",
  'apps/api/src/app.ts': "import { start } from '#reactor/start.js';\nexport const app = start;\n",
  'apps/reactor/src/start.ts': 'export const start = 1;\n',
  'apps/cli/src/reach.ts': "import { start } from '#reactor/start.js';\nexport const reach = start;\n",
};

describe('architecture rules (dependency-cruiser, npm run lint)', () => {
  const planted = mkdtempSync(join(tmpdir(), 'leasehold-architecture-'));

  afterAll(() => {
    rmSync(planted, { recursive: true, force: true });
  });

  it('the code keeps them: no circles, a self-contained domain, layers pointing down, a transport-free application layer, apps apart', async () => {
    const summary = await cruiseIn(ROOT, ['apps', 'libs', 'test', 'bench']);
    expect(summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)).toEqual([]);
    expect(summary.totalCruised).toBeGreaterThan(300);
  }, 300_000);

  it('each rule catches what it forbids (a planted tree breaking every one)', async () => {
    for (const [file, text] of Object.entries(PLANTED)) {
      mkdirSync(dirname(join(planted, file)), { recursive: true });
      writeFileSync(join(planted, file), text);
    }
    // the repository's aliases, so a rule broken through an alias is caught as well as one broken by a relative path
    writeFileSync(join(planted, 'package.json'), JSON.stringify({ name: 'planted', type: 'module', imports: MANIFEST.imports }));
    mkdirSync(join(planted, 'node_modules'), { recursive: true });
    const broken = new Set((await cruiseIn(planted, ['apps', 'libs'])).violations.map((v) => v.rule.name));
    expect([...broken].sort()).toEqual(RULES.forbidden.map((rule) => rule.name).sort());
  }, 120_000);
});

describe('type-checked lint (npm run lint)', () => {
  it('finds nothing in the repository', async () => {
    const results = await new ESLint({ cwd: ROOT }).lintFiles(['.']);
    const problems = results.flatMap((result) => result.messages.map((m) => `${result.filePath}:${m.line} ${m.ruleId ?? ''} ${m.message}`));
    expect(problems).toEqual([]);
    expect(results.length).toBeGreaterThan(300);
  }, 600_000);
});
