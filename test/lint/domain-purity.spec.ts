import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/system.js';

/**
 * The pure code, as eslint.config.js names it: whole trees, one folder's own files, and every type's reservation state, rules,
 * holdings, policy and admission module.
 */
const PURE_TREES = ['libs/domain/src', 'libs/plugins/src/query', 'libs/plugins/src/admission'];
const PURE_FOLDERS = ['libs/plugins/src/physical-host', 'libs/plugins/src/network'];
const PURE_ROLE = /^[^/]+\/[^/]+\.(reservation|rules|holdings|policy|admission)\.ts$/;
const PLUGINS = 'libs/plugins/src';

/** Where an impure file is planted to prove the rules hold there. */
const PLANTS = [
  ...[...PURE_TREES, ...PURE_FOLDERS].map((dir) => join(dir, 'planted-impure.ts')),
  join(PLUGINS, 'instance/planted-impure.policy.ts'),
  join(PLUGINS, 'floating-ip/planted-impure.admission.ts'),
  join(PLUGINS, 'instance/planted-impure.rules.ts'),
  join(PLUGINS, 'floating-ip/planted-impure.holdings.ts'),
  join(PLUGINS, 'instance/planted-impure.reservation.ts'),
];

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

const pureFiles = (): string[] => {
  const roles = tsFilesUnder(PLUGINS, true).filter((file) => PURE_ROLE.test(file.slice(join(ROOT, PLUGINS).length + 1)));
  const files = [
    ...PURE_TREES.flatMap((dir) => tsFilesUnder(dir, true)),
    ...PURE_FOLDERS.flatMap((dir) => tsFilesUnder(dir, false)),
    ...roles,
  ];
  return [...new Set(files)].sort();
};

describe('architecture rules', () => {
  it("libs/domain and the plugin type modules' pure parts import no framework, I/O, clock or randomness", async () => {
    // the purity rules read imports and syntax, no types: without a TypeScript program the check takes seconds, not a minute under load
    const eslint = new ESLint({
      cwd: ROOT,
      overrideConfig: [{ ...tseslint.configs.disableTypeChecked, languageOptions: { parserOptions: { projectService: false } } }],
    });
    const files = pureFiles();
    const results = await eslint.lintFiles(files);
    const problems = results.flatMap((result) => result.messages.map((m) => `${result.filePath}:${m.line} ${m.message}`));
    expect(problems).toEqual([]);

    // every policy and admission module of every type is among them, and the purity rules apply to each that is not a test
    const roles = files.filter((file) => /\.(policy|admission)\.ts$/.test(file)).map((file) => file.slice(join(ROOT, PLUGINS).length + 1));
    expect(roles).toEqual(
      expect.arrayContaining([
        'physical-host/host-allocation.policy.ts',
        'physical-host/host.admission.ts',
        'instance/instance-allocation.policy.ts',
        'instance/instance.admission.ts',
        'floating-ip/floating-ip-allocation.policy.ts',
        'floating-ip/floating-ip.admission.ts',
      ]),
    );
    const modules = files
      .filter((file) => /\.(reservation|rules|holdings)\.ts$/.test(file))
      .map((file) => file.slice(join(ROOT, PLUGINS).length + 1));
    expect(modules).toEqual(
      expect.arrayContaining([
        'physical-host/host.reservation.ts',
        'physical-host/host.rules.ts',
        'physical-host/host.holdings.ts',
        'instance/instance.reservation.ts',
        'instance/instance.rules.ts',
        'instance/instance.holdings.ts',
        'floating-ip/floating-ip.reservation.ts',
        'floating-ip/floating-ip.rules.ts',
        'floating-ip/floating-ip.holdings.ts',
        'network/network-segment.rules.ts',
      ]),
    );
    const pure = files.filter((name) => !name.endsWith('.spec.ts'));
    expect(pure.length).toBeGreaterThan(30);
    for (const file of pure) {
      const { rules } = (await eslint.calculateConfigForFile(file)) as { rules: Record<string, [number, ...unknown[]]> };
      expect([file, rules['no-restricted-imports']?.[0], rules['no-restricted-syntax']?.[0]]).toEqual([file, 2, 2]);
    }
  }, 60_000);

  it.each(PLANTS)(
    'the same rules refuse an impure file planted as %s',
    async (path) => {
      // a planted file is in no TypeScript project: lint it with the purity rules only, without type information
      const eslint = new ESLint({
        cwd: ROOT,
        overrideConfig: [{ ...tseslint.configs.disableTypeChecked, languageOptions: { parserOptions: { projectService: false } } }],
      });
      const [result] = await eslint.lintText(PLANTED_IMPURE, { filePath: join(ROOT, path) });
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
    },
    60_000,
  );

  it('libs/application reads no clock and makes no ids or randomness of its own (they come in as command data)', async () => {
    const eslint = new ESLint({
      cwd: ROOT,
      overrideConfig: [{ ...tseslint.configs.disableTypeChecked, languageOptions: { parserOptions: { projectService: false } } }],
    });
    const [result] = await eslint.lintText(PLANTED_IMPURE, { filePath: join(ROOT, 'libs/application/src/leases/planted-clock.ts') });
    // imports of I/O are allowed there (ports, the policy file); the clock, randomness and ids are not
    expect((result?.messages ?? []).map((m) => [m.line, m.ruleId])).toEqual([
      [5, 'no-restricted-syntax'],
      [6, 'no-restricted-syntax'],
      [7, 'no-restricted-syntax'],
      [8, 'no-restricted-syntax'],
    ]);
  }, 60_000);
});
