// The blob stores, each against its real engine: local disk in a temporary directory, and the S3
// store against s3rver (an S3-protocol server, in a child process on 127.0.0.1, random port) through the
// real AWS SDK. Every behaviour is checked on both.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import v8 from 'node:v8';
import vm from 'node:vm';
import { loadConfig } from '../../src/config.ts';
import { DependencyUnavailableError } from '../../src/shared/errors.ts';
import { LocalDiskBlobStore } from '../../src/storage/blobs/local-disk.ts';
import { openBlobStore } from '../../src/storage/blobs/open.ts';
import { S3BlobStore } from '../../src/storage/blobs/s3.ts';
import { BlobNotFoundError, BlobTooLargeError, InvalidBlobKeyError, type BlobStore } from '../../src/storage/blobs/store.ts';
import { startS3rver } from '../harness/s3rver.ts';
import { blobExists } from '../harness/blobs.ts';

const MB = 1024 * 1024;
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const DATA = randomBytes(12 * MB);
const sha256 = (buf: Buffer) => createHash('sha256').update(buf).digest('hex');

/** `data` in 64 KiB chunks (optionally failing after `failAfter` bytes), as a Readable. */
function streamOf(data: Buffer, failAfter?: number, error = new Error('client went away')): Readable {
  return Readable.from(
    (async function* () {
      for (let at = 0; at < data.length; at += 64 * 1024) {
        if (failAfter !== undefined && at >= failAfter) throw error;
        yield data.subarray(at, at + 64 * 1024);
      }
    })(),
  );
}

async function collect(iterable: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const key of iterable) out.push(key);
  return out.sort();
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

interface Engine {
  name: string;
  store: BlobStore;
  /** temporary or partial data the engine holds outside any blob (must be empty after failures) */
  leftovers(): Promise<string[]>;
  /** whether the engine can show parts of an aborted multipart upload (s3rver cannot abort one) */
  checksMultipartLeftovers: boolean;
  stop(): Promise<void>;
}

async function localEngine(): Promise<Engine> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cds-blobs-'));
  const store = new LocalDiskBlobStore(path.join(dir, 'blobs'));
  await store.ping();
  return {
    name: 'local disk',
    store,
    leftovers: () => filesUnder(path.join(dir, 'blobs', '.tmp')),
    checksMultipartLeftovers: true,
    stop: async () => {
      await store.close();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

async function s3Engine(): Promise<Engine> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cds-s3rver-'));
  const bucket = 'cds-test-blobs';
  const server = await startS3rver(dir, bucket);
  const { port } = server;
  const store = new S3BlobStore({
    bucket,
    endpoint: `http://127.0.0.1:${port}`,
    region: 'us-east-1',
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    forcePathStyle: true,
  });
  await store.ping();
  return {
    name: 's3',
    store,
    // s3rver keeps the parts of multipart uploads in progress under a "…uploads" directory.
    leftovers: async () => (await filesUnder(path.join(dir, bucket))).filter((f) => /uploads/.test(f)),
    checksMultipartLeftovers: false,
    stop: async () => {
      await store.close();
      await server.stop();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

for (const makeEngine of [localEngine, s3Engine]) {
  describe(`blob store: ${makeEngine === localEngine ? 'local disk' : 's3 (s3rver)'}`, () => {
    let engine: Engine;
    let store: BlobStore;
    before(async () => {
      engine = await makeEngine();
      store = engine.store;
    });
    after(() => engine.stop());

    it('streams a multi-MB file and reports its size and SHA-256', async () => {
      const key = 'org/1/evidence/10/big';
      const result = await store.put(key, streamOf(DATA), { maxBytes: 20 * MB });
      assert.deepEqual(result, { key, size: DATA.length, sha256: sha256(DATA) });
      assert.equal(await blobExists(store, key), true);
      assert.deepEqual(await collect(store.list('org/1/evidence/10/')), [key]);
      // Replacing a blob keeps one key.
      const small = Buffer.from('hello');
      assert.equal((await store.put(key, Readable.from([small]), { maxBytes: 10 })).sha256, sha256(small));
      assert.deepEqual(await collect(store.list('org/1/evidence/10/')), [key]);
      await store.delete(key);
    });

    it('get streams a stored blob back byte for byte; a missing key errors the stream with BlobNotFoundError', async () => {
      const key = 'spool/org-1/get-back';
      await store.put(key, streamOf(DATA), { maxBytes: 20 * MB });
      const chunks: Buffer[] = [];
      for await (const chunk of store.get(key)) chunks.push(chunk as Buffer);
      const back = Buffer.concat(chunks);
      assert.equal(back.length, DATA.length);
      assert.equal(sha256(back), sha256(DATA));
      await store.delete(key);
      await assert.rejects(
        (async () => {
          for await (const _ of store.get(key));
        })(),
        (err: unknown) => err instanceof BlobNotFoundError,
      );
      assert.throws(() => store.get('../escape'), InvalidBlobKeyError);
    });

    it('an empty file is stored', async () => {
      const result = await store.put('org/1/empty', Readable.from([]), { maxBytes: 0 });
      assert.deepEqual(result, { key: 'org/1/empty', size: 0, sha256: sha256(Buffer.alloc(0)) });
      assert.equal(await blobExists(store, 'org/1/empty'), true);
      await store.delete('org/1/empty');
    });

    for (const [label, maxBytes] of [
      ['within the first part', 1 * MB],
      ['after several parts went up (multipart)', 11 * MB],
    ] as const) {
      it(`more than maxBytes ${label} → BlobTooLargeError, nothing left`, async () => {
        const key = `org/2/evidence/20/too-large-${maxBytes}`;
        const leftBefore = await engine.leftovers();
        const source = streamOf(DATA);
        await assert.rejects(store.put(key, source, { maxBytes }), (err: unknown) => {
          assert.ok(err instanceof BlobTooLargeError, String(err));
          assert.equal(err.maxBytes, maxBytes);
          return true;
        });
        assert.equal(source.destroyed, true, 'the source is not read further');
        assert.equal(await blobExists(store, key), false);
        assert.deepEqual(await collect(store.list('org/2/')), []);
        if (maxBytes < 5 * MB || engine.checksMultipartLeftovers) assert.deepEqual(await engine.leftovers(), leftBefore);
      });
    }

    it('exactly maxBytes is accepted', async () => {
      const data = DATA.subarray(0, 3 * MB + 7);
      const result = await store.put('org/2/exact', streamOf(data), { maxBytes: data.length });
      assert.equal(result.size, data.length);
      await store.delete('org/2/exact');
    });

    for (const failAfter of [1 * MB, 7 * MB]) {
      it(`a source that errors after ${failAfter / MB} MB → rejects with its error, nothing left`, async () => {
        const key = `org/3/evidence/30/broken-${failAfter}`;
        const error = new Error('client went away');
        const leftBefore = await engine.leftovers();
        await assert.rejects(store.put(key, streamOf(DATA, failAfter, error), { maxBytes: 20 * MB }), (err) => {
          assert.equal(err, error);
          return true;
        });
        assert.equal(await blobExists(store, key), false);
        assert.deepEqual(await collect(store.list('org/3/')), []);
        if (failAfter < 5 * MB || engine.checksMultipartLeftovers) assert.deepEqual(await engine.leftovers(), leftBefore);
      });
    }

    it('delete is idempotent', async () => {
      const key = 'org/4/evidence/40/a';
      await store.put(key, Readable.from([Buffer.from('x')]), { maxBytes: 10 });
      await store.delete(key);
      await store.delete(key);
      await store.delete('org/4/never/existed');
      assert.equal(await blobExists(store, key), false);
      assert.deepEqual(await collect(store.list('org/4/')), []);
    });

    it('list(prefix) yields exactly the keys under it', async () => {
      const keys = ['org/5/evidence/1/a', 'org/5/evidence/1/b', 'org/5/evidence/12/c', 'org/5/evidence/2/d', 'org/50/e'];
      for (const key of keys) await store.put(key, Readable.from([Buffer.from(key)]), { maxBytes: 100 });
      assert.deepEqual(await collect(store.list('org/5/evidence/1/')), ['org/5/evidence/1/a', 'org/5/evidence/1/b']);
      assert.deepEqual(await collect(store.list('org/5/evidence/1')), ['org/5/evidence/1/a', 'org/5/evidence/1/b', 'org/5/evidence/12/c']);
      assert.deepEqual(await collect(store.list('org/5/')), keys.slice(0, 4));
      assert.deepEqual(await collect(store.list('org/5')), keys);
      assert.deepEqual(await collect(store.list('org/6/')), []);
      assert.ok((await collect(store.list(''))).length >= keys.length);
      for (const key of keys) await store.delete(key);
    });

    it('invalid keys are refused and never touch the store', async () => {
      const bad = [
        '',
        '../x',
        'a/../../b',
        '..',
        '.',
        '/etc/passwd',
        'a//b',
        'a/',
        'a/./b',
        '.hidden',
        'a\\..\\b',
        'a b',
        'a\0b',
        'C:/x',
        'x'.repeat(513),
      ];
      for (const key of bad) {
        const source = Readable.from([Buffer.from('x')]);
        await assert.rejects(store.put(key, source, { maxBytes: 10 }), InvalidBlobKeyError, JSON.stringify(key));
        assert.equal(source.destroyed, true);
        await assert.rejects(blobExists(store, key), InvalidBlobKeyError);
        await assert.rejects(store.delete(key), InvalidBlobKeyError);
      }
      await assert.rejects(collect(store.list('../')), InvalidBlobKeyError);
      await assert.rejects(collect(store.list('/')), InvalidBlobKeyError);
      await assert.rejects(store.put('ok', Readable.from([]), { maxBytes: -1 }), RangeError);
    });

    it('streams 50 MB without holding it in memory', async () => {
      const chunk = randomBytes(MB);
      const generate = async function* () {
        for (let i = 0; i < 50; i++) yield chunk;
      };
      // Warm up (code paths, sockets; a multipart upload on S3) with 6 MB before the baseline.
      await store.put('org/7/warm', streamOf(DATA.subarray(0, 6 * MB)), { maxBytes: 20 * MB });
      // Collect garbage before each sample: V8 frees large dead buffers (finished parts) lazily,
      // so without it RSS shows garbage, not what the upload holds.
      gc();
      const base = process.memoryUsage().rss;
      let peak = base;
      const sampler = setInterval(() => {
        gc();
        peak = Math.max(peak, process.memoryUsage().rss);
      }, 20);
      try {
        const result = await store.put('org/7/fifty', Readable.from(generate()), { maxBytes: 60 * MB });
        assert.equal(result.size, 50 * MB);
      } finally {
        clearInterval(sampler);
      }
      peak = Math.max(peak, process.memoryUsage().rss);
      const grewMb = (peak - base) / MB;
      console.log(`# ${engine.name}: RSS grew by ${grewMb.toFixed(1)} MB while streaming 50 MB`);
      // Local disk holds a few stream buffers; S3 holds the multipart parts in flight: one being
      // filled, its concatenated copy and queueSize (2) uploading, 5 MB each, ~20 MB at most.
      const bound = engine.store.kind === 'local' ? 10 : 30;
      assert.ok(grewMb < bound, `RSS grew by ${grewMb.toFixed(1)} MB while streaming 50 MB (bound ${bound} MB)`);
      await store.delete('org/7/warm');
      await store.delete('org/7/fifty');
    });
  });
}

describe('blob store: unavailable storage', () => {
  it('an unreachable S3 endpoint answers DependencyUnavailableError(blob_store)', async () => {
    const port = await new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as net.AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const store = new S3BlobStore({
      bucket: 'nowhere',
      endpoint: `http://127.0.0.1:${port}`,
      region: 'us-east-1',
      accessKeyId: 'x',
      secretAccessKey: 'y',
      forcePathStyle: true,
    });
    try {
      const isUnavailable = (err: unknown) => {
        assert.ok(err instanceof DependencyUnavailableError, String(err));
        assert.deepEqual(err.details, [{ dependency: 'blob_store', issue: 'connection unavailable' }]);
        return true;
      };
      await assert.rejects(store.ping(), isUnavailable);
      await assert.rejects(store.put('a/b', streamOf(DATA.subarray(0, MB)), { maxBytes: MB }), isUnavailable);
      await assert.rejects(blobExists(store, 'a/b'), isUnavailable);
      await assert.rejects(collect(store.list('a/')), isUnavailable);
    } finally {
      await store.close();
    }
  });

  it('a local root that cannot be created answers DependencyUnavailableError(blob_store)', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cds-blobs-'));
    await fs.writeFile(path.join(dir, 'file'), 'not a directory');
    const store = new LocalDiskBlobStore(path.join(dir, 'file', 'blobs'));
    try {
      await assert.rejects(store.ping(), DependencyUnavailableError);
      const source = Readable.from([Buffer.from('x')]);
      await assert.rejects(store.put('a/b', source, { maxBytes: 10 }), DependencyUnavailableError);
      assert.equal(source.destroyed, true);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

describe('blob store: configuration', () => {
  it('local disk under DATA_DIR by default; S3 when S3_BUCKET is set', async () => {
    const local = loadConfig({ DATA_DIR: '/srv/cds' });
    assert.equal(local.blobDir, path.resolve('/srv/cds/blobs'));
    assert.equal(local.s3, undefined);
    assert.equal(loadConfig({ BLOB_DIR: '/mnt/files' }).blobDir, path.resolve('/mnt/files'));
    const store = openBlobStore(local);
    assert.equal(store.kind, 'local');

    const s3 = loadConfig({ S3_BUCKET: 'files', S3_ENDPOINT: 'http://minio:9000', S3_ACCESS_KEY_ID: 'a', S3_SECRET_ACCESS_KEY: 'b' });
    assert.deepEqual(s3.s3, {
      bucket: 'files',
      endpoint: 'http://minio:9000',
      region: 'us-east-1',
      accessKeyId: 'a',
      secretAccessKey: 'b',
      forcePathStyle: true,
    });
    assert.equal(loadConfig({ S3_BUCKET: 'files' }).s3?.forcePathStyle, false);
    assert.equal(loadConfig({ S3_BUCKET: 'f', S3_ENDPOINT: 'https://x', S3_FORCE_PATH_STYLE: 'false' }).s3?.forcePathStyle, false);
    assert.throws(() => loadConfig({ S3_BUCKET: 'f', S3_ACCESS_KEY_ID: 'a' }), /together/);
    assert.throws(() => loadConfig({ S3_BUCKET: 'f', S3_ENDPOINT: 'minio:9000' }), /S3_ENDPOINT/);
    const s3Store = openBlobStore(s3);
    assert.equal(s3Store.kind, 's3');
    await s3Store.close();
  });
});
