import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * package.json's "imports" (#domain/x.js: the TypeScript source for tsc and the linters, dist/ for node)
 * point tests at the sources, so they run the code as written, without a build.
 */
function sourceAliases(): { find: RegExp; replacement: string }[] {
  const manifest = JSON.parse(readFileSync(new URL('package.json', import.meta.url), 'utf8')) as {
    imports: Record<string, { types: string }>;
  };
  const root = fileURLToPath(new URL('.', import.meta.url));
  return Object.entries(manifest.imports).map(([alias, { types }]) => ({
    find: new RegExp(`^${alias.replace('*', '')}(.*)\\.js$`),
    replacement: `${root}${types.replace(/^\.\//, '').replace('*', '$1')}.ts`,
  }));
}

const OPENSTACK = 'test/int/openstack/**/*.spec.ts';
/** Times a victim's requests under attack (issue 31): it runs last, alone, so no other test's load is in its figures. */
const NOISY = 'test/e2e/noisy-neighbours.e2e.spec.ts';

const shared = {
  exclude: ['node_modules/**', 'dist/**', 'data/**'],
  pool: 'forks' as const,
  testTimeout: 60_000,
  hookTimeout: 120_000,
};

const resolve = { alias: sourceAliases() };

export default defineConfig({
  test: {
    maxWorkers: 2,
    projects: [
      {
        resolve,
        test: {
          ...shared,
          name: 'leasehold',
          include: ['libs/**/*.spec.ts', 'apps/**/*.spec.ts', 'test/**/*.spec.ts'],
          exclude: [...shared.exclude, OPENSTACK, NOISY],
        },
      },
      {
        resolve,
        // one OpenStack control plane is shared by these files (aggregates, computes, quotas): one file at a time
        test: { ...shared, name: 'openstack', include: [OPENSTACK], fileParallelism: false },
      },
      {
        resolve,
        test: { ...shared, name: 'noisy-neighbours', include: [NOISY], sequence: { groupOrder: 1 } },
      },
    ],
  },
});
