import { type Command, type Decider, type DomainEvent, notFound } from '#domain/index.js';

/** The stream category of the privacy of network capability names (no hyphen: a category ends at the first one). */
export const NETWORK_PROPERTY_CATEGORY = 'networkproperty';

/** Privacy of one extra capability name of network segments (Chameleon's network resource property). */
export const networkPropertyStream = (name: string): string => `${NETWORK_PROPERTY_CATEGORY}-${name}`;

export type NetworkPropertyEvent = DomainEvent<
  'NetworkProperty.PrivacyChanged',
  { readonly propertyName: string; readonly private: boolean; readonly changedAt: string }
>;

/** `known`: some segment has, or had, a capability of that name (as upstream, a property is never forgotten). */
export type NetworkPropertyCommand = Command<
  'SetNetworkPropertyPrivacy',
  { readonly propertyName: string; readonly private: boolean; readonly known: boolean; readonly now: string }
>;

export interface NetworkPropertyState {
  readonly private: boolean;
}

export const networkPropertyDecider: Decider<NetworkPropertyState, NetworkPropertyCommand, NetworkPropertyEvent> = {
  initialState: () => ({ private: false }),
  decide: ({ data }, state) => {
    if (!data.known) throw notFound('PROPERTY_NOT_FOUND', `Resource property ${data.propertyName} not found`);
    if (state.private === data.private) return [];
    return [
      { type: 'NetworkProperty.PrivacyChanged', data: { propertyName: data.propertyName, private: data.private, changedAt: data.now } },
    ];
  },
  evolve: (_state, event) => ({ private: event.data.private }),
};
