/**
 * Frozen fixtures of every stored event type, at every version it ever had (docs/upgrades.md): the
 * data a release stored, kept byte for byte, so that every later release shows it still reads it. The
 * stored types are the code's own (the catalogue of every type the code appends, checked against the
 * sources by event-catalogue.spec.ts, and the stored-only ones); each fixture is stored at its version
 * in a real SQLite log, read back through the upcasters and folded by the API's write index, the lease
 * decider, the projector (a rebuild of every read model) and the public history.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_CATALOGUE } from '#application/history/event-catalogue.js';
import { historyEntry, isCatalogued } from '#application/history/history-entry.js';
import { NON_PUBLIC_EVENT_TYPES, webhookStream } from '#application/webhooks/webhook.events.js';
import { auditStream } from '#application/audit/write-refused.events.js';
import { WriteIndex } from '#application/write-model/write-index.js';
import {
  FLAVOR_CATALOG_STREAM,
  FLOATING_IP_REGISTRY_STREAM,
  HOST_REGISTRY_STREAM,
  type LeaseEvent,
  fairShareStream,
  floatingIpStream,
  freepoolWatchStream,
  hostActivityStream,
  hostStream,
  leaseRequestStream,
  leaseStream,
  propertyStream,
  quotaStream,
  rateCardStream,
} from '#domain/index.js';
import type { RecordedEvent } from '#event-store/event-store.port.js';
import { storedVersionOf, upcast } from '#event-store/event-versions.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { encodeStoredText } from '#event-store/stored-text.js';
import { NETWORK_REGISTRY_STREAM } from '#plugins/network/network-registry.js';
import { networkPropertyStream } from '#plugins/network/network-property.js';
import { networkStream } from '#plugins/network/network-segment.types.js';
import { leaseDecider } from '#plugins/lease.decider.js';
import { rebuildReadModel } from '#projector/rebuild-read-model.js';
import { openReadModel } from '#read-model/index.js';

const DIR = join(import.meta.dirname, '../fixtures/events');
const MANIFEST = 'MANIFEST.sha256';

interface Fixture {
  readonly file: string;
  readonly type: string;
  readonly version: number;
  readonly data: Readonly<Record<string, unknown>>;
}

const STORED_TYPES: readonly string[] = [...Object.keys(EVENT_CATALOGUE), ...NON_PUBLIC_EVENT_TYPES];

const fileOf = (type: string, version: number): string => `${type}.v${version}.json`;

/** Every version a type ever had: 1 up to the current one (a version is never skipped). */
const expectedFiles = (): string[] =>
  STORED_TYPES.flatMap((type) => Array.from({ length: storedVersionOf(type) }, (_, i) => fileOf(type, i + 1))).sort();

const fixtureFiles = (): string[] =>
  readdirSync(DIR)
    .filter((file) => file !== MANIFEST)
    .sort();

const readFixture = (file: string): Fixture => {
  const { type, version, data } = JSON.parse(readFileSync(join(DIR, file), 'utf8')) as Omit<Fixture, 'file'>;
  return { file, type, version, data };
};

const text = (data: Readonly<Record<string, unknown>>, field: string): string => String(data[field]);

/** The stream each aggregate's events go to, by the type's first word, with the helpers the code appends with. */
const STREAMS: Readonly<Record<string, (data: Readonly<Record<string, unknown>>) => string>> = {
  Lease: (data) => leaseStream(text(data, 'leaseId')),
  LeaseRequest: (data) => leaseRequestStream(text(data, 'requestId')),
  Reservation: (data) => leaseStream(text(data, 'leaseId')),
  Host: (data) => hostStream(text(data, 'hostId')),
  HostActivity: (data) => hostActivityStream(text(data, 'hostId')),
  HostRegistry: () => HOST_REGISTRY_STREAM,
  FloatingIp: (data) => floatingIpStream(text(data, 'floatingIpId')),
  FloatingIpRegistry: () => FLOATING_IP_REGISTRY_STREAM,
  ResourceProperty: (data) => propertyStream(text(data, 'propertyName')),
  FlavorCatalog: () => FLAVOR_CATALOG_STREAM,
  Freepool: (data) => freepoolWatchStream(text(data, 'zone')),
  RateCard: (data) => rateCardStream(text(data, 'name')),
  Quota: (data) => quotaStream(text(data, 'projectId')),
  FairShare: (data) => fairShareStream(text(data, 'projectId')),
  Audit: (data) => auditStream(text(data, 'at').slice(0, 10)),
  NetworkSegment: (data) => networkStream(text(data, 'networkId')),
  NetworkRegistry: () => NETWORK_REGISTRY_STREAM,
  NetworkProperty: (data) => networkPropertyStream(text(data, 'propertyName')),
  Webhook: (data) => webhookStream(text(data, 'webhookId')),
};

const streamOf = (fixture: Fixture): string => {
  const stream = STREAMS[fixture.type.split('.')[0] ?? ''];
  if (stream === undefined) throw new Error(`no stream for ${fixture.type}: add its aggregate to STREAMS`);
  return stream(fixture.data);
};

/** What begins an aggregate's life first, what ends it last, the rest in the catalogue's order: the log as the code writes it. */
const lifeOrder = (type: string): number => {
  if (/\.(Registered|Created|Added|HostAdded|SegmentAdded|Published|Set)$/.test(type)) return 0;
  if (/\.(Unregistered|Deleted|Removed|HostRemoved|SegmentRemoved)$/.test(type)) return 2;
  return 1;
};

describe('frozen fixtures of every stored event type', () => {
  it('has one of each type at each version it ever had, and none of a type or version the code does not store', () => {
    expect(STORED_TYPES.length).toBeGreaterThan(70);
    expect(fixtureFiles()).toEqual(expectedFiles());
    for (const file of fixtureFiles()) {
      const fixture = readFixture(file);
      expect(fileOf(fixture.type, fixture.version), file).toBe(file);
    }
  });

  it('are frozen: each has the sha256 its manifest line gives, and each has a line', () => {
    const manifest = readFileSync(join(DIR, MANIFEST), 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split(/\s+/))
      .map(([digest, file]) => [file ?? '', digest ?? ''] as const);
    const digests = fixtureFiles().map(
      (file) =>
        [
          file,
          createHash('sha256')
            .update(readFileSync(join(DIR, file)))
            .digest('hex'),
        ] as const,
    );
    expect(Object.fromEntries(digests)).toEqual(Object.fromEntries(manifest));
  });

  describe('read through the upcasters and folded', () => {
    let dir: string;
    let store: SqliteEventStore;
    let read: RecordedEvent[];
    const fixtures = fixtureFiles()
      .map(readFixture)
      .sort((a, b) => lifeOrder(a.type) - lifeOrder(b.type));

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'leasehold-fixtures-'));
      const file = join(dir, 'events.sqlite');
      store = SqliteEventStore.open({ file });
      for (const fixture of fixtures)
        await store.appendToStream(streamOf(fixture), 'any', [
          { id: fixture.file, type: fixture.type, data: fixture.data, metadata: { correlationId: 'c', causationId: 'c', actor: null } },
        ]);
      // as the release that wrote them stored them
      const db = new Database(file);
      const setVersion = db.prepare('UPDATE events SET schema_version = ? WHERE event_id = ?');
      for (const fixture of fixtures) setVersion.run(fixture.version, encodeStoredText(fixture.file));
      db.close();
      read = await store.readAll({ from: 0 });
    });

    afterAll(async () => {
      await store?.close();
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    });

    it("reads each at its type's current version, with every field the current version's fixture has", () => {
      expect(read.map((event) => event.id)).toEqual(fixtures.map((fixture) => fixture.file));
      for (const [i, fixture] of fixtures.entries()) {
        const data = read[i]?.data as Record<string, unknown>;
        expect(data, fixture.file).toEqual(upcast(fixture.type, fixture.version, fixture.data));
        const current = readFixture(fileOf(fixture.type, storedVersionOf(fixture.type)));
        expect(Object.keys(data).sort(), fixture.file).toEqual(Object.keys(current.data).sort());
      }
    });

    it("folds them in the API's write index and the lease decider", async () => {
      await new WriteIndex(store).catchUp();
      const leases = new Set(read.filter((event) => event.streamId.startsWith('lease-')).map((event) => event.streamId));
      for (const lease of leases) {
        const events = (await store.readStream(lease)) as unknown as LeaseEvent[];
        expect(() => events.reduce(leaseDecider.evolve, leaseDecider.initialState())).not.toThrow();
      }
    });

    it('projects them into every read model', async () => {
      const orm = await openReadModel({ kind: 'sqlite', file: join(dir, 'read-model.sqlite') });
      try {
        const result = await rebuildReadModel({ store, orm, writerThread: false });
        expect(result.events).toBe(fixtures.length);
      } finally {
        await orm.close();
      }
    });

    it('shows each public one in the history and the feed', () => {
      for (const event of read.filter((recorded) => isCatalogued(recorded.type)))
        expect(() => historyEntry(event as Parameters<typeof historyEntry>[0]), event.id).not.toThrow();
    });
  });
});
