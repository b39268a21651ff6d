/** What stopped an operation's work: its time, the rows it read, or its client leaving. */
export type StopCause = 'time' | 'rows' | 'gone';

export class OperationStopped extends Error {
  constructor(
    readonly why: StopCause,
    readonly limit: number,
  ) {
    super(`operation stopped (${why})`);
    this.name = 'OperationStopped';
  }
}

export interface BudgetLimits {
  readonly timeoutMs: number;
  readonly maxRows: number;
}

/**
 * How long an operation's reads may follow one another before the event loop serves others: an
 * operation of many cheap reads (SQLite answers synchronously) would otherwise hold it for its whole run.
 */
const SLICE_MS = 10;

const nextTurnOfTheLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * One operation's execution budget. Its reads run one after another through `read`, each checking
 * the budget before it starts and counting the rows it returned, so once the time or the rows are
 * spent (or `stop` was called: the client left) no further read starts, and the resolvers waiting on
 * one get the reason instead. One at a time also makes the count exact before the next read decides.
 */
export class OperationBudget {
  private readonly controller = new AbortController();
  private readonly deadline: number;
  private readonly timer: NodeJS.Timeout;
  private rows = 0;
  private turn: Promise<unknown> = Promise.resolve();
  private sliceStart: number;
  private stopping: Promise<never> | undefined;

  constructor(
    private readonly limits: BudgetLimits,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.deadline = now() + limits.timeoutMs;
    this.sliceStart = now();
    // a read waiting on something else (the read models catching up) is stopped on time too
    this.timer = setTimeout(() => this.stop(new OperationStopped('time', limits.timeoutMs)), limits.timeoutMs);
    this.timer.unref();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get rowsRead(): number {
    return this.rows;
  }

  /** The reason the work was stopped, or null while it may go on. */
  get stopped(): OperationStopped | null {
    return this.signal.aborted ? (this.signal.reason as OperationStopped) : null;
  }

  /** Stops the work for this reason (the first reason stays). */
  stop(reason: OperationStopped): void {
    clearTimeout(this.timer);
    if (!this.signal.aborted) this.controller.abort(reason);
  }

  /** The operation ended: its clock stops. */
  finish(): void {
    clearTimeout(this.timer);
  }

  /** Runs one read after the reads asked for before it, if the budget is not spent, and counts its rows. */
  read<T>(run: () => Promise<T>, rowsOf: (value: T) => number): Promise<T> {
    const result = this.turn.then(async () => {
      await this.breathe();
      this.check();
      const value = await run();
      this.rows += rowsOf(value);
      if (this.rows > this.limits.maxRows) this.stop(new OperationStopped('rows', this.limits.maxRows));
      this.signal.throwIfAborted();
      return value;
    });
    this.turn = result.catch(() => undefined);
    return result;
  }

  /** A wait that is not a read (the read models catching up), given up as soon as the work is stopped. */
  unlessStopped<T>(waiting: Promise<T>): Promise<T> {
    this.check();
    this.stopping ??= new Promise<never>((_, reject) => {
      this.signal.addEventListener('abort', () => reject(this.signal.reason as Error), { once: true });
    });
    this.stopping.catch(() => undefined);
    return Promise.race([waiting, this.stopping]);
  }

  private check(): void {
    if (!this.signal.aborted && this.now() >= this.deadline) this.stop(new OperationStopped('time', this.limits.timeoutMs));
    this.signal.throwIfAborted();
  }

  private async breathe(): Promise<void> {
    if (this.now() - this.sliceStart < SLICE_MS) return;
    await nextTurnOfTheLoop();
    this.sliceStart = this.now();
  }
}

const budgets = new WeakMap<object, OperationBudget>();

/** The budget given to an operation, by the context object every resolver of it is handed. */
export const budgetOf = (context: object): OperationBudget | undefined => budgets.get(context);

export const giveBudget = (context: object, budget: OperationBudget): void => {
  budgets.set(context, budget);
};
