// Fifteen malformed 1 MiB sign-in bodies at once no longer hold the event loop (issue 28 item 6;
// docs/security.md, "Malformed requests"). Each body holds 130,000 unknown keys; parsing and
// validating every one, and answering MiB of details, used to hold a real server's event loop for
// seconds: /healthz waited 2.8 s, and the node's heartbeat, written on the same loop, aged past
// CLAIM_LIVENESS_MS (3 s), so its peers would have taken a working node for dead. Now each body is
// refused after a pass over its first entries. The malformed-request limit is raised here, so
// that every body is read and answered rather than refused by its address.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, createTestStore, dialects, type TestDatabase } from '../harness/engines.ts';
import { startServerProcess, type ServerProcess } from '../harness/process.ts';
import { unknownKeysFilling } from '../harness/unknown-keys.ts';

const AT_ONCE = 15;
const ROUNDS = 2;
/** The longest /healthz may take meanwhile: a third of the default CLAIM_LIVENESS_MS. */
const HEALTHZ_BOUND_MS = 1000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const dialect of dialects) {
  describe(`a flood of malformed 1 MiB bodies (${dialect})`, () => {
    let database: TestDatabase;
    let node: ServerProcess;
    before(async () => {
      database = await createTestDatabase(dialect);
      node = await startServerProcess({ database, store: createTestStore('memory'), env: { MALFORMED_RATE_LIMIT_MAX: '100000' } });
    });
    after(async () => {
      await node?.kill();
      await database?.drop();
    });

    test(`${ROUNDS} rounds of ${AT_ONCE} at once: each answered 400 in under 1 KB, /healthz within ${HEALTHZ_BOUND_MS} ms throughout`, async (t) => {
      const { body } = unknownKeysFilling(1024 * 1024 - 64);
      const answered: Array<{ status: number; bytes: number }> = [];
      let polling = true;
      const health: number[] = [];
      const poller = (async () => {
        while (polling) {
          const start = performance.now();
          const res = await fetch(`${node.url}/healthz`);
          await res.arrayBuffer();
          assert.equal(res.status, 200);
          health.push(performance.now() - start);
          await sleep(10);
        }
      })();
      await sleep(100);
      try {
        for (let round = 0; round < ROUNDS; round++) {
          const answers = await Promise.all(
            Array.from({ length: AT_ONCE }, async () => {
              const res = await fetch(`${node.url}/console/api/session`, {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body,
              });
              return { status: res.status, bytes: (await res.arrayBuffer()).byteLength };
            }),
          );
          answered.push(...answers);
        }
      } finally {
        polling = false;
        await poller;
      }
      const worst = Math.max(...health);
      t.diagnostic(`/healthz: ${health.length} requests, worst ${worst.toFixed(0)} ms`);
      assert.ok(health.length >= 2, `${health.length} /healthz requests`);
      assert.ok(worst < HEALTHZ_BOUND_MS, `/healthz took ${worst.toFixed(0)} ms at worst (${health.length} requests)`);
      assert.equal(answered.length, ROUNDS * AT_ONCE);
      for (const { status, bytes } of answered) {
        assert.equal(status, 400);
        assert.ok(bytes < 1024, `an answer of ${bytes} bytes`);
      }
    });
  });
}
