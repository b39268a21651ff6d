import { createHash } from 'node:crypto';
import type { HostCapabilitiesUpdated, HostRegistered, ResourcePropertyEvent } from '#domain/index.js';
import type { FoldableEvent } from '#event-store/event-store.port.js';
import { PropertyEntity } from '#read-model/index.js';
import type { Projection } from '../projection.js';

type PropertyEvent = HostRegistered | HostCapabilitiesUpdated | ResourcePropertyEvent;

/** Fixed namespace of Leasehold resource-property ids (never change it: ids are part of the API). */
const PROPERTY_NAMESPACE = Buffer.from('6c9b1f0e4a8d5e2b9f3c7d1a2b4e6f80', 'hex');

/** RFC 4122 version-5 (SHA-1, name-based) uuid of a capability name: the same name always gets the same id. */
export const propertyId = (name: string): string => {
  const bytes = createHash('sha1').update(PROPERTY_NAMESPACE).update(name, 'utf8').digest().subarray(0, 16);
  bytes.writeUInt8((bytes.readUInt8(6) & 0x0f) | 0x50, 6);
  bytes.writeUInt8((bytes.readUInt8(8) & 0x3f) | 0x80, 8);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

const namesOf = (event: PropertyEvent): readonly string[] =>
  event.type === 'ResourceProperty.PrivacyChanged' ? [event.data.propertyName] : Object.keys(event.data.capabilities);

/**
 * lh_properties: every capability name ever seen on a host, with its privacy. Rows are never
 * deleted, like upstream's resource_properties.
 */
export const propertiesProjection: Projection = {
  name: 'properties',
  canHandle: ['Host.Registered', 'Host.CapabilitiesUpdated', 'ResourceProperty.PrivacyChanged'],
  async preload(rows, events): Promise<void> {
    await rows
      .table(PropertyEntity)
      .load(events.flatMap((recorded) => namesOf({ type: recorded.type, data: recorded.data } as PropertyEvent)));
  },
  apply(rows, recorded: FoldableEvent): void {
    const event = { type: recorded.type, data: recorded.data } as PropertyEvent;
    const properties = rows.table(PropertyEntity);
    if (event.type === 'ResourceProperty.PrivacyChanged') {
      const { propertyName: name, private: isPrivate, changedAt } = event.data;
      const row = properties.loaded(name);
      if (row === null) properties.put({ name, id: propertyId(name), private: isPrivate, createdAt: changedAt, updatedAt: changedAt });
      else properties.put({ ...row, private: isPrivate, updatedAt: changedAt });
      return;
    }
    const createdAt = event.type === 'Host.Registered' ? event.data.registeredAt : event.data.updatedAt;
    for (const name of namesOf(event)) {
      if (properties.loaded(name) === null) properties.put({ name, id: propertyId(name), private: false, createdAt, updatedAt: null });
    }
  },
};
