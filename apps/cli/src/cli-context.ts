import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import type { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';

/** The command line itself is wrong (an option, a lease that is not there): one line on stderr, exit 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export interface CliIo {
  readonly env: NodeJS.ProcessEnv;
  readonly stdout: Writable;
  /** A terminal (isTTY) gets progress bars; a pipe or a file never does. */
  readonly stderr: Writable & { readonly isTTY?: boolean };
}

/** What every subcommand is given: where the service keeps its data, and how to read it without writing. */
export interface CliContext extends CliIo {
  /** Set by a command that ran but must report failure (verify found differences). */
  exitCode: number;
  dataDir(): string;
  /** The service's event store, opened read-only; loaded then, so that a command that opens none never reads SQLite's driver. */
  openStore(): Promise<SqliteEventStore>;
}

export const cliContext = (io: CliIo, globalOptions: () => { readonly dataDir?: string }): CliContext => {
  const dataDir = (): string => globalOptions().dataDir ?? io.env.LEASEHOLD_DATA_DIR ?? './data';
  return {
    ...io,
    exitCode: 0,
    dataDir,
    openStore: async () => {
      const file = join(dataDir(), 'events.sqlite');
      if (!existsSync(file)) throw new UsageError(`no event store at ${file} (set --data-dir or LEASEHOLD_DATA_DIR)`);
      const { SqliteEventStore } = await import('#event-store/sqlite/sqlite-event-store.js');
      return SqliteEventStore.openReadOnly({ file });
    },
  };
};

/** Writes and waits when the pipe is full, so a large export never buffers the whole log in memory. */
export const writeOut = async (stream: Writable, text: string): Promise<void> => {
  if (stream.write(text)) return;
  await new Promise<void>((resolve, reject) => {
    const done = (error?: Error): void => {
      stream.off('drain', done);
      stream.off('error', done);
      if (error === undefined) resolve();
      else reject(error);
    };
    stream.once('drain', () => done());
    stream.once('error', done);
  });
};
