import { describe, it } from 'vitest';
import { DeciderSpecification } from '#domain/shared/specification.js';
import { networkPropertyDecider } from './network-property.js';

const NOW = '2030-01-01T09:00:00.000Z';
const given = DeciderSpecification.for(networkPropertyDecider);
const set = (isPrivate: boolean, known = true) =>
  ({ type: 'SetNetworkPropertyPrivacy', data: { propertyName: 'switch', private: isPrivate, known, now: NOW } }) as const;
const changed = (isPrivate: boolean) =>
  ({ type: 'NetworkProperty.PrivacyChanged', data: { propertyName: 'switch', private: isPrivate, changedAt: NOW } }) as const;

describe("a network capability name's privacy", () => {
  it('changes when asked for the other value, and records nothing for the same', () => {
    given([])
      .when(set(true))
      .then([changed(true)]);
    given([changed(true)])
      .when(set(true))
      .thenNothing();
    given([changed(true)])
      .when(set(false))
      .then([changed(false)]);
    given([]).when(set(false)).thenNothing();
  });

  it('answers 404 for a name no segment has had', () => {
    given([]).when(set(true, false)).thenThrows('PROPERTY_NOT_FOUND', 'Resource property switch not found');
  });
});
