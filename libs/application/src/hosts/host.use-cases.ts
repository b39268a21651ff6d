import {
  type Capabilities,
  HOST_REGISTRY_STREAM,
  type HostEvent,
  type HostState,
  type RegisteredHost,
  hostDecider,
  hostRegistryDecider,
  hostStream,
  propertyStream,
  resourcePropertyDecider,
} from '#domain/index.js';
import type { HostInventory, HostToRegister } from '#plugins/ports/host-inventory.port.js';
import { NO_ZONE_RULE, amountFor } from '#plugins/zone-rule.js';
import type { ApplicationContext } from '../application-context.js';
import { checkGeneralPoolFloor } from '../guardrails/general-pool-floor.js';
import { authorize } from '../caller.js';
import { type AppCommand, appendTo, eventMetadata } from '../command.js';
import type { Handled } from '../command-handler.js';
import { ACTIONS } from '../policy/policy-defaults.js';
import type { Versioned } from '../write-model/write-index.js';
import { hostNotFound } from './host.errors.js';

/** What an update may change: extra capabilities (added or changed, never removed) and, when not null, reservability. */
export interface HostChanges {
  readonly capabilities: Capabilities;
  readonly reservable: boolean | null;
}

export type RegisterHost = AppCommand<'RegisterHost', { readonly host: HostToRegister }>;
export type UpdateHost = AppCommand<'UpdateHost', { readonly hostId: string; readonly changes: HostChanges }>;
export type UnregisterHost = AppCommand<'UnregisterHost', { readonly hostId: string }>;
export type SetPropertyPrivacy = AppCommand<'SetPropertyPrivacy', { readonly propertyName: string; readonly private: boolean }>;

/** A host as a write left it: its whole history, for the answer's view. */
export interface HostWritten {
  readonly hostId: string;
  readonly events: readonly HostEvent[];
  /** Position of the last event written (0 when nothing changed). */
  readonly position: number;
}

/** Who may do what to hosts: the use cases enforce it; a transport may ask first (upstream answers 403 before 400). */
export const HOST_POLICY = {
  register: ACTIONS.hostPost,
  update: ACTIONS.hostPut,
  unregister: ACTIONS.hostDelete,
  setPropertyPrivacy: ACTIONS.propertiesUpdate,
} as const;

/** The host as the write side holds it, or its 404. */
export const registered = (hostId: string, host: Versioned<HostState>): Versioned<RegisteredHost> => {
  if (host.state.status !== 'Registered') throw hostNotFound(hostId);
  return { state: host.state, revision: host.revision };
};

/** The host inventory: the registry stream keeps names unique and ids sequential. */
export class HostUseCases {
  constructor(
    private readonly context: ApplicationContext,
    private readonly inventory: HostInventory,
  ) {}

  async register(command: RegisterHost): Promise<HostWritten> {
    authorize(command.metadata.actor, HOST_POLICY.register);
    const { info, capabilities } = await this.inventory.describe(command.data.host);
    const floor = this.context.settings.guardrails?.generalPoolFloor ?? NO_ZONE_RULE;
    // asked before the decision (no outside call under the lock); the freepool side is counted inside it
    const reported = amountFor(floor, info.availabilityZone) === null ? 0 : await this.inventory.computeHostsIn(info.availabilityZone);
    const { handler, index, newId } = this.context;
    const metadata = eventMetadata(command.metadata);
    const { result, position } = await handler.handle(async () => {
      await index.catchUp();
      const registry = index.registryState();
      // decided on the registry's revision, which every registration appends to: of two racing
      // enrollments the second is re-decided with the first counted, so both cannot pass the floor
      const zone = info.availabilityZone;
      const inFreepool = index.registeredHosts().filter((host) => host.info.availabilityZone === zone).length;
      checkGeneralPoolFloor(floor, info.hypervisorHostname, { zone, computeHosts: reported ?? inFreepool + 1, inFreepool });
      const added = hostRegistryDecider.decide(
        { type: 'AddHostToRegistry', data: { hypervisorHostname: info.hypervisorHostname } },
        registry.state,
      );
      const hostId = added[0]?.data.hostId ?? '';
      const now = command.metadata.now;
      const events = hostDecider.decide({ type: 'RegisterHost', data: { hostId, info, capabilities, now } }, hostDecider.initialState());
      const appends = [
        appendTo(HOST_REGISTRY_STREAM, registry.revision, added, metadata, newId),
        appendTo(hostStream(hostId), 'no_stream', events, metadata, newId),
      ];
      return { appends, result: { hostId, events } };
    });
    return { ...result, position };
  }

  async update(command: UpdateHost): Promise<HostWritten> {
    authorize(command.metadata.actor, HOST_POLICY.update);
    const { handler, index, newId } = this.context;
    const { hostId, changes } = command.data;
    const { now } = command.metadata;
    const { position } = await handler.handle(async () => {
      await index.catchUp();
      const host = registered(hostId, index.host(hostId));
      const events = [
        ...hostDecider.decide({ type: 'UpdateHostCapabilities', data: { capabilities: changes.capabilities, now } }, host.state),
        ...(changes.reservable === null
          ? []
          : hostDecider.decide(
              { type: 'SetHostReservable', data: { reservable: changes.reservable, reason: 'operator request', now } },
              host.state,
            )),
      ];
      return { appends: [appendTo(hostStream(hostId), host.revision, events, eventMetadata(command.metadata), newId)], result: null };
    });
    const { events } = await handler.load(hostDecider, hostStream(hostId));
    return { hostId, events, position };
  }

  /**
   * A reserved host is refused before the cloud is asked (a reserved host's servers are its tenants'),
   * and again on the state the removal is decided on.
   */
  async unregister(command: UnregisterHost): Promise<Handled<null>> {
    authorize(command.metadata.actor, HOST_POLICY.unregister);
    const { handler, index, newId } = this.context;
    const { hostId } = command.data;
    await index.catchUp();
    await this.inventory.checkRemovable(this.departure(hostId, command).host.state.info);
    return handler.handle(async () => {
      await index.catchUp();
      const { host, events } = this.departure(hostId, command);
      const registry = index.registryState();
      const { hypervisorHostname } = host.state.info;
      const removed = hostRegistryDecider.decide({ type: 'RemoveHostFromRegistry', data: { hostId, hypervisorHostname } }, registry.state);
      const metadata = eventMetadata(command.metadata);
      return {
        appends: [
          appendTo(hostStream(hostId), host.revision, events, metadata, newId),
          appendTo(HOST_REGISTRY_STREAM, registry.revision, removed, metadata, newId),
        ],
        result: null,
      };
    });
  }

  /** Privacy of an extra capability name that some host has (upstream's resource property). */
  async setPropertyPrivacy(command: SetPropertyPrivacy): Promise<Handled<null>> {
    authorize(command.metadata.actor, HOST_POLICY.setPropertyPrivacy);
    const { handler, index, newId } = this.context;
    const { propertyName } = command.data;
    return handler.handle(async () => {
      await index.catchUp();
      const property = index.property(propertyName);
      const known = index.isKnownProperty(propertyName);
      const data = { propertyName, private: command.data.private, known, now: command.metadata.now };
      const events = resourcePropertyDecider.decide({ type: 'SetPropertyPrivacy', data }, property.state);
      const expected = property.revision === -1 ? 'no_stream' : property.revision;
      return { appends: [appendTo(propertyStream(propertyName), expected, events, eventMetadata(command.metadata), newId)], result: null };
    });
  }

  private departure(hostId: string, command: UnregisterHost): { host: Versioned<RegisteredHost>; events: readonly HostEvent[] } {
    const host = registered(hostId, this.context.index.host(hostId));
    return { host, events: hostDecider.decide({ type: 'UnregisterHost', data: { now: command.metadata.now } }, host.state) };
  }
}
