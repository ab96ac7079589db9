// A Redis server of the test's own (a child `redis-server` on a free loopback port, nothing
// saved), so a test can stop and restart Redis without touching the machine's shared one.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { freePort } from './failover-balancer.ts';

export const REDIS_SERVER = process.env.REDIS_SERVER_PATH ?? '/usr/bin/redis-server';

export interface OwnRedis {
  port: number;
  url: string;
  /** stops the server (SIGTERM) and waits for its exit */
  stop(): Promise<void>;
  /** starts it again on the same port and waits until it accepts connections */
  start(): Promise<void>;
}

export const redisServerAvailable = () => fs.existsSync(REDIS_SERVER);

export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    const deadline = Date.now() + 10_000;
    for (;;) {
      const up = await new Promise<boolean>((resolve) => {
        const socket = net.connect(port, '127.0.0.1');
        socket.once('connect', () => {
          socket.end('PING\r\n');
          resolve(true);
        });
        socket.once('error', () => resolve(false));
      });
      if (up) return;
      if (Date.now() > deadline) throw new Error(`redis-server did not start on port ${port}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const stop = async () => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((resolve) => c.once('exit', resolve));
    c.kill('SIGTERM');
    await exited;
  };
  await start();
  return { port, url: `redis://127.0.0.1:${port}`, stop, start };
}
