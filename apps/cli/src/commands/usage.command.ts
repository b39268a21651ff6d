import { Option } from 'commander';
import { GROUP_BY } from '#application/usage/usage-groups.js';
import { type CliCommand, positionArgument } from './cli-command.js';
import type { UsageOptions } from './usage.run.js';

/**
 * `leasehold usage --from --to`: the report GET /v1/usage gives an admin, computed from the service's
 * log directly (the same fold and rate cards), for auditors who bill from the data folder.
 */
export const usageCommand: CliCommand = {
  register(program, context) {
    program
      .command('usage')
      .description(
        'print a usage report (host, instance, vCPU, memory, disk, floating-IP and network segment hours), as GET /v1/usage answers an admin',
      )
      .requiredOption('--from <date>', "window start, inclusive: 'YYYY-MM-DD HH:MM' (UTC) or ISO 8601")
      .requiredOption('--to <date>', 'window end, exclusive; same forms')
      .option('--project <project-id>', "only this project's usage (default: every project)")
      .addOption(new Option('--group-by <group>', 'one line per group and resource type').choices([...GROUP_BY]).default('project'))
      .option('--rate-card <name[:version]>', 'price with this rate card (the version in effect at --from, or the one named)')
      .option('--as-of-position <n>', 'compute at this log position, to reproduce an earlier report (default: the head)', positionArgument)
      .option('--until <date>', 'count running leases up to this instant, to reproduce an earlier report (default: now); same forms')
      .addOption(
        new Option('--format <format>', 'json: the HTTP body, byte for byte; csv: RFC 4180 with a totals row; table: aligned columns')
          .choices(['table', 'csv', 'json'])
          .default('table'),
      )
      .action(async (options: UsageOptions) => {
        const { runUsage } = await import('./usage.run.js');
        await runUsage(context, options);
      });
  },
};
