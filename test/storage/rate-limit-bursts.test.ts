// Counts made in one turn of the event loop, as a burst of concurrent requests makes them: each is
// counted once, in its own window, with its own markers, and two nodes sharing a store still count
// exactly. With Redis the counts of a turn travel together in one script call of at most 256
// (src/storage/ratelimit/redis-hits.ts), so a burst larger than that spans several calls, and
// consecutive hits of one counter with the same markers are counted together (INCRBY n).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { createTestStore, stores } from '../harness/engines.ts';

const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

for (const kind of stores) {
  describe(`rate-limit counts in a burst (${kind})`, () => {
    it('600 hits in one turn over three keys: every count from 1 to n exactly once per key, never shared', async () => {
      const { store, prefix } = createTestStore(kind);
      try {
        const keys = ['api:a', 'api:b', 'api:c'];
        const hits = range(600).map((i) => store.hit(keys[i % 3], 60));
        const counts = new Map<string, number[]>(keys.map((k) => [k, []]));
        for (const [i, window] of (await Promise.all(hits)).entries()) counts.get(keys[(i + 1) % 3])!.push(window.count);
        for (const key of keys)
          assert.deepEqual(
            counts.get(key)!.sort((x, y) => x - y),
            range(200),
            `${key} (${prefix})`,
          );
      } finally {
        await store.close();
      }
    });

    it('peeks and hits of several windows in one turn each see their own window', async () => {
      const { store } = createTestStore(kind);
      try {
        const [a, b, peek, c] = await Promise.all([
          store.hit('api:w', 60),
          store.hit('api:w', 1),
          store.peek('api:w', 60),
          store.hit('api:w', 60),
        ]);
        assert.equal(a.count, 1);
        assert.equal(b.count, 1, 'a one-second window is another counter');
        assert.equal(peek.count, 1, 'a peek counts nothing and sees the hit queued before it');
        assert.equal(c.count, 2);
        assert.ok(b.resetAtMs <= a.resetAtMs && a.resetAtMs - Date.now() <= 60_000 + 1000);
      } finally {
        await store.close();
      }
    });

    if (kind === 'redis') {
      it('hits that read markers get their own markers back, absent ones as null, in a burst', async () => {
        const { store } = createTestStore(kind);
        const board = store as typeof store & { raiseMarkers(e: Array<[string, number]>, ttl: number): Promise<void> };
        try {
          await board.raiseMarkers(
            range(300).map((i) => [`marker:${i}`, i * 10] as [string, number]),
            60_000,
          );
          const reads = await Promise.all(
            range(300).map((i) => store.hitAndRead!(`api:m${i % 7}`, 60, i % 5 === 0 ? [] : [`marker:${i}`, `marker:none-${i}`])),
          );
          for (const [index, read] of reads.entries()) {
            const i = index + 1;
            assert.deepEqual(read.markers, i % 5 === 0 ? [] : [String(i * 10), null], `hit ${i}`);
          }
          const perKey = new Map<number, number[]>();
          for (const [index, read] of reads.entries())
            perKey.set((index + 1) % 7, [...(perKey.get((index + 1) % 7) ?? []), read.window.count]);
          for (const counts of perKey.values())
            assert.deepEqual(
              counts.sort((x, y) => x - y),
              range(counts.length),
            );
        } finally {
          await store.close();
        }
      });

      it("one client's burst is counted in one step: INCRBY once, its markers read once; a peek between hits keeps them apart", async () => {
        const { store, prefix } = createTestStore(kind);
        const board = store as typeof store & { raiseMarkers(e: Array<[string, number]>, ttl: number): Promise<void> };
        // Redis's MONITOR shows every command, those a script runs included, with its arguments.
        const client = new Redis(process.env.TEST_REDIS_URL!);
        const monitor = await client.monitor();
        const commands: string[][] = [];
        monitor.on('monitor', (_time: string, args: string[]) => {
          if (args.some((arg) => arg.startsWith(prefix))) commands.push(args);
        });
        try {
          await board.raiseMarkers([['marker:a', 7]], 60_000);
          await new Promise((resolve) => setTimeout(resolve, 200)); // the monitor's feed lags a little
          commands.length = 0; // the raise's own reads
          const markers = ['marker:a', 'marker:b'];
          const burst = range(100).map(() => store.hitAndRead!('api:burst', 60, markers));
          const peek = store.peek('api:burst', 60);
          const after = store.hitAndRead!('api:burst', 60, markers);
          const reads = await Promise.all(burst);
          assert.deepEqual(
            reads.map((r) => r.window.count),
            range(100),
            'each hit of the burst has the count it would have had alone, in order',
          );
          for (const read of reads) assert.deepEqual(read.markers, ['7', null]);
          assert.equal((await peek).count, 100, 'the peek sees the whole burst and counts nothing');
          assert.equal((await after).window.count, 101);
          await new Promise((resolve) => setTimeout(resolve, 200));
          const named = (name: string) => commands.filter((args) => args[0].toLowerCase() === name);
          const counting = [...named('incr'), ...named('incrby')].filter((args) => args[1].includes(':api:burst:'));
          assert.deepEqual(
            counting.map((args) => args.slice(2)),
            [['100'], ['1']],
            `commands counting the burst's key: ${counting.map((args) => args.join(' ')).join('; ')}`,
          );
          const markerReads = named('get').filter((args) => args[1].includes(':marker:'));
          assert.equal(markerReads.length, 4, 'each marker read once per item: the burst, then the hit after the peek');
        } finally {
          monitor.disconnect();
          client.disconnect();
          await store.close();
        }
      });

      it('two nodes hitting one key in the same instant count it exactly', async () => {
        const first = createTestStore(kind);
        const second = createTestStore(kind, first.prefix);
        try {
          const all = await Promise.all(range(400).map((i) => (i % 2 ? first : second).store.hit('api:shared', 60)));
          assert.deepEqual(
            all.map((w) => w.count).sort((x, y) => x - y),
            range(400),
          );
        } finally {
          await first.store.close();
          await second.store.close();
        }
      });
    }
  });
}
