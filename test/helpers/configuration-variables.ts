import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './system.js';

/** Source files of the apps and libraries (tests and test helpers left out). */
const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'testing' || entry.name === 'web' ? [] : sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });

/** Every LEASEHOLD_ variable the code reads: named after `env.` or in a string (one followed by `_` or `*` is a prefix in a message). */
export const variablesRead = (): string[] => {
  const names = new Set<string>();
  for (const file of [...sources(join(ROOT, 'apps')), ...sources(join(ROOT, 'libs'))]) {
    for (const [, name = ''] of readFileSync(file, 'utf8').matchAll(/(?:env\.|['"`])(LEASEHOLD_[A-Z0-9_]*[A-Z0-9])(?![A-Z0-9_*])/g))
      if (!name.startsWith('LEASEHOLD_TEST_')) names.add(name);
  }
  return [...names].sort();
};
