import { type CliCommand, positionArgument } from './cli-command.js';

/** `leasehold restore <file>`: a backup becomes the event log of an empty data folder, then the folder is verified. */
export const restoreCommand: CliCommand = {
  register(program, context) {
    program
      .command('restore')
      .description(
        'restore a backup made by `leasehold backup` into an empty data folder (--data-dir or LEASEHOLD_DATA_DIR): copy its events, ' +
          'build the read model from them, then run the checks of `leasehold verify`. On PostgreSQL it prints the pg_restore command instead',
      )
      .argument('<file>', 'the backup')
      .option(
        '--to-position <n>',
        'restore the ledger as it was at position n: the events up to and including n, with their positions, ids and timestamps',
        positionArgument,
      )
      .action(async (file: string, options: { readonly toPosition?: number }) => {
        const { runRestore } = await import('./restore.run.js');
        await runRestore(context, file, options.toPosition ?? null);
      });
  },
};
