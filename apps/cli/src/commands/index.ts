import { backupCommand } from './backup.command.js';
import type { CliCommand } from './cli-command.js';
import { exportCommand } from './export.command.js';
import { historyCommand } from './history.command.js';
import { importBlazarCommand } from './import-blazar.command.js';
import { queueCommand } from './queue.command.js';
import { restoreCommand } from './restore.command.js';
import { usageCommand } from './usage.command.js';
import { verifyCommand } from './verify.command.js';

/** Every subcommand, in --help order; a new one is a file in this folder and a line here. */
export const CLI_COMMANDS: readonly CliCommand[] = [
  usageCommand,
  historyCommand,
  queueCommand,
  exportCommand,
  verifyCommand,
  backupCommand,
  restoreCommand,
  importBlazarCommand,
];
