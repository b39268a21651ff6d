import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/system.js';

interface LockedPackage {
  readonly version?: string;
  /** An object in today's packages, an array of strings in some old ones. */
  readonly engines?: { readonly node?: unknown };
  readonly hasInstallScript?: boolean;
}

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
  allowScripts?: Record<string, boolean>;
};
const locked = Object.entries(
  (JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockedPackage> }).packages,
).filter(([path]) => path !== '');

type Version = readonly [number, number, number];

const compare = (a: Version, b: Version): number => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** `20`, `20.x`, `20.19`, `20.19.0`: the version and how many of its parts were given (a partial one is a range, as in npm). */
const parseVersion = (text: string): { version: Version; parts: number } => {
  const parts = text
    .replace(/^v/, '')
    .split('.')
    .filter((part) => !['x', 'X', '*', ''].includes(part));
  const [major = 0, minor = 0, patch = 0] = parts.map(Number);
  return { version: [major, minor, patch], parts: parts.length };
};

const nextUp = ({ version: [major, minor], parts }: { version: Version; parts: number }): Version =>
  parts <= 1 ? [major + 1, 0, 0] : [major, minor + 1, 0];

/** One comparator of the forms package engines use: `>=`, `>`, `<=`, `<`, `^`, `~`, a bare or partial version, `*`. */
const admitsComparator = (comparator: string, node: Version): boolean => {
  const [, operator = '', text = ''] = /^(>=|<=|>|<|\^|~|=)?(.*)$/.exec(comparator) ?? [];
  if (text === '*' || text === '') return true;
  const bound = parseVersion(text);
  const order = compare(node, bound.version);
  switch (operator) {
    case '>=':
      return order >= 0;
    case '>':
      return order > 0;
    case '<=':
      return order <= 0;
    case '<':
      return order < 0;
    case '^':
      return order >= 0 && compare(node, bound.version[0] === 0 ? nextUp({ ...bound, parts: 2 }) : nextUp({ ...bound, parts: 1 })) < 0;
    case '~':
      return order >= 0 && compare(node, nextUp({ ...bound, parts: Math.max(bound.parts, 2) })) < 0;
    default:
      return bound.parts === 3 ? order === 0 : order >= 0 && compare(node, nextUp(bound)) < 0;
  }
};

/** npm's range grammar as engines use it: `||` between sets, spaces between the comparators of a set. */
const admits = (range: string, node: Version): boolean =>
  range.split('||').some((set) =>
    set
      .trim()
      .replace(/(>=|<=|>|<|\^|~|=)\s+/g, '$1')
      .split(/\s+/)
      .every((comparator) => admitsComparator(comparator, node)),
  );

const nodeEngine = (entry: LockedPackage): string | undefined => (typeof entry.engines?.node === 'string' ? entry.engines.node : undefined);

/** Node versions to try: every version a range names, and a grid around them (a range's truth changes only at such points). */
const candidateNodes = (): Version[] => {
  const named = [manifest.engines.node, ...locked.map(([, entry]) => nodeEngine(entry) ?? '')]
    .flatMap((range) => range.match(/\d+(?:\.\d+){0,2}/g) ?? [])
    .map((text) => parseVersion(text).version);
  const grid: Version[] = [];
  for (let major = 18; major <= 30; major += 1)
    for (let minor = 0; minor <= 40; minor += 1) for (const patch of [0, 1, 5, 20]) grid.push([major, minor, patch]);
  return [...named, ...grid];
};

describe("npm ci on the Node versions package.json's engines admit", () => {
  it('installs no package whose engines refuse one of them (npm warns EBADENGINE)', () => {
    const nodes = candidateNodes().filter((node) => admits(manifest.engines.node, node));
    const refused = locked.flatMap(([path, entry]) => {
      const range = nodeEngine(entry);
      const node = range === undefined ? undefined : nodes.find((candidate) => !admits(range, candidate));
      return node === undefined ? [] : [`${path}@${entry.version ?? '?'} wants node ${range}, refuses ${node.join('.')}`];
    });
    expect(nodes.length).toBeGreaterThan(100);
    expect(refused).toEqual([]);
  });

  it("runs no install script that package.json's allowScripts has not approved or denied (npm 11 warns)", () => {
    const reviewed = new Set(Object.keys(manifest.allowScripts ?? {}).map((spec) => spec.replace(/(.)@.*$/, '$1')));
    const unreviewed = locked
      .filter(([, entry]) => entry.hasInstallScript === true)
      .map(([path]) => path.replace(/^.*node_modules\//, ''))
      .filter((name) => !reviewed.has(name));
    expect(unreviewed).toEqual([]);
  });

  it('reads ranges as npm does', () => {
    const cases: [string, string, boolean][] = [
      ['>=20.19 <21 || >=22', '20.19.0', true],
      ['>=20.19 <21 || >=22', '21.0.0', false],
      ['^20.19.0 || >=22.12.0', '22.11.0', false],
      ['^18.18.0 || ^20.9.0 || >=21.1.0', '20.9.0', true],
      ['>= 0.6', '20.0.0', true],
      ['20 || >=22', '20.20.2', true],
      ['20 || >=22', '21.0.0', false],
      ['20.x || 22.x', '22.5.0', true],
      ['6.* || 8.* || >= 10.*', '9.0.0', false],
      ['~1.2', '1.3.0', false],
      ['*', '20.0.0', true],
    ];
    expect(cases.filter(([range, node, expected]) => admits(range, parseVersion(node).version) !== expected)).toEqual([]);
  });
});
