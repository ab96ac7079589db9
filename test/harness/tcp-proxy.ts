// A loopback TCP proxy in front of PostgreSQL or Redis, so a test can make a real outage of the
// path to a shared dependency without stopping it: `cut()` destroys every open connection and
// closes each new one at once (the port stays bound, so `restore()` needs no rebinding);
// `restore()` lets connections through again.
import net from 'node:net';

export interface TcpProxy {
  /** the loopback port clients connect to */
  port: number;
  /** true between cut() and restore() */
  readonly isCut: boolean;
  /** connections accepted since start (forwarded or refused) */
  readonly accepted: number;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<net.Socket>();
  let isCut = false;
  let accepted = 0;

  const server = net.createServer((client) => {
    accepted++;
    if (isCut) {
      client.destroy();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    open.add(client);
    open.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;

  const destroyAll = () => {
    for (const socket of open) socket.destroy();
    open.clear();
  };

  return {
    port,
    get isCut() {
      return isCut;
    },
    get accepted() {
      return accepted;
    },
    cut() {
      isCut = true;
      destroyAll();
    },
    restore() {
      isCut = false;
    },
    close() {
      isCut = true;
      destroyAll();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** host and port of a postgres:// or redis:// URL */
export function targetOf(url: string, defaultPort: number): { host: string; port: number } {
  const u = new URL(url);
  return { host: u.hostname || '127.0.0.1', port: u.port ? Number(u.port) : defaultPort };
}

/** The same URL with its host and port replaced by the proxy's. */
export function viaProxy(url: string, proxy: Pick<TcpProxy, 'port'>): string {
  const u = new URL(url);
  u.hostname = '127.0.0.1';
  u.port = String(proxy.port);
  return u.toString();
}
