import type { CliCommand } from './cli-command.js';

/** `leasehold backup <file>`: a consistent copy of the event log, taken while the service writes to it. */
export const backupCommand: CliCommand = {
  register(program, context) {
    program
      .command('backup')
      .description(
        "copy the event log (events.sqlite) to <file> while the service runs: one consistent snapshot (SQLite's online backup), " +
          'written to <file>.partial and renamed when complete. On PostgreSQL it prints the pg_dump command to run instead',
      )
      .argument('<file>', 'where the backup goes; refused if it exists')
      .option('--force', 'replace <file> if it exists')
      .action(async (file: string, options: { readonly force?: boolean }) => {
        const { runBackup } = await import('./backup.run.js');
        await runBackup(context, file, options.force === true);
      });
  },
};
