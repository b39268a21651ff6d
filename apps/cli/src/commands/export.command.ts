import { type CliCommand, positionArgument } from './cli-command.js';

/** `leasehold export`: the public events of the whole log (or after a position), in log order, up to the head when it started. */
export const exportCommand: CliCommand = {
  register(program, context) {
    program
      .command('export')
      .description('write the public events of the log as NDJSON (one JSON object per line, in log order), up to the head at the start')
      .option('--from-position <n>', 'only the events after position n; pass the last position you exported to resume', positionArgument, 0)
      .action(async (options: { readonly fromPosition: number }) => {
        const { runExport } = await import('./export.run.js');
        await runExport(context, options.fromPosition);
      });
  },
};
