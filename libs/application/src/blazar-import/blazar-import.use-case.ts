import { conflict } from '#domain/index.js';
import type { EventStore } from '#event-store/event-store.port.js';
import type { ConflictPolicy } from './blazar-conflicts.js';
import type { ImportAppends } from './blazar-import.appends.js';
import { type ImportPlan, planImport, readBlazarState } from './blazar-import.plan.js';
import { checkRevision } from './blazar-revisions.js';
import { type BlazarSource, readBlazarRows } from './blazar-source.port.js';

export interface ImportWritten {
  /** already_imported: every event of this import was in the ledger already, and nothing was written. */
  readonly outcome: 'imported' | 'already_imported';
  readonly written: number;
}

const isPrefix = (prefix: readonly string[], of: readonly string[]): boolean => prefix.every((id, i) => of[i] === id);

/**
 * Where the ledger stands against this import: empty, holding all of it (a re-run), or part of it (an import
 * cut short, which the re-run completes). Anything else is not this import's ledger: refused.
 */
const ledgerStanding = async (store: EventStore, appends: ImportAppends): Promise<'empty' | 'complete' | 'partial'> => {
  const head = await store.headPosition();
  if (head === 0) return 'empty';
  let complete = true;
  let found = false;
  for (const [streamId, planned] of appends.streams()) {
    const stored = (await store.readStream(streamId)).map((e) => e.id);
    if (stored.length > 0) found = true;
    if (isPrefix(planned, stored)) continue;
    if (!isPrefix(stored, planned)) {
      throw conflict(
        'LEDGER_NOT_EMPTY',
        `The ledger already holds ${head} events that are not this import's: Leasehold imports into an empty ledger only`,
      );
    }
    complete = false;
  }
  if (!found) throw conflict('LEDGER_NOT_EMPTY', `The ledger already holds ${head} events: Leasehold imports into an empty ledger only`);
  return complete ? 'complete' : 'partial';
};

/** Reads Blazar's database and checks it: what the ledger would hold, and what breaks its rules. Writes nothing. */
export const planBlazarImport = async (source: BlazarSource, policy: ConflictPolicy): Promise<ImportPlan> => {
  const revision = checkRevision(await source.revisions());
  const state = readBlazarState(await readBlazarRows(source), revision);
  return planImport({ ...state, notes: [...source.notes, ...state.notes] }, policy);
};

/** Appends the plan's events as the service would have recorded them; a plan the policy refused is never written. */
export const writeImport = async (plan: ImportPlan, store: EventStore): Promise<ImportWritten> => {
  if (plan.refused) throw conflict('IMPORT_REFUSED', "The import found data that breaks the ledger's rules (--on-conflict=refuse)");
  if ((await ledgerStanding(store, plan.appends)) === 'complete') return { outcome: 'already_imported', written: 0 };
  let written = 0;
  for (const requests of plan.appends.appends) {
    // a re-run after an import cut short finds the first appends stored: the store skips them (same ids)
    const result = await store.appendMultiple(requests);
    if (!result.idempotentReplay) written += requests.reduce((sum, r) => sum + r.events.length, 0);
  }
  return { outcome: 'imported', written };
};
