import type { Capabilities, HostInfo } from '#domain/index.js';

/** A host's facts and its extra capabilities, as registration records them. */
export interface HostDescription {
  readonly info: HostInfo;
  readonly capabilities: Capabilities;
}

/**
 * What a registration names. In standalone mode nobody else knows a host's facts, so the request states
 * them; where a cloud reports them, the request names the host as the cloud knows it.
 */
export type HostToRegister =
  | ({ readonly source: 'request' } & HostDescription)
  | { readonly source: 'cloud'; readonly name: string; readonly capabilities: Capabilities };

/**
 * What the host use cases ask the cloud (before deciding: an outside call never runs inside the command
 * handler). Each method throws a DomainError to refuse, `unavailable` when the cloud cannot answer.
 */
export interface HostInventory {
  /** The facts of the host a registration names. */
  describe(host: HostToRegister): Promise<HostDescription>;
  /** Resolves when the host may leave: upstream refuses to delete a host that has servers. */
  checkRemovable(info: HostInfo): Promise<void>;
  /**
   * How many compute hosts the availability zone has in the cloud (the general-pool floor's whole);
   * null when the cloud knows none beyond those registered (a simulated zone of unstated size).
   */
  computeHostsIn(zone: string): Promise<number | null>;
}
