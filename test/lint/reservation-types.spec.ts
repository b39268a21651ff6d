import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RESERVATION_TYPES } from '#plugins/reservation-types.js';
import { ROOT } from '../helpers/system.js';

/**
 * Where a reservation type may be named: its own module folder, and the registry that lists the modules.
 * Everything else is generic over the registry (docs/architecture.md, "Adding a reservation type").
 */
const TYPE_FOLDERS = [
  'libs/plugins/src/physical-host/',
  'libs/plugins/src/instance/',
  'libs/plugins/src/floating-ip/',
  'libs/plugins/src/network/',
];
const REGISTRY = 'libs/plugins/src/reservation-types.ts';

/**
 * Files that still name a type or branch on one, with how many places each: the refactor into modules
 * (issue 30) empties this list. A file that no longer needs its entry fails the test too, so it shrinks.
 */
const NOT_YET_GENERIC: Readonly<Record<string, number>> = {};

/** Production sources: apps and libs, without tests, test fixtures and the browser bundle's build output. */
const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'testing' ? [] : sources(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A branch on a type: a comparison or switch on `resourceType`/`resource_type`, whatever the literal. */
const BRANCHES = [
  /\b(?:resourceType|resource_type)\s*(?:===|!==|==|!=)\s*['"`]/,
  /['"`]\s*(?:===|!==|==|!=)\s*[\w.?]*\b(?:resourceType|resource_type)\b/,
  /switch\s*\([^)]*\b(?:resourceType|resource_type)\s*\)/,
];

/**
 * A registered type named as a literal: a name with a colon cannot be anything else; another only where a type is
 * meant. Prose that quotes a type in Markdown backticks (an OpenAPI description) is not a literal.
 */
const literals = (type: string): RegExp[] =>
  type.includes(':')
    ? [new RegExp(`['"]${escape(type)}['"]`)]
    : [
        new RegExp(`\\b(?:resourceType|resource_type)\\s*[:=]=?=?\\s*['"]${escape(type)}['"]`),
        new RegExp(`case\\s+['"]${escape(type)}['"]`),
      ];

const PATTERNS = [...BRANCHES, ...RESERVATION_TYPES.flatMap((module) => literals(module.resourceType))];

const findings = (): Record<string, number> => {
  const found: Record<string, number> = {};
  for (const file of [...sources(join(ROOT, 'apps')), ...sources(join(ROOT, 'libs'))]) {
    const path = relative(ROOT, file);
    if (path === REGISTRY || TYPE_FOLDERS.some((folder) => path.startsWith(folder))) continue;
    const count = readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => !/^\s*(?:\/\/|\*|\/\*)/.test(line) && PATTERNS.some((pattern) => pattern.test(line))).length;
    if (count > 0) found[path] = count;
  }
  return found;
};

describe('reservation types are modules', () => {
  it('no code outside the type modules and their registry names a type or branches on one', () => {
    expect(findings()).toEqual(NOT_YET_GENERIC);
  });

  it('the check finds what it forbids', () => {
    const lines = [
      "if (r.resourceType === 'x') {}",
      'switch (view.resource_type) {',
      "{ resource_type: 'physical:host' }",
      "case 'virtual:floatingip':",
    ];
    for (const line of lines)
      expect(
        PATTERNS.some((pattern) => pattern.test(line)),
        line,
      ).toBe(true);
    expect(PATTERNS.some((pattern) => pattern.test('const resourceType = reservation.resourceType;'))).toBe(false);
  });
});
