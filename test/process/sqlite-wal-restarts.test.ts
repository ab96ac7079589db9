// A large import on SQLite lets the WAL start again between its slices (Db.walCaughtUp,
// src/storage/db/sqlite-checkpoints.ts): a server started as a deployment starts it (a child process
// on a data folder, its checkpoint thread on) imports 20,000 SARIF results, which it writes in
// slices; the WAL file, which SQLite reuses from its beginning once a checkpoint has copied all of
// it and never shrinks, ends as large as the most the WAL ever held. Before, the slices committed
// back to back, no slice began while the WAL was wholly copied, and the WAL held every page the
// import wrote (in a 100,000-result import, 57,937 pages, and past 16,384 each commit checkpointed
// on the event loop: docs/benchmarks.md).
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { printedToken, startServerProcess, type ServerProcess } from '../harness/process.ts';
import { resultAt, sarif } from '../harness/vulnerability-imports.ts';

const RESULTS = 20_000;
/**
 * The most the WAL may reach: 27.8 MiB with the restarts on an idle machine, 49.1 MiB on a busy one
 * (a slice that waited its second for the checkpoint and began without it), and 76.8 MiB without
 * the restarts, whatever the machine: the whole import's pages.
 */
const WAL_MAX_BYTES = 64 * 1024 * 1024;

describe('SQLite: the WAL starts again between a large import’s slices', () => {
  let server: ServerProcess | undefined;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-wal-'));
  after(async () => {
    await server?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test(`an import of ${RESULTS.toLocaleString('en-US')} results leaves the WAL within ${WAL_MAX_BYTES / 1024 / 1024} MiB`, async () => {
    server = await startServerProcess({ demoOnEmpty: true, env: { DATA_DIR: dataDir, OPS_PORT: 'off' }, startTimeoutMs: 50_000 });
    const token = await printedToken(server);
    const file = sarif(Array.from({ length: RESULTS }, (_, n) => resultAt(`wal/file-${n % 500}.js`, n + 1)));
    const answer = await fetch(`${server.url}/v1/vulnerabilities/imports?format=sarif&scope=wal`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/sarif+json', 'idempotency-key': randomUUID() },
      body: file,
    });
    const body = (await answer.json()) as { data: { created: number } };
    assert.equal(answer.status, 200, JSON.stringify(body));
    assert.equal(body.data.created, RESULTS);
    const wal = fs.statSync(path.join(dataDir, 'cds.sqlite-wal')).size;
    assert.ok(wal <= WAL_MAX_BYTES, `the WAL grew to ${(wal / 1024 / 1024).toFixed(1)} MiB during the import`);
  });
});
