import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/system.js';

const PURE = ['libs/domain/src', 'libs/plugins/src/query', 'libs/plugins/src/physical-host'];
/** The pure code: everything under the first two, the policy files themselves in the last (not its effects adapters below). */
const PURE_TREES = new Set(['libs/domain/src', 'libs/plugins/src/query']);

/** What a pure file must not do, one violation per line: four imports, four clock/randomness calls. */
const PLANTED_IMPURE = `import { readFileSync } from 'node:fs';
import { Injectable } from '@nestjs/common';
import { DateTime } from 'luxon';
import { randomUUID } from 'node:crypto';
export const now = Date.now();
export const today = new Date();
export const dice = Math.random();
export const id = randomUUID();
export const used = [readFileSync, Injectable, DateTime];
`;

const tsFilesUnder = (dir: string, recursive: boolean): string[] =>
  readdirSync(join(ROOT, dir), { recursive, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(ROOT, dir, name));

describe('architecture rules', () => {
  it('libs/domain and the plugin policies import no framework, I/O, clock or randomness', async () => {
    const eslint = new ESLint({ cwd: ROOT });
    const results = await eslint.lintFiles(PURE);
    const problems = results.flatMap((result) => result.messages.map((m) => `${result.filePath}:${m.line} ${m.message}`));
    expect(problems).toEqual([]);

    // it linted every file there, and the purity rules apply to every pure file that is not a test
    expect(results.map((result) => result.filePath).sort()).toEqual(PURE.flatMap((dir) => tsFilesUnder(dir, true)).sort());
    const pure = PURE.flatMap((dir) => tsFilesUnder(dir, PURE_TREES.has(dir))).filter((name) => !name.endsWith('.spec.ts'));
    expect(pure.length).toBeGreaterThan(20);
    for (const file of pure) {
      const { rules } = (await eslint.calculateConfigForFile(file)) as { rules: Record<string, [number, ...unknown[]]> };
      expect([file, rules['no-restricted-imports']?.[0], rules['no-restricted-syntax']?.[0]]).toEqual([file, 2, 2]);
    }
  }, 60_000);

  it.each(PURE)('the same rules refuse an impure file planted in %s', async (dir) => {
    const eslint = new ESLint({ cwd: ROOT });
    const [result] = await eslint.lintText(PLANTED_IMPURE, { filePath: join(ROOT, dir, 'planted-impure.ts') });
    const found = (result?.messages ?? []).map((m) => [m.line, m.ruleId]);
    expect(found).toEqual([
      [1, 'no-restricted-imports'],
      [2, 'no-restricted-imports'],
      [3, 'no-restricted-imports'],
      [4, 'no-restricted-imports'],
      [5, 'no-restricted-syntax'],
      [6, 'no-restricted-syntax'],
      [7, 'no-restricted-syntax'],
      [8, 'no-restricted-syntax'],
    ]);
  }, 60_000);
});
