/** One Server-Sent Event as a client receives it, with when it arrived (performance.now()). */
export interface SseMessage {
  readonly id: string | null;
  readonly event: string;
  readonly data: string;
  readonly receivedAt: number;
}

/**
 * A minimal EventSource over fetch (Node has none): parses the stream as the WHATWG spec says for
 * the fields Leasehold sends (id, event, data, comments), keeps every message, and lets a caller wait
 * for the one it expects. Tests and the bench share it.
 */
export class SseClient {
  readonly messages: SseMessage[] = [];
  comments = 0;
  private ended = false;
  private failure: Error | null = null;
  private readonly listeners = new Set<() => void>();

  private constructor(
    readonly response: Response,
    private readonly abort: AbortController,
  ) {}

  /** Connects; the stream is read in the background once the answer is a 200. */
  static async open(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
    const abort = new AbortController();
    const response = await fetch(url, { headers: { Accept: 'text/event-stream', ...headers }, signal: abort.signal });
    const client = new SseClient(response, abort);
    if (response.status === 200 && response.body !== null) void client.read(response.body);
    return client;
  }

  get closed(): boolean {
    return this.ended;
  }

  /** Resolves with the first message (in arrival order) that `matches`, or fails after `timeoutMs`. */
  async waitFor(matches: (message: SseMessage) => boolean, timeoutMs = 10_000): Promise<SseMessage> {
    return this.until(() => this.messages.find(matches), timeoutMs, 'an event');
  }

  /** Resolves once `count` messages that `match` have arrived. */
  async waitForCount(matches: (message: SseMessage) => boolean, count: number, timeoutMs = 10_000): Promise<void> {
    await this.until(() => (this.messages.filter(matches).length >= count ? true : undefined), timeoutMs, `${count} matching events`);
  }

  /** Resolves once the server has ended the stream. */
  async waitForEnd(timeoutMs = 10_000): Promise<void> {
    await this.until(() => (this.ended ? true : undefined), timeoutMs, 'the end of the stream');
  }

  /** Resolves once `count` comment lines (heartbeats) have arrived. */
  async waitForComments(count: number, timeoutMs = 10_000): Promise<void> {
    await this.until(() => (this.comments >= count ? true : undefined), timeoutMs, `${count} comment(s)`);
  }

  close(): void {
    this.abort.abort();
  }

  private until<T>(found: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        const value = found();
        if (value !== undefined) return finish(() => resolve(value));
        const failure = this.failure;
        if (failure !== null) return finish(() => reject(failure));
        if (this.ended) return finish(() => reject(new Error(`stream ended before ${what}`)));
      };
      const timer = setTimeout(() => finish(() => reject(new Error(`timed out waiting for ${what}`))), timeoutMs);
      const finish = (settle: () => void): void => {
        clearTimeout(timer);
        this.listeners.delete(check);
        settle();
      };
      this.listeners.add(check);
      check();
    });
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of body) {
        buffer += decoder.decode(chunk, { stream: true });
        const blocks = buffer.split(/\r\n\r\n|\n\n|\r\r/);
        buffer = blocks.pop() ?? '';
        for (const block of blocks) this.take(block);
        this.notify();
      }
    } catch (error) {
      if (!this.abort.signal.aborted) this.failure = error instanceof Error ? error : new Error(String(error));
    }
    this.ended = true;
    this.notify();
  }

  private take(block: string): void {
    let id: string | null = null;
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split(/\r\n|\n|\r/)) {
      if (line.startsWith(':')) this.comments++;
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const value = line.slice(colon + 1).replace(/^ /, '');
      const field = line.slice(0, colon);
      if (field === 'id') id = value;
      else if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length > 0) this.messages.push({ id, event, data: data.join('\n'), receivedAt: performance.now() });
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
