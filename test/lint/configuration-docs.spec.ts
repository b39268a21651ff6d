import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { variablesRead } from '../helpers/configuration-variables.js';
import { ROOT } from '../helpers/system.js';

/**
 * The table's rows in docs/configuration.md (moved there from the README, which stays a first hour's read):
 * a variable named only in its prose is not listed.
 */
const configurationTable = (): string =>
  readFileSync(join(ROOT, 'docs', 'configuration.md'), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .join('\n');

describe('the configuration table (docs/configuration.md)', () => {
  it('names every environment variable the apps and libraries read', () => {
    const table = configurationTable();
    expect(variablesRead().length).toBeGreaterThan(50);
    expect(variablesRead().filter((name) => !table.includes(`\`${name}\``))).toEqual([]);
  });
});
