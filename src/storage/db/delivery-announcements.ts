// Where a node hears that deliveries were enqueued anywhere (docs/decisions/events-and-webhooks.md,
// "Webhook delivery across nodes"). On PostgreSQL: one connection per node LISTENing on the channel that
// enqueuing transactions NOTIFY at commit (repositories/events/webhook-deliveries.ts), so a delivery
// enqueued on any node, or by `cds`, is claimed at once instead of at the next poll. The
// connection is re-opened after a failure; while it is down the workers still poll. On SQLite
// nothing: every process that writes the file is on this machine, and the poll covers `cds`.
import pg from 'pg';
import { DELIVERIES_CHANNEL } from './repositories/events/webhook-deliveries.ts';

export interface DeliveryAnnouncements {
  /** calls `listener` on every announcement until closed */
  start(listener: () => void): void;
  close(): Promise<void>;
}

const RECONNECT_MS = 1000;

export function openDeliveryAnnouncements(
  databaseUrl: string | undefined,
  onError: (err: Error) => void = () => {},
): DeliveryAnnouncements {
  if (!databaseUrl) return { start: () => {}, close: async () => {} };
  let client: pg.Client | undefined;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let listener: () => void = () => {};

  const connect = async () => {
    if (closed) return;
    const c = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 3000 });
    client = c;
    let failed = false;
    const retry = (err: Error) => {
      if (failed || closed) return;
      failed = true;
      onError(err);
      c.end().catch(() => {});
      timer = setTimeout(() => void connect(), RECONNECT_MS);
      timer.unref();
    };
    c.on('error', retry);
    c.on('end', () => retry(new Error('the announcement connection ended')));
    c.on('notification', (n) => {
      if (n.channel === DELIVERIES_CHANNEL) listener();
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${DELIVERIES_CHANNEL}`);
      // deliveries announced while this connection was down were missed: look now
      listener();
    } catch (err) {
      retry(err as Error);
    }
  };

  return {
    start(l) {
      listener = l;
      void connect();
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      await client?.end().catch(() => {});
    },
  };
}
