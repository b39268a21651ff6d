import { type CliCommand, positionArgument } from './cli-command.js';

/** How many differences verify prints by default (restore prints as many). */
export const SHOWN_DIFFERENCES = 100;

/** `leasehold verify`: replays the whole log into a scratch read model and compares it with the live one, table by table. */
export const verifyCommand: CliCommand = {
  register(program, context) {
    program
      .command('verify')
      .description(
        'replay the whole log into a scratch read model (each projection up to the live checkpoint) and compare every table with the live read model; ' +
          'prints the differences and exits 1 if there is any. Reads a copy: the service may keep running',
      )
      .option('--max-differences <n>', 'print at most n differences (all are counted)', positionArgument, SHOWN_DIFFERENCES)
      .action(async (options: { readonly maxDifferences: number }) => {
        const { runVerify } = await import('./verify.run.js');
        await runVerify(context, options.maxDifferences);
      });
  },
};
