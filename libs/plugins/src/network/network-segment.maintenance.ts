import { checkNewWindow, windowToCancel } from '#domain/index.js';
import type { CancelNetworkSegmentMaintenance, ScheduleNetworkSegmentMaintenance } from './network-segment.commands.js';
import type { NetworkSegmentEvent } from './network-segment.events.js';
import { describeSegment } from './network-segment.rules.js';
import type { RegisteredNetworkSegment } from './network-segment.state.js';

/** A window on a registered segment, by the rules every kind's windows follow (shared/maintenance.ts). */
export const scheduleMaintenance = (
  { data }: ScheduleNetworkSegmentMaintenance,
  segment: RegisteredNetworkSegment,
): NetworkSegmentEvent[] => {
  checkNewWindow(segment.maintenance, data, `Network ${describeSegment(segment)}`);
  const { windowId, startDate, endDate, reason, now } = data;
  const { networkId } = segment;
  return [{ type: 'NetworkSegment.MaintenanceScheduled', data: { networkId, windowId, startDate, endDate, reason, scheduledAt: now } }];
};

export const cancelMaintenance = ({ data }: CancelNetworkSegmentMaintenance, segment: RegisteredNetworkSegment): NetworkSegmentEvent[] => {
  const { windowId } = windowToCancel(segment.maintenance, data.windowId, data.now, `Network ${describeSegment(segment)}`);
  return [{ type: 'NetworkSegment.MaintenanceCancelled', data: { networkId: segment.networkId, windowId, cancelledAt: data.now } }];
};
