import { mkdirSync } from 'node:fs';
import { CONFLICT_POLICIES, type ConflictPolicy } from '#application/blazar-import/blazar-conflicts.js';
import { importReport } from '#application/blazar-import/blazar-import.report.js';
import { planBlazarImport, writeImport } from '#application/blazar-import/blazar-import.use-case.js';
import { openBlazarSource } from '#application/blazar-import/sources/open-blazar-source.js';
import { openEventStore } from '#event-store/open-event-store.js';
import { type CliContext, UsageError, writeOut } from '../cli-context.js';

export interface ImportBlazarOptions {
  readonly database: string;
  readonly dryRun: boolean;
  readonly onConflict: string;
}

const policyOf = (value: string): ConflictPolicy => {
  const policy = CONFLICT_POLICIES.find((p) => p === value);
  if (policy === undefined) throw new UsageError(`--on-conflict must be one of ${CONFLICT_POLICIES.join(', ')}`);
  return policy;
};

/** The work of `leasehold import-blazar`: the service's own event store (LEASEHOLD_EVENT_STORE_URL, else the data folder's), written. */
export const runImportBlazar = async (context: CliContext, options: ImportBlazarOptions): Promise<void> => {
  const policy = policyOf(options.onConflict);
  const source = await openBlazarSource(options.database);
  const plan = await planBlazarImport(source, policy).finally(() => source.close());
  if (options.dryRun || plan.refused) {
    await writeOut(context.stdout, importReport(plan, 'would import', true));
    if (plan.refused) context.exitCode = 1;
    return;
  }
  mkdirSync(context.dataDir(), { recursive: true });
  const store = await openEventStore('events', context.dataDir(), context.env);
  try {
    const { outcome, written } = await writeImport(plan, store);
    const verb = outcome === 'imported' ? 'imported' : 'already imported';
    await writeOut(context.stdout, `${importReport(plan, verb, false)}${written} events written\n`);
  } finally {
    await store.close();
  }
};
