import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/system.js';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

const section = (heading: string): string => {
  const start = readme.indexOf(`\n## ${heading}\n`);
  const end = readme.indexOf('\n## ', start + 1);
  return start === -1 ? '' : readme.slice(start, end === -1 ? undefined : end);
};

describe('the README, a first hour', () => {
  it('is at most 250 lines', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
  });

  it('says how to start, where the API listens and the line that says it is ready', () => {
    const run = section('Run it');
    expect(run).toContain('npm run up');
    expect(run).toContain('http://127.0.0.1:1234');
    expect(run).toContain('`LEASEHOLD_PORT`');
    expect(run).toContain('"listening":"http://127.0.0.1:1234"');
  });

  it('gives the test command .ci/run runs', () => {
    const ciCommand = readFileSync(join(ROOT, '.ci', 'run'), 'utf8')
      .trim()
      .split('\n')
      .at(-2);
    expect(ciCommand).toBe('npm test');
    expect(section('Test it')).toContain('npm test\n');
  });

  it('shows how to find the reservation id the walk-through changes', () => {
    const walk = section('Walk through it');
    expect(walk).toContain('lease show -c reservations');
    expect(walk).not.toContain('<the instance reservation');
  });

  it('points only at docs that exist', () => {
    const pointed = [...new Set(readme.match(/docs\/[a-z0-9/-]+\.(?:md|yml|json)/g) ?? [])];
    expect(pointed).toContain('docs/configuration.md');
    expect(pointed).toContain('docs/performance.md');
    expect(pointed.filter((path) => !existsSync(join(ROOT, path)))).toEqual([]);
  });
});
