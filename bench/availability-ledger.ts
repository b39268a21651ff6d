import { join } from 'node:path';
import type { ApplicationContext } from '#application/application-context.js';
import { systemCaller } from '#application/caller.js';
import { CommandHandler } from '#application/command-handler.js';
import { HostUseCases } from '#application/hosts/host.use-cases.js';
import { LeaseUseCases } from '#application/leases/lease.use-cases.js';
import { WriteIndex } from '#application/write-model/write-index.js';
import { isDomainError } from '#domain/index.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { buildHostRequest } from '#plugins/physical-host/host-reservation.request.js';
import { StandaloneHostInventory } from '#plugins/standalone/standalone-host-inventory.js';

/**
 * The large calendar of the availability and capacity benches, written into `events.sqlite` through
 * the application layer (the same use cases and deciders the API calls, without HTTP: 20,000 lease
 * requests through the API took about ten minutes). Hosts in two availability zones, one in five with a
 * GPU, each in one of 50 racks; leases of 1 to 48 hours over 60 days from `t0`, one host each (one in
 * twenty three hosts, for the capacity report's failure domains), some refused where the calendar is
 * full, as through the API. The system launched on the folder afterwards
 * projects the log like any other.
 */
export interface LedgerShape {
  readonly hosts: number;
  readonly leases: number;
  readonly days: number;
}

const HOUR = 3600_000;
const actor = systemCaller('bench');
let commands = 0;
const metadata = (now: string) => ({ actor, correlationId: `bench-${++commands}`, causationId: 'bench', now });

const hostInfo = (i: number) => ({
  hypervisorHostname: `avail-${String(i).padStart(4, '0')}`,
  serviceName: `avail-${String(i).padStart(4, '0')}`,
  vcpus: 16,
  memoryMb: 65536,
  localGb: 500,
  cpuInfo: '',
  hypervisorType: 'QEMU',
  hypervisorVersion: 1,
  availabilityZone: i % 2 === 0 ? 'zone-a' : 'zone-b',
});

export const hostRequest = (min: number, gpu: boolean) =>
  buildHostRequest({
    min,
    max: min,
    hypervisorProperties: '',
    resourceProperties: gpu ? '["=", "$gpu", "true"]' : '',
    beforeEnd: 'default',
  });

/** Writes the ledger; resolves with how many leases were admitted and how long the writing took. */
export const writeAvailabilityLedger = async (
  dataDir: string,
  shape: LedgerShape,
  random: () => number,
  t0: number,
): Promise<{ readonly accepted: number; readonly seconds: number }> => {
  const started = performance.now();
  const store = SqliteEventStore.open({ file: join(dataDir, 'events.sqlite') });
  let ids = 0;
  const context: ApplicationContext = {
    handler: new CommandHandler(store),
    index: new WriteIndex(store),
    settings: { cleaningTimeMinutes: 0, minutesBeforeEnd: 60, allocationRatios: { cpu: 1, ram: 1, disk: 1 } },
    newId: () => `00000000-0000-4000-8000-${String(++ids).padStart(12, '0')}`,
  };
  const now = new Date(t0 - 24 * HOUR).toISOString();
  try {
    const hosts = new HostUseCases(context, new StandaloneHostInventory());
    for (let i = 0; i < shape.hosts; i++) {
      const capabilities = { gpu: i % 5 === 0 ? 'true' : 'false', rack: `rack-${String(i % 50).padStart(2, '0')}` };
      await hosts.register({
        type: 'RegisterHost',
        data: { host: { source: 'request', info: hostInfo(i), capabilities } },
        metadata: metadata(now),
      });
    }
    const leases = new LeaseUseCases(context);
    let accepted = 0;
    for (let i = 0; i < shape.leases; i++) {
      const start = t0 + Math.floor(random() * shape.days * 24) * HOUR;
      const hours = 1 + Math.floor(random() * 48);
      const wanted = random() < 0.05 ? 3 : 1;
      const data = {
        name: `avail-lease-${i}`,
        startDate: new Date(start).toISOString(),
        endDate: new Date(start + hours * HOUR).toISOString(),
        beforeEndDate: null,
        reservations: [hostRequest(wanted, random() < 0.2)],
      };
      try {
        await leases.create({ type: 'CreateLease', data, metadata: metadata(now) });
        accepted++;
      } catch (error) {
        if (!isDomainError(error) || error.kind !== 'conflict') throw error;
      }
    }
    return { accepted, seconds: (performance.now() - started) / 1000 };
  } finally {
    await store.close();
  }
};
