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

/**
 * A write to a pipe of at most PIPE_BUF bytes (4096 on Linux) is never split, so a batch of at most this
 * many bytes never has a line of another writer to the same stdout (the synchronous logs) inside it.
 */
const PIPE_BUF = 4096;

/** How a batched log writes: after `batchBytes` wait or `waitMs` passed; beyond `maxWaitingBytes` waiting, lines are dropped. */
export interface BatchLimits {
  readonly batchBytes: number;
  readonly waitMs: number;
  readonly maxWaitingBytes: number;
}

/** What a SIGKILL can lose of a batched log, stdout read: under 2 KiB of lines, at most the last second's. */
export const ACCESS_LOG_BATCH: BatchLimits = { batchBytes: PIPE_BUF / 2, waitMs: 1_000, maxWaitingBytes: 4 * 1024 * 1024 };

export interface BatchedLog {
  readonly logger: Logger;
  /** Writes every waiting line now, synchronously: before the process ends, since a death by signal runs no exit hook. */
  flush(): void;
}

/**
 * jsonLogger's lines written by the event loop in batches (never a synchronous write per line): for the
 * many lines whose order against the other logs does not matter, the access log's. A reader of stdout
 * that stops reading costs memory up to `maxWaitingBytes`, then lines are dropped and, once writes go
 * through again, counted in `dropped`.
 */
export const batchedJsonLogger = (
  fields: Readonly<Record<string, string>>,
  dropped: (lines: number) => void,
  limits: BatchLimits = ACCESS_LOG_BATCH,
  fd = 1,
): BatchedLog => {
  const destination = pino.destination({
    dest: fd,
    sync: false,
    minLength: limits.batchBytes,
    maxWrite: PIPE_BUF,
    periodicFlush: limits.waitMs,
    maxLength: limits.maxWaitingBytes,
  });
  let lost = 0;
  destination.on('drop', () => lost++);
  destination.on('write', () => {
    if (lost > 0) dropped(lost);
    lost = 0;
  });
  return { logger: jsonLogger(fields, destination), flush: () => destination.flushSync() };
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
