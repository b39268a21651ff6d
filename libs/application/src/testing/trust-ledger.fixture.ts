import type { LeaseTrusts } from '#plugins/ports/lease-trusts.port.js';

/** Stands in for Keystone (the real adapter meets a real Keystone in the keystone e2e tests): what was asked of it. */
export const trustLedger = () => {
  const calls: string[] = [];
  const trusts: LeaseTrusts = {
    create: () => {
      calls.push('create');
      return Promise.resolve('trust-1');
    },
    discard: (trustId) => {
      calls.push(`discard ${trustId}`);
      return Promise.resolve();
    },
    release: (trustId) => {
      calls.push(`release ${trustId}`);
      return Promise.resolve();
    },
  };
  return { calls, trusts };
};
