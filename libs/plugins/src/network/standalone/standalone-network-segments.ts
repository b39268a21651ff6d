import type { NetworkSegments } from '../network-segments.port.js';

/** Standalone mode: no network service, every segment is free of networks. */
export class StandaloneNetworkSegments implements NetworkSegments {
  async checkUnused(): Promise<void> {}
}
