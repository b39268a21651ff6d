import type { Command, Decider, DomainEvent } from '../shared/decider.js';
import { notFound } from '../shared/errors.js';

/** Privacy of a host capability name (Blazar "resource property"); the name must be known to some host. */
export const propertyStream = (name: string): string => `property-${name}`;

export type ResourcePropertyEvent = DomainEvent<
  'ResourceProperty.PrivacyChanged',
  { readonly propertyName: string; readonly private: boolean; readonly changedAt: string }
>;

export type ResourcePropertyCommand = Command<
  'SetPropertyPrivacy',
  { readonly propertyName: string; readonly private: boolean; readonly known: boolean; readonly now: string }
>;

export interface ResourcePropertyState {
  readonly private: boolean;
}

export const resourcePropertyDecider: Decider<ResourcePropertyState, ResourcePropertyCommand, ResourcePropertyEvent> = {
  initialState: () => ({ private: false }),
  decide: ({ data }, state) => {
    if (!data.known) throw notFound('PROPERTY_NOT_FOUND', `Resource property ${data.propertyName} not found`);
    if (state.private === data.private) return [];
    return [
      { type: 'ResourceProperty.PrivacyChanged', data: { propertyName: data.propertyName, private: data.private, changedAt: data.now } },
    ];
  },
  evolve: (_state, event) => ({ private: event.data.private }),
};
