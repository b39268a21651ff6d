import { describe, expect, it } from 'vitest';
import { quotaCatalogue } from './quota-catalogue.js';
import { quotaDecider } from './quota.decide.js';
import type { QuotaLimits } from './quota.types.js';

const wording = (field: string) => ({ field, words: `${field} held`, defaultVariable: `LEASEHOLD_QUOTA_DEFAULT_${field.toUpperCase()}` });
const hosts = {
  held: { hosts: wording('hosts') },
  monthly: { hostHoursPerMonth: { ...wording('host_hours_per_month'), unit: 'hosts' } },
} as const;
const instances = {
  held: { vcpus: wording('vcpus'), memoryMb: wording('memory_mb') },
  monthly: { vcpuHoursPerMonth: { ...wording('vcpu_hours_per_month'), unit: 'vcpus' } },
} as const;
const segments = { held: { networks: wording('networks') }, monthly: {} } as const;

describe('the quota catalogue: the quotas the registered types declare', () => {
  it('Given types in registry order, Then held quotas come first, then monthly ones, each type keeping its own order', () => {
    const quotas = quotaCatalogue([hosts, instances, instances, segments]);
    expect(quotas.names).toEqual(['hosts', 'vcpus', 'memoryMb', 'networks', 'hostHoursPerMonth', 'vcpuHoursPerMonth']);
    expect(quotas.unitOf).toEqual({ hostHoursPerMonth: 'hosts', vcpuHoursPerMonth: 'vcpus' });
    expect(quotas.noLimits).toEqual({
      hosts: null,
      vcpus: null,
      memoryMb: null,
      networks: null,
      hostHoursPerMonth: null,
      vcpuHoursPerMonth: null,
    });
    expect(quotas.dimensions.find((d) => d.name === 'vcpuHoursPerMonth')).toEqual({
      name: 'vcpuHoursPerMonth',
      unit: 'vcpus',
      ...wording('vcpu_hours_per_month'),
    });
  });

  it('Given two types declaring one quota with different words, Then the catalogue refuses to build', () => {
    const other = { held: { hosts: { ...wording('hosts'), words: 'machines' } }, monthly: {} };
    expect(() => quotaCatalogue([hosts, other])).toThrow('Quota hosts is declared twice, differently');
  });

  it('Given a monthly quota over a quota nobody holds, Then the catalogue refuses to build', () => {
    expect(() => quotaCatalogue([instances.monthly && { held: {}, monthly: instances.monthly }])).toThrow(
      'Monthly quota vcpuHoursPerMonth sums vcpus, which is not a held quota',
    );
  });
});

describe('quota settings over a catalogue', () => {
  const decider = quotaDecider(quotaCatalogue([hosts, segments]));

  it('Given a Quota.Set recorded before the networks quota existed, Then networks reads as the default (null)', () => {
    const before = { hosts: 4, hostHoursPerMonth: 100 } as unknown as QuotaLimits;
    const state = decider.evolve(decider.initialState(), { type: 'Quota.Set', data: { projectId: 'p', limits: before, setAt: 't' } });
    expect(state.limits).toEqual({ hosts: 4, networks: null, hostHoursPerMonth: 100 });
  });

  it('Given a Quota.Set naming a quota no registered type declares any more, Then it is left out of the limits', () => {
    const recorded = { hosts: 1, networks: null, hostHoursPerMonth: null, gpus: 3 } as unknown as QuotaLimits;
    const state = decider.evolve(decider.initialState(), { type: 'Quota.Set', data: { projectId: 'p', limits: recorded, setAt: 't' } });
    expect(state.limits).toEqual({ hosts: 1, networks: null, hostHoursPerMonth: null });
  });

  it('Given a change of one quota, Then the recorded Quota.Set names every quota of the catalogue', () => {
    const [event] = decider.decide(
      { type: 'SetQuota', data: { projectId: 'p', changes: { networks: 2 }, now: 't' } },
      decider.initialState(),
    );
    expect(event?.data).toEqual({ projectId: 'p', limits: { hosts: null, networks: 2, hostHoursPerMonth: null }, setAt: 't' });
  });
});
