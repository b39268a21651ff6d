import { conflict } from '#domain/index.js';
import type { EventStore } from '#event-store/event-store.port.js';
import type { ConflictPolicy } from './blazar-conflicts.js';
import type { ImportAppends } from './blazar-import.appends.js';
import { type ImportPlan, planImport, readBlazarState } from './blazar-import.plan.js';
import { checkRevision } from './blazar-revisions.js';
import { type BlazarSource, readBlazarRows } from './blazar-source.port.js';

export interface ImportOptions {
  readonly dryRun: boolean;
  readonly policy: ConflictPolicy;
}

export interface ImportOutcome {
  /** dry_run and refused wrote nothing; already_imported found every event of this import in the ledger. */
  readonly outcome: 'dry_run' | 'refused' | 'imported' | 'already_imported';
  readonly plan: ImportPlan;
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

/** Reads Blazar's database, checks it, and appends its state to the ledger as the service would have recorded it. */
export const importBlazar = async (source: BlazarSource, store: EventStore, options: ImportOptions): Promise<ImportOutcome> => {
  const revision = checkRevision(await source.revisions());
  const plan = planImport(readBlazarState(await readBlazarRows(source), revision), options.policy);
  if (options.dryRun) return { outcome: 'dry_run', plan, written: 0 };
  if (plan.refused) return { outcome: 'refused', plan, written: 0 };
  if ((await ledgerStanding(store, plan.appends)) === 'complete') return { outcome: 'already_imported', plan, written: 0 };
  let written = 0;
  for (const requests of plan.appends.appends) {
    // a re-run after an import cut short finds the first appends stored: the store skips them (same ids)
    const result = await store.appendMultiple(requests);
    if (!result.idempotentReplay) written += requests.reduce((sum, r) => sum + r.events.length, 0);
  }
  return { outcome: 'imported', plan, written };
};
