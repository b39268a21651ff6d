import pg from 'pg';

const RECONNECT_DELAY_MS = 1_000;

/**
 * One LISTEN connection per store, so subscriptions hear other processes' appends at once. It is only
 * a wake-up: a lost connection is reconnected in the background while subscriptions keep polling the
 * head, so a missed notification delays an event by one poll interval, never loses it.
 */
export class NotificationListener {
  private client: pg.Client | null = null;
  private stopped = false;
  private retry: NodeJS.Timeout | null = null;

  constructor(
    private readonly connectionString: string,
    readonly channel: string,
  ) {}

  start(onNotification: () => void): void {
    void this.connect(onNotification);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retry !== null) clearTimeout(this.retry);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async connect(onNotification: () => void): Promise<void> {
    if (this.stopped) return;
    const client = new pg.Client({ connectionString: this.connectionString });
    const reconnect = (): void => {
      if (this.client === client) this.client = null;
      void client.end().catch(() => undefined);
      if (!this.stopped && this.retry === null) {
        this.retry = setTimeout(() => {
          this.retry = null;
          void this.connect(onNotification);
        }, RECONNECT_DELAY_MS);
      }
    };
    client.on('error', reconnect);
    client.on('end', () => {
      if (!this.stopped && this.client === client) reconnect();
    });
    client.on('notification', () => onNotification());
    try {
      await client.connect();
      // the channel is our own identifier (schema names are checked), not user input
      await client.query(`LISTEN ${this.channel}`);
      if (this.stopped) {
        await client.end();
        return;
      }
      this.client = client;
      // anything committed while we were not listening is found by the next poll; wake them now
      onNotification();
    } catch {
      reconnect();
    }
  }
}
