import { Option } from 'commander';
import type { CliCommand } from './cli-command.js';
import type { HistoryFormat } from './history.run.js';

/** `leasehold history <lease>`: the lease's history exactly as GET /v1/leases/{id}/history answers it (as an admin). */
export const historyCommand: CliCommand = {
  register(program, context) {
    program
      .command('history')
      .description('print the history of a lease: its events and its bookings in log order, as GET /v1/leases/{id}/history answers it')
      .argument('<lease>', 'lease id, or its current name (a name several leases share is refused with their ids)')
      .addOption(
        new Option('--format <format>', 'json: the HTTP body, byte for byte; table: one aligned row per event')
          .choices(['json', 'table'])
          .default('json'),
      )
      .action(async (lease: string, options: { readonly format: HistoryFormat }) => {
        const { runHistory } = await import('./history.run.js');
        await runHistory(context, lease, options.format);
      });
  },
};
