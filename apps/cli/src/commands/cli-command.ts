import { type Command, InvalidArgumentError } from 'commander';
import type { CliContext } from '../cli-context.js';

/** One subcommand: adds itself (options, --help text, action) to the program. */
export interface CliCommand {
  register(program: Command, context: CliContext): void;
}

/** A position (whole number, 0 or more); anything else is commander's one-line usage error. */
export const positionArgument = (value: string): number => {
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) throw new InvalidArgumentError('expected a whole number, 0 or more.');
  return Number(value);
};
