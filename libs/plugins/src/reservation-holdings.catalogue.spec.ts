import { describe, expect, it } from 'vitest';
import { QUOTAS, USAGE_METRICS } from './reservation-holdings.js';

// the registered types' declarations, gathered: the API's quota fields and the usage report's columns, in their order
describe('the quotas and usage metrics the registered types declare', () => {
  it('lists the quotas held at once, then the monthly ones, with their fields on the wire and their variables', () => {
    expect(QUOTAS.dimensions.map(({ name, field, unit, defaultVariable }) => [name, field, unit, defaultVariable])).toEqual([
      ['hosts', 'hosts', null, 'LEASEHOLD_QUOTA_DEFAULT_HOSTS'],
      ['vcpus', 'vcpus', null, 'LEASEHOLD_QUOTA_DEFAULT_VCPUS'],
      ['memoryMb', 'memory_mb', null, 'LEASEHOLD_QUOTA_DEFAULT_MEMORY_MB'],
      ['floatingIps', 'floating_ips', null, 'LEASEHOLD_QUOTA_DEFAULT_FLOATING_IPS'],
      ['networks', 'networks', null, 'LEASEHOLD_QUOTA_DEFAULT_NETWORKS'],
      ['hostHoursPerMonth', 'host_hours_per_month', 'hosts', 'LEASEHOLD_QUOTA_DEFAULT_HOST_HOURS_PER_MONTH'],
      ['vcpuHoursPerMonth', 'vcpu_hours_per_month', 'vcpus', 'LEASEHOLD_QUOTA_DEFAULT_VCPU_HOURS_PER_MONTH'],
    ]);
  });

  it('lists the metrics in the order reports show them: each type keeps its own, shared host-size metrics once', () => {
    expect(USAGE_METRICS.metrics).toEqual([
      'host_hours',
      'instance_hours',
      'vcpu_hours',
      'memory_mb_hours',
      'disk_gb_hours',
      'floating_ip_hours',
      'network_hours',
    ]);
  });
});
