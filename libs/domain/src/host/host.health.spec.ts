import { describe, expect, it } from 'vitest';
import { foldEvents } from '../shared/decider.js';
import { DeciderSpecification } from '../shared/specification.js';
import type { ReportHostHealth } from './host.commands.js';
import { hostDecider } from './host.decide.js';
import type { HostEvent } from './host.events.js';
import type { HealthSource, HostDownReason } from './host.types.js';
import { HOST_ID, at, bookHost, bookSlots, hostRegistered, slots } from './testing/host.fixtures.js';

// ---------------------------------------------------------------------------------------------
// Host 7 as Nova's monitors see it: up until a report says why it is not.
// ---------------------------------------------------------------------------------------------

const given = DeciderSpecification.for(hostDecider);

const report = (reasons: readonly HostDownReason[], observedAt = at(9), source: HealthSource = 'notification'): ReportHostHealth => ({
  type: 'ReportHostHealth',
  data: { reasons, source, observedAt },
});

const wentDown = (reasons: readonly HostDownReason[], observedAt = at(9), source: HealthSource = 'notification'): HostEvent => ({
  type: 'Host.WentDown',
  data: { hostId: HOST_ID, reasons, source, observedAt },
});

const cameUp = (observedAt = at(10), source: HealthSource = 'notification'): HostEvent => ({
  type: 'Host.CameUp',
  data: { hostId: HOST_ID, source, observedAt },
});

describe('ReportHostHealth', () => {
  it('Given an up host, When it is reported up, Then nothing is recorded', () => {
    given([hostRegistered()]).when(report([])).then([]);
  });

  it('Given an up host, When it is reported down, Then it went down with the reasons in a fixed order', () => {
    given([hostRegistered()])
      .when(report(['forced_down', 'service_down'], at(9), 'polling'))
      .then([wentDown(['service_down', 'forced_down'], at(9), 'polling')]);
  });

  it('Given a down host, When the same reasons are reported again (in any order), Then nothing is recorded', () => {
    given([hostRegistered(), wentDown(['service_down', 'disabled'])])
      .when(report(['disabled', 'service_down'], at(9, 30)))
      .then([]);
  });

  it('Given a down host, When other reasons are reported, Then its down reasons changed', () => {
    given([hostRegistered(), wentDown(['disabled'])])
      .when(report(['disabled', 'forced_down'], at(9, 30)))
      .then([
        {
          type: 'Host.DownReasonsChanged',
          data: { hostId: HOST_ID, reasons: ['disabled', 'forced_down'], source: 'notification', observedAt: at(9, 30) },
        },
      ]);
  });

  it('Given a down host, When it is reported up, Then it came up', () => {
    given([hostRegistered(), wentDown(['service_down'])])
      .when(report([], at(10)))
      .then([cameUp(at(10))]);
  });

  it('Given no host, When health is reported, Then HOST_NOT_FOUND', () => {
    given([])
      .when(report(['service_down']))
      .thenThrows('HOST_NOT_FOUND');
  });

  it('Given an unknown reason string, When reported, Then it is ignored (only Nova reasons count)', () => {
    given([hostRegistered()])
      .when(report(['exploded' as HostDownReason]))
      .then([]);
  });
});

describe('a down host gets no new bookings', () => {
  const window = { startDate: at(12), endDate: at(14) };

  it('Given a down host, When a whole-host booking is asked, Then HOST_DOWN', () => {
    given([hostRegistered(), wentDown(['forced_down'])])
      .when(bookHost('res-1', window))
      .thenThrows('HOST_DOWN', 'Host 7 is down (forced_down)');
  });

  it('Given a down host, When slots are asked, Then HOST_DOWN', () => {
    given([hostRegistered(), wentDown(['service_down'])])
      .when(bookSlots('res-1', slots(1), window))
      .thenThrows('HOST_DOWN');
  });

  it('Given a host that came back, When a booking is asked, Then it is booked', () => {
    given([hostRegistered(), wentDown(['service_down']), cameUp()])
      .when(bookHost('res-1', window))
      .then([{ type: 'Host.Booked', data: { hostId: HOST_ID, reservationId: 'res-1', leaseId: 'lease-1', ...window, propertyNames: [] } }]);
  });
});

describe('evolve', () => {
  it('keeps the health with its reasons and since when down, and drops them when up', () => {
    const down = foldEvents(hostDecider, [hostRegistered(), wentDown(['disabled'], at(9))]);
    expect(down.status === 'Registered' && down.health).toEqual({ status: 'down', reasons: ['disabled'], since: at(9) });
    const changed = foldEvents(hostDecider, [
      hostRegistered(),
      wentDown(['disabled'], at(9)),
      { type: 'Host.DownReasonsChanged', data: { hostId: HOST_ID, reasons: ['service_down'], source: 'polling', observedAt: at(9, 5) } },
    ]);
    expect(changed.status === 'Registered' && changed.health).toEqual({ status: 'down', reasons: ['service_down'], since: at(9) });
    const up = foldEvents(hostDecider, [hostRegistered(), wentDown(['disabled']), cameUp()]);
    expect(up.status === 'Registered' && up.health).toEqual({ status: 'up' });
  });
});
