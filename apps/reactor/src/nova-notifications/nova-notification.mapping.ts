import type { AggregateActivity, InstanceActivity } from '#domain/index.js';
import type { NovaNotification } from './oslo-envelope.js';

/** What a notification means to Leasehold, before knowing whether its hosts are Leasehold's. */
export type NotificationMeaning =
  | {
      readonly kind: 'service';
      /** The compute service host (ServiceStatusPayload.host). */
      readonly serviceHost: string;
      readonly disabled: boolean;
      readonly forcedDown: boolean;
    }
  | { readonly kind: 'instance'; readonly serviceHost: string; readonly activity: InstanceActivity }
  | { readonly kind: 'aggregate'; readonly hosts: readonly string[]; readonly activity: AggregateActivity }
  | { readonly kind: 'ignored'; readonly reason: string }
  | { readonly kind: 'invalid'; readonly reason: string };

type Data = Readonly<Record<string, unknown>>;

const str = (data: Data, key: string): string | null => (typeof data[key] === 'string' && data[key] !== '' ? data[key] : null);
const strOrNull = (data: Data, key: string): string | null | undefined => (data[key] === null ? null : (str(data, key) ?? undefined));
const bool = (data: Data, key: string): boolean | null => (typeof data[key] === 'boolean' ? data[key] : null);

const invalid = (n: NovaNotification, what: string): NotificationMeaning => ({
  kind: 'invalid',
  reason: `${n.eventType} ${n.messageId}: ${what}`,
});

const serviceUpdate = (n: NovaNotification): NotificationMeaning => {
  const binary = str(n.data, 'binary');
  if (binary !== 'nova-compute') return { kind: 'ignored', reason: `service.update of ${binary ?? 'an unnamed binary'}` };
  const serviceHost = str(n.data, 'host');
  const disabled = bool(n.data, 'disabled');
  const forcedDown = bool(n.data, 'forced_down');
  if (serviceHost === null || disabled === null || forcedDown === null) return invalid(n, 'host, disabled or forced_down missing');
  return { kind: 'service', serviceHost, disabled, forcedDown };
};

const flavorIdOf = (data: Data): string | null => {
  const flavor = data['flavor'];
  if (typeof flavor !== 'object' || flavor === null) return null;
  const inner = (flavor as Data)['nova_object.data'];
  return typeof inner === 'object' && inner !== null ? str(inner as Data, 'flavorid') : null;
};

const instance = (n: NovaNotification): NotificationMeaning => {
  const serviceHost = strOrNull(n.data, 'host');
  const instanceId = str(n.data, 'uuid');
  const projectId = str(n.data, 'tenant_id');
  const state = strOrNull(n.data, 'state');
  if (serviceHost === undefined || instanceId === null || projectId === null || state === undefined)
    return invalid(n, 'host, uuid, tenant_id or state missing');
  if (serviceHost === null) return { kind: 'ignored', reason: `${n.eventType} of ${instanceId} on no host yet` };
  return { kind: 'instance', serviceHost, activity: { kind: 'instance', instanceId, projectId, flavorId: flavorIdOf(n.data), state } };
};

const aggregate = (n: NovaNotification): NotificationMeaning => {
  const aggregateUuid = str(n.data, 'uuid');
  const aggregateName = str(n.data, 'name');
  const id = n.data['id'];
  const hosts = n.data['hosts'] ?? [];
  if (aggregateUuid === null || aggregateName === null) return invalid(n, 'uuid or name missing');
  if (!Array.isArray(hosts) || !hosts.every((h): h is string => typeof h === 'string')) return invalid(n, 'hosts is not a list of names');
  const aggregateId = typeof id === 'number' ? id : null;
  return { kind: 'aggregate', hosts, activity: { kind: 'aggregate', aggregateUuid, aggregateId, aggregateName, hosts } };
};

/** Pure: what a parsed notification means; never throws. */
export const meaningOf = (n: NovaNotification): NotificationMeaning => {
  if (n.eventType === 'service.update') return serviceUpdate(n);
  if (n.eventType.startsWith('instance.')) return instance(n);
  if (n.eventType.startsWith('aggregate.')) return aggregate(n);
  return { kind: 'ignored', reason: `event type ${n.eventType} is not consumed` };
};
