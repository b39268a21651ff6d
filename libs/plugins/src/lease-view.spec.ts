import { describe, expect, it } from 'vitest';
import { RESERVATION_VIEWS, sharedViews } from './lease-view.js';
import { RESERVATION_TYPES, reservationType } from './reservation-types.js';

describe('the views of the registered types, as GraphQL and OpenAPI declare them', () => {
  it('one per name, with the types that show it, in the registry order', () => {
    expect(RESERVATION_VIEWS.map(({ view, resourceTypes }) => [view.name, resourceTypes])).toEqual([
      ['HostReservation', ['physical:host']],
      ['InstanceReservation', ['virtual:instance', 'flavor:instance']],
      ['FloatingIpReservation', ['virtual:floatingip']],
      ['NetworkReservation', ['network']],
    ]);
  });

  it('refuses two different views under one name: they would be two schemas of one name', () => {
    const host = reservationType('physical:host');
    const impostor = { ...reservationType('virtual:floatingip'), view: { ...host.view } };
    expect(() => sharedViews([...RESERVATION_TYPES, impostor])).toThrow(
      'virtual:floatingip names its view HostReservation, as another view is named',
    );
  });
});
