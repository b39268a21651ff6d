import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { created } from '#domain/lease/testing/lease.fixtures.js';
import type { RecordedEvent } from '#event-store/event-store.port.js';
import { EVENT_CATALOGUE, type InternalEventType } from './event-catalogue.js';
import { NON_PUBLIC_EVENT_TYPES } from '../webhooks/webhook.events.js';
import { historyEntry, isCatalogued, recordedAtMicros } from './history-entry.js';

const ROOT = join(import.meta.dirname, '../../../..');
/** Where events are built: the deciders (the domain's, and the resource kinds' in their plugin folders), and the application layer. */
const EMITTERS = [join(ROOT, 'libs/domain/src'), join(ROOT, 'libs/plugins/src'), join(ROOT, 'libs/application/src')];

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'testing' ? [] : sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });

/** `type: 'Lease.Created'` where an event is built, or a type listed in an event union (`DomainEvent<'Lease.Created', ...>`). */
const emittedTypes = (): Set<string> => {
  const found = new Set<string>();
  for (const file of EMITTERS.flatMap(sources)) {
    const source = readFileSync(file, 'utf8');
    for (const match of source.matchAll(/(?:type: |DomainEvent<\s*|PhaseEvent<|PhaseFailure<)'([A-Z]\w*\.[A-Z]\w*)'/g))
      found.add(match[1] ?? '');
  }
  return found;
};

interface DocumentedType {
  readonly stored: string;
  readonly fields: readonly string[];
}

/** docs/events.md's `### \`public.type\`` sections: the stored type they name and their `- \`field\`` bullets. */
const documentedTypes = (): Map<string, DocumentedType> => {
  const text = readFileSync(join(ROOT, 'docs/events.md'), 'utf8');
  const types = text.split('\n## Types\n')[1] ?? '';
  const sections = types.split(/^### /m).slice(1);
  return new Map(
    sections.map((section) => {
      const publicType = /^`([^`]+)`/.exec(section)?.[1] ?? '';
      const stored = /Stored as `([^`]+)`/.exec(section)?.[1] ?? '';
      const fields = [...section.matchAll(/^- `(\w+)`/gm)].map((match) => match[1] ?? '');
      return [publicType, { stored, fields }];
    }),
  );
};

const recorded = (type: string, data: unknown, metadata: RecordedEvent['metadata']): RecordedEvent => ({
  id: 'e-1',
  streamId: 'lease-1',
  revision: 0,
  position: 42,
  type,
  data,
  metadata,
  recordedAt: '2030-01-01T09:08:07.654Z',
});

describe('the public event catalogue', () => {
  it('has an entry for every event type the code can emit, and none for a type nothing emits', () => {
    const emitted = emittedTypes();
    expect(emitted.size).toBeGreaterThan(40);
    for (const type of NON_PUBLIC_EVENT_TYPES) expect(Object.hasOwn(EVENT_CATALOGUE, type), `${type} is not public`).toBe(false);
    const internalOnly = new Set<string>(NON_PUBLIC_EVENT_TYPES);
    expect([...emitted].filter((type) => !internalOnly.has(type)).sort()).toEqual(Object.keys(EVENT_CATALOGUE).sort());
  });

  it('gives each a distinct lower-case public type', () => {
    const publicTypes = Object.values(EVENT_CATALOGUE).map((entry) => entry.publicType);
    expect(new Set(publicTypes).size).toBe(publicTypes.length);
    for (const type of publicTypes) expect(type).toMatch(/^[a-z_]+\.[a-z_]+$/);
  });

  it('is documented in docs/events.md: every public type with exactly its fields, nothing else', () => {
    const documented = documentedTypes();
    const expected = new Map(
      Object.entries(EVENT_CATALOGUE).map(([stored, entry]) => [entry.publicType, { stored, fields: Object.keys(entry.fields) }]),
    );
    expect(Object.fromEntries(documented)).toEqual(Object.fromEntries(expected));
  });
});

describe('a history entry', () => {
  it("copies the catalogue's fields in snake_case, never the stored object: no trust id, no scheduler ids", () => {
    const event = created();
    const entry = historyEntry(
      recorded(event.type, event.data, {
        correlationId: 'req-1',
        causationId: 'req-1',
        actor: { userId: 'user-1', projectId: 'project-1' },
        requestId: 'req-1',
      }) as RecordedEvent & { type: InternalEventType },
    );
    expect(entry).toMatchObject({
      position: 42,
      recorded_at: '2030-01-01T09:08:07.654000Z',
      type: 'lease.created',
      actor: { user_id: 'user-1', project_id: 'project-1', system: null },
      request_id: 'req-1',
      correlation_id: 'req-1',
      causation_id: 'req-1',
    });
    expect(Object.keys(entry.data)).toEqual(Object.keys(EVENT_CATALOGUE['Lease.Created'].fields));
    expect(entry.data['reservations']).toEqual([
      { id: 'res-1', resource_type: 'physical:host', min: 1, max: 1, host_ids: ['7'] },
      { id: 'res-2', resource_type: 'physical:host', min: 1, max: 1, host_ids: ['7'] },
    ]);
    expect(JSON.stringify(entry)).not.toMatch(/trust|eventIds|evt-start/);
    expect(entry.summary).not.toContain('\n');
  });

  it('names the system actor and has no request id for what Leasehold did on its own', () => {
    const entry = historyEntry({
      ...recorded(
        'Lease.Started',
        { leaseId: 'lease-1', at: '2030-01-01T10:00:00.000Z' },
        { correlationId: 'c', causationId: 'evt-9', actor: null, system: 'reactor' },
      ),
      type: 'Lease.Started',
    });
    expect(entry).toMatchObject({
      type: 'lease.started',
      actor: { user_id: null, project_id: null, system: 'reactor' },
      request_id: null,
      causation_id: 'evt-9',
    });
    expect(entry.data).toEqual({ lease_id: 'lease-1', at: '2030-01-01T10:00:00.000Z' });
  });

  it('shows the store time with six fractional digits, in UTC', () => {
    expect(recordedAtMicros('2030-06-30T23:59:59.001Z')).toBe('2030-06-30T23:59:59.001000Z');
  });

  it('knows which stored types are catalogued', () => {
    expect(isCatalogued('Host.Booked')).toBe(true);
    expect(isCatalogued('Test.Anything')).toBe(false);
  });
});
