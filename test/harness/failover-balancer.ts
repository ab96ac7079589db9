// A small loopback TCP balancer in front of several server processes, as a load balancer with
// passive failover behaves: each new client connection goes to the next node in turn; a node that
// refuses the connection (it is down) is skipped for the next one; any other upstream failure (a
// node dying mid-request) resets the client's connection, so the client sees the failure and may
// retry. Connections are pinned to one node for their lifetime (keep-alive included).
import net from 'node:net';

export interface FailoverBalancer {
  port: number;
  url: string;
  /** client connections reset because their node failed */
  readonly resets: number;
  close(): Promise<void>;
}

export async function startFailoverBalancer(upstreamPorts: number[]): Promise<FailoverBalancer> {
  const open = new Set<net.Socket>();
  let turn = 0;
  let resets = 0;

  const server = net.createServer((client) => {
    open.add(client);
    client.pause();
    const first = turn++ % upstreamPorts.length;
    let tried = 0;
    let upstream: net.Socket | undefined;
    const reset = () => {
      if (client.destroyed) return;
      resets++;
      client.resetAndDestroy();
    };
    client.on('error', () => upstream?.destroy());
    client.on('close', () => {
      open.delete(client);
      upstream?.destroy();
    });
    const connect = () => {
      const socket = net.connect(upstreamPorts[(first + tried) % upstreamPorts.length], '127.0.0.1');
      upstream = socket;
      open.add(socket);
      let connected = false;
      socket.once('connect', () => {
        connected = true;
        socket.pipe(client);
        client.pipe(socket);
        client.resume();
      });
      socket.on('error', (err: NodeJS.ErrnoException) => {
        open.delete(socket);
        if (!connected && err.code === 'ECONNREFUSED' && ++tried < upstreamPorts.length && !client.destroyed) return connect();
        reset();
      });
      socket.on('close', () => open.delete(socket));
    };
    connect();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    get resets() {
      return resets;
    },
    close() {
      for (const socket of open) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A loopback port free at the time of the call (for a process that must come back on the same port). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
