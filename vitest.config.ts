import { defineConfig } from 'vitest/config';

const OPENSTACK = 'test/int/openstack/**/*.spec.ts';

const shared = {
  exclude: ['node_modules/**', 'dist/**', 'data/**'],
  pool: 'forks' as const,
  testTimeout: 60_000,
  hookTimeout: 120_000,
};

export default defineConfig({
  test: {
    maxWorkers: 2,
    projects: [
      {
        test: {
          ...shared,
          name: 'leasehold',
          include: ['libs/**/*.spec.ts', 'apps/**/*.spec.ts', 'test/**/*.spec.ts'],
          exclude: [...shared.exclude, OPENSTACK],
        },
      },
      {
        // one OpenStack control plane is shared by these files (aggregates, computes, quotas): one file at a time
        test: { ...shared, name: 'openstack', include: [OPENSTACK], fileParallelism: false },
      },
    ],
  },
});
