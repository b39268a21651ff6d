import { describe, expect, it } from 'vitest';
import type { HostEvent } from '#domain/index.js';
import { type HostRecord, type HostView, evolveHostView, withHealthDefaults } from './host-view.js';

const HOST_ID = '7';
const registered: HostEvent = {
  type: 'Host.Registered',
  data: {
    hostId: HOST_ID,
    info: {
      hypervisorHostname: 'c-7',
      serviceName: 'c-7',
      vcpus: 8,
      memoryMb: 8192,
      localGb: 100,
      cpuInfo: '{}',
      hypervisorType: 'QEMU',
      hypervisorVersion: 1,
      availabilityZone: 'az-1',
    },
    capabilities: { gpu: 'a100' },
    registeredAt: '2030-01-01T00:00:00.000Z',
  },
};

const fold = (events: readonly HostEvent[]): HostRecord | null =>
  events.reduce<HostRecord | null>((record, event) => evolveHostView(record, event), null);
const viewOf = (events: readonly HostEvent[]): HostView => {
  const record = fold(events);
  if (record === null) throw new Error('no host');
  return record.view;
};

const wentDown: HostEvent = {
  type: 'Host.WentDown',
  data: { hostId: HOST_ID, reasons: ['service_down'], source: 'polling', observedAt: '2030-01-02T03:04:05.000Z' },
};

describe('host health on the host view', () => {
  it('is up since the registration, with no monitor, until one reports', () => {
    expect(viewOf([registered])).toMatchObject({
      health_status: 'up',
      health_reasons: [],
      health_since: '2030-01-01 00:00:00',
      health_monitor: null,
      gpu: 'a100',
    });
  });

  it('goes down with the reasons, the time and the monitor of the report, and reservable stays the operator’s', () => {
    const view = viewOf([registered, wentDown]);
    expect(view).toMatchObject({
      reservable: true,
      health_status: 'down',
      health_reasons: ['service_down'],
      health_since: '2030-01-02 03:04:05',
      health_monitor: 'polling',
    });
    expect(view.updated_at).toBeNull();
  });

  it('keeps the time it went down when only the reasons change', () => {
    const changed: HostEvent = {
      type: 'Host.DownReasonsChanged',
      data: { hostId: HOST_ID, reasons: ['service_down', 'disabled'], source: 'notification', observedAt: '2030-01-02T04:00:00.000Z' },
    };
    expect(viewOf([registered, wentDown, changed])).toMatchObject({
      health_status: 'down',
      health_reasons: ['service_down', 'disabled'],
      health_since: '2030-01-02 03:04:05',
      health_monitor: 'notification',
    });
  });

  it('comes up again since the report that says so', () => {
    const cameUp: HostEvent = {
      type: 'Host.CameUp',
      data: { hostId: HOST_ID, source: 'notification', observedAt: '2030-01-03T00:00:00.000Z' },
    };
    expect(viewOf([registered, wentDown, cameUp])).toMatchObject({
      health_status: 'up',
      health_reasons: [],
      health_since: '2030-01-03 00:00:00',
      health_monitor: 'notification',
    });
  });

  it('ignores a health report for a host no longer registered', () => {
    const unregistered: HostEvent = {
      type: 'Host.Unregistered',
      data: { hostId: HOST_ID, hypervisorHostname: 'c-7', unregisteredAt: '2030-01-02T00:00:00.000Z' },
    };
    expect(fold([registered, unregistered, wentDown])).toBeNull();
  });

  it('reads a document projected before the health fields as up since its creation', () => {
    const { health_status: _s, health_reasons: _r, health_since: _t, health_monitor: _m, ...old } = viewOf([registered]);
    expect(withHealthDefaults(old as HostView)).toMatchObject({
      health_status: 'up',
      health_reasons: [],
      health_since: '2030-01-01 00:00:00',
      health_monitor: null,
    });
    const down = viewOf([registered, wentDown]);
    expect(withHealthDefaults(down)).toBe(down);
  });
});
