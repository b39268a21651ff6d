import { type DestinationStream, type Level, type Logger, pino } from 'pino';

/**
 * JSON lines through pino: `level`, `time` (ISO-8601 UTC), the given fields (`service`, `app`),
 * then the entry's own. Written synchronously to stdout, as console.log writes to a pipe, so lines
 * keep their order and one logged right before process.exit is not lost.
 */
export const jsonLogger = (
  fields: Readonly<Record<string, string>>,
  destination: DestinationStream = pino.destination({ dest: 1, sync: true }),
): Logger => pino({ base: fields, level: 'debug', timestamp: pino.stdTimeFunctions.isoTime }, destination);

/** Output written off the main thread, and the promise of its last line. */
export interface QueuedOutput {
  readonly stream: DestinationStream;
  /** Resolves once every line written so far is out (the write in flight, then what queued behind it). */
  drain(): Promise<void>;
}

/**
 * Standard output (or a file) for a process that logs a line per request: a line is written at once unless a write is
 * in flight, which the lines after it then follow together, in order. The process drains it before it exits.
 */
export const queuedOutput = (dest: number | string = 1): QueuedOutput => {
  // minLength 1: no line waits for others, and flush() waits for the write in flight (at 0 it would not)
  const stream = pino.destination({ dest, sync: false, minLength: 1 });
  return { stream, drain: () => new Promise((resolve) => stream.flush(() => resolve())) };
};

export type LogEntry = Readonly<{ event: string; [detail: string]: unknown }>;

const LEVELS: ReadonlySet<string> = new Set<Level>(['fatal', 'error', 'warn', 'info', 'debug', 'trace']);

const levelOf = (entry: LogEntry, named: unknown): Level => {
  if (typeof named === 'string' && LEVELS.has(named)) return named as Level;
  return entry.event === 'error' ? 'error' : 'info';
};

/**
 * A process's `log(entry)`: one line per event, with `service` and `event`. An entry that names its
 * `level` is logged at it (pino writes the level itself), an `error` event at error, others at info.
 */
export const eventLog = (service: string, destination?: DestinationStream): ((entry: LogEntry) => void) => {
  const logger = jsonLogger({ service }, destination);
  return ({ level, ...entry }) => logger[levelOf(entry, level)](entry);
};
