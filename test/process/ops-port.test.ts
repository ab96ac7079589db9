// The operations listener follows the API's port unless OPS_PORT is set: PORT + 6090 (9090 for
// the default 3000). Two nodes on one machine given different PORTs and no OPS_PORT both start,
// each with its own /metrics.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { createTestDatabase, type TestDatabase } from '../harness/engines.ts';
import { startServerProcess, type ServerProcess } from '../harness/process.ts';
import { OPS_PORT_OFFSET } from '../../src/config.ts';

const free = (port: number) =>
  new Promise<boolean>((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });

/** A free port whose operations port (PORT + 6090) is free too. */
async function portPair(avoid: number[]): Promise<number> {
  for (let port = 20_000 + Math.floor(Math.random() * 20_000); ; port++) {
    if (avoid.includes(port) || avoid.includes(port + OPS_PORT_OFFSET)) continue;
    if ((await free(port)) && (await free(port + OPS_PORT_OFFSET))) return port;
  }
}

describe('the operations port follows PORT', () => {
  let database: TestDatabase | undefined;
  const nodes: ServerProcess[] = [];
  after(async () => {
    for (const node of nodes) await node.kill();
    await database?.drop();
  });

  it('two nodes on one machine with different PORTs and no OPS_PORT both start, each with its own operations listener', async () => {
    database = await createTestDatabase('sqlite');
    const first = await portPair([]);
    const second = await portPair([first, first + OPS_PORT_OFFSET]);
    for (const port of [first, second]) {
      nodes.push(await startServerProcess({ database, env: { PORT: String(port), OPS_PORT: undefined } }));
    }
    for (const [i, port] of [first, second].entries()) {
      assert.equal(nodes[i].opsUrl, `http://127.0.0.1:${port + OPS_PORT_OFFSET}`);
      const metrics = await fetch(`${nodes[i].opsUrl}/metrics`);
      assert.equal(metrics.status, 200);
      assert.match(await metrics.text(), /cds_http_requests_total/);
    }
  });
});
