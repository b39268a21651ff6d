import { Option } from 'commander';
import type { CliCommand } from './cli-command.js';

/** The --on-conflict choices as help shows them; the import's own list (CONFLICT_POLICIES) is loaded by the run only. */
const ON_CONFLICT = ['refuse', 'keep-first', 'skip-all'];

/** `leasehold import-blazar`: a running Blazar's database, imported into an empty ledger. */
export const importBlazarCommand: CliCommand = {
  register(program, context) {
    program
      .command('import-blazar')
      .description(
        "import a Blazar database (alembic revisions from Zed's to the current release's) into an empty ledger: hosts, floating IPs, " +
          'leases with their reservations, allocations and events, ids kept. Writes to the ledger; a re-run of the same import writes nothing',
      )
      .requiredOption(
        '--database <url>',
        "Blazar's [database]connection: sqlite:///<file>, postgresql://user:password@host/blazar or mysql+pymysql://user:password@host/blazar",
      )
      .option('--dry-run', 'print what would be imported and every inconsistency found; write nothing', false)
      .addOption(
        new Option(
          '--on-conflict <choice>',
          "what to do with data that breaks the ledger's rules (double bookings, inverted dates, references to nothing): " +
            'refuse writes nothing; keep-first keeps the lease Blazar created first and leaves out the later ones; ' +
            'skip-all leaves out every lease of a double booking',
        )
          .choices(ON_CONFLICT)
          .default('refuse'),
      )
      .action(async (options: { readonly database: string; readonly dryRun: boolean; readonly onConflict: string }) => {
        const { runImportBlazar } = await import('./import-blazar.run.js');
        await runImportBlazar(context, options);
      });
  },
};
