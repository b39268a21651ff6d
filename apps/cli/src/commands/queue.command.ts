import { Option } from 'commander';
import type { CliCommand } from './cli-command.js';
import type { QueueOptions } from './queue.run.js';

/** `leasehold queue`: the lease requests still waiting, head first, as an operator reads them off the log. */
export const queueCommand: CliCommand = {
  register(program, context) {
    program
      .command('queue')
      .description('list the queued lease requests, head first: rank, id, project, name, reservations, duration, window, submitted')
      .option('--project <id>', "only this project's requests (their ranks stay those of the whole queue)")
      .addOption(
        new Option('--format <format>', 'table: one aligned row per request; json: {"lease_requests": [...]}, the same fields')
          .choices(['table', 'json'])
          .default('table'),
      )
      .action(async (options: QueueOptions) => {
        const { runQueue } = await import('./queue.run.js');
        await runQueue(context, options);
      });
  },
};
