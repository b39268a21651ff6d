import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { QUOTAS, USAGE_METRICS } from '#plugins/reservation-holdings.js';
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
/** Declarations two type modules share (the host-size metrics of physical:host and the instance types). */
const SHARED_DECLARATIONS = ['libs/plugins/src/host-size.metrics.ts'];

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

/**
 * A quota or usage metric a type declares, named outside its module: a metric, a monthly quota or a default's variable
 * as a literal or a key (those names mean nothing else), any quota read from a record of quotas (a held quota's name
 * alone is a common word: `hosts`, `networks`).
 */
const QUOTA_RECORDS = '(?:limits|amounts|uses|held|peak|monthly|changes)';
const DECLARED = [
  ...[...USAGE_METRICS.metrics, ...QUOTAS.monthly, ...QUOTAS.monthly.map((name) => QUOTAS.wording[name].field)].flatMap((name) => [
    new RegExp(`['"]${escape(name)}['"]`),
    new RegExp(`\\b${escape(name)}\\s*:`),
  ]),
  ...QUOTAS.dimensions.map(({ defaultVariable }) => new RegExp(`['"]${escape(defaultVariable)}['"]`)),
  ...QUOTAS.names.map((name) => new RegExp(`\\b${QUOTA_RECORDS}\\??\\.${escape(name)}\\b`)),
];

const findings = (patterns: readonly RegExp[], allowed: readonly string[]): Record<string, number> => {
  const found: Record<string, number> = {};
  for (const file of [...sources(join(ROOT, 'apps')), ...sources(join(ROOT, 'libs'))]) {
    const path = relative(ROOT, file);
    if (path === REGISTRY || allowed.includes(path) || TYPE_FOLDERS.some((folder) => path.startsWith(folder))) continue;
    const count = readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => !/^\s*(?:\/\/|\*|\/\*)/.test(line) && patterns.some((pattern) => pattern.test(line))).length;
    if (count > 0) found[path] = count;
  }
  return found;
};

describe('reservation types are modules', () => {
  it('no code outside the type modules and their registry names a type or branches on one', () => {
    expect(findings(PATTERNS, [])).toEqual(NOT_YET_GENERIC);
  });

  it('no code outside the type modules names a quota or usage metric a type declares', () => {
    expect(findings(DECLARED, SHARED_DECLARATIONS)).toEqual({});
  });

  it('the quota and metric check finds what it forbids', () => {
    const lines = [
      "const price = prices['network_hours'];",
      '  vcpu_hours: hoursIn(unitMs[2]),',
      'b.uses.hosts - a.uses.hosts',
      "  networks: 'LEASEHOLD_QUOTA_DEFAULT_NETWORKS',",
      'limits.hostHoursPerMonth',
    ];
    for (const line of lines)
      expect(
        DECLARED.some((pattern) => pattern.test(line)),
        line,
      ).toBe(true);
    expect(DECLARED.some((pattern) => pattern.test("policy('blazar:networks:get'); const hosts = calendars.hosts;"))).toBe(false);
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
