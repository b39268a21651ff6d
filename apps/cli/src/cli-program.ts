import { Command, CommanderError } from 'commander';
import { type CliIo, UsageError, cliContext } from './cli-context.js';
import { CLI_COMMANDS } from './commands/index.js';

const USAGE_ERROR = 2;

const program = (io: CliIo): { program: Command; exitCode: () => number } => {
  const root = new Command('leasehold')
    .description(
      'Read the Leasehold ledger directly, back it up and restore it, for auditors and operators. The reading commands and backup ' +
        'never write to it: the event store is opened read-only and the read model is copied, so the service may keep running.',
    )
    .option('--data-dir <dir>', "the service's data folder (default: LEASEHOLD_DATA_DIR, else ./data)")
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      outputError: (text, write) => write(`leasehold: ${text.replace(/^error: /, '')}`),
    });
  const context = cliContext(io, () => root.opts<{ dataDir?: string }>());
  for (const command of CLI_COMMANDS) command.register(root, context);
  return { program: root, exitCode: () => context.exitCode };
};

/** Runs one command line; resolves to the process exit code (0 ok, 1 failed or differences found, 2 a usage error). */
export const runCli = async (argv: readonly string[], io: CliIo): Promise<number> => {
  const cli = program(io);
  try {
    await cli.program.parseAsync([...argv], { from: 'user' });
    return cli.exitCode();
  } catch (error) {
    // commander has printed its own message (or the help) already
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : USAGE_ERROR;
    const { describeError } = await import('#domain/shared/errors.js');
    io.stderr.write(`leasehold: ${describeError(error)}\n`);
    return error instanceof UsageError ? USAGE_ERROR : 1;
  }
};
