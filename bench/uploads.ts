// Attachment uploads: throughput of 100 MB in 5 files through POST /v1/evidence/{id}/attachments
// against a bare node:http server that only streams the same request to disk (same run, same
// body, both servers in their own child process), and the service's peak memory (VmHWM, a fresh
// process per size) after a 10 MB and after a 100 MB upload, which must not grow with the size.
//
//   node bench/uploads.ts [--rounds N] [--service DIR]...
//
// --service runs another checkout's service (its src/main.ts) on the same data; given more than
// once, each service takes its turn in every round beside the same raw server, so two versions are
// compared side by side in one run (e.g. `--service . --service ../main`).
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openDb } from '../src/storage/db/connect.ts';
import { migrateToLatest } from '../src/storage/db/migrate.ts';
import { createDemoOrganization } from '../src/demo/create-demo-organization.ts';
import { ROOT, startChild } from './lib/child.ts';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '5' }, service: { type: 'string', multiple: true } },
});
const rounds = Number(values.rounds);
const serviceMains = (values.service?.length ? values.service : [ROOT]).map((dir) => path.join(path.resolve(dir), 'src/main.ts'));
/** A service's checkout, relative to the working directory when it is inside it. */
const shown = (main: string) => {
  const dir = path.dirname(path.dirname(main));
  const relative = path.relative(process.cwd(), dir);
  return relative.startsWith('..') ? dir : relative || '.';
};
const MiB = 1024 * 1024;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-bench-uploads-'));
const sqlitePath = path.join(dir, 'bench.sqlite');
const db = openDb({ sqlitePath });
await migrateToLatest(db);
const demo = await createDemoOrganization({ db, region: 'us', now: Date.now }, { scale: 1, name: 'Bench uploads' });
const evidence = await db.kysely.selectFrom('evidence').select('id').orderBy('id').limit(1).executeTakeFirstOrThrow();
await db.close();

/** The environment of service `index`: each service its own copy of the database and its own blob directory. */
function serviceEnv(index: number): Record<string, string> {
  const own = path.join(dir, `service-${index}.sqlite`);
  if (!fs.existsSync(own)) fs.copyFileSync(sqlitePath, own);
  return {
    SQLITE_PATH: own,
    BLOB_DIR: path.join(dir, `blobs-${index}`),
    PORT: '0',
    HOST: '127.0.0.1',
    DEMO_ON_EMPTY: 'false',
    OPS_PORT: 'off', // the operations listener is not measured (and its port may be taken)
    RATE_LIMIT_MAX: String(1e9),
    LOG_LEVEL: 'info',
  };
}
const startService = (index: number) => startChild([serviceMains[index]], serviceEnv(index));

async function tokenFrom(port: number): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      grant_type: 'client_credentials',
      client_id: demo.readWrite.clientId,
      client_secret: demo.readWrite.clientSecret,
    }),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

const BOUNDARY = 'bench-boundary-7d1f';
const chunk = Buffer.alloc(256 * 1024, 'x');

/** Sends one multipart upload of `files` files of `fileBytes` each, generated on the fly; resolves with the status and seconds taken. */
function upload(
  port: number,
  urlPath: string,
  headers: Record<string, string>,
  files: number,
  fileBytes: number,
): Promise<{ status: number; seconds: number; body: string }> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = http.request({
      host: '127.0.0.1',
      port,
      path: urlPath,
      method: 'POST',
      headers: { ...headers, 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'transfer-encoding': 'chunked' },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, seconds: Number(process.hrtime.bigint() - started) / 1e9, body }));
    });
    (async () => {
      const write = (data: string | Buffer) =>
        req.write(data) ? Promise.resolve() : new Promise<void>((r) => req.once('drain', () => r()));
      await write(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="evidenceDate"\r\n\r\n${Date.now() - 60_000}\r\n`);
      for (let f = 0; f < files; f++) {
        await write(
          `--${BOUNDARY}\r\nContent-Disposition: form-data; name="files"; filename="file-${f}.log"\r\nContent-Type: text/plain\r\n\r\n`,
        );
        for (let sent = 0; sent < fileBytes; sent += chunk.length) await write(chunk.subarray(0, Math.min(chunk.length, fileBytes - sent)));
        await write('\r\n');
      }
      req.end(`--${BOUNDARY}--\r\n`);
    })().catch(reject);
  });
}

/** Peak resident memory of a process so far, in MiB (Linux). */
function peakRssMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

/**
 * CPU seconds (user + system) a process has used so far (Linux, 100 ticks a second). On a machine
 * other jobs share, the CPU an upload costs each server is steadier than the time it takes.
 */
function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const FILES = 5;
const FILE_BYTES = 20 * MiB; // 5 × 20 MiB = the 100 MB limit
const totalMiB = (FILES * FILE_BYTES) / MiB;

// ---- Throughput: alternate the services and the baseline, one upload each per round ----
const raw = await startChild([path.join(ROOT, 'bench/lib/raw-upload-server.ts'), fs.mkdtempSync(path.join(dir, 'raw-'))], {});
const services = await Promise.all(serviceMains.map((_, i) => startService(i)));
const tokens = await Promise.all(services.map((s) => tokenFrom(s.port)));
const serviceTimes: number[][] = services.map(() => []);
const serviceCpu: number[][] = services.map(() => []);
const rawTimes: number[] = [];
const rawCpu: number[] = [];
for (let round = 0; round <= rounds; round++) {
  for (const [i, service] of services.entries()) {
    const cpuBefore = cpuSeconds(service.child.pid!);
    const s = await upload(
      service.port,
      `/v1/evidence/${evidence.id}/attachments`,
      { authorization: `Bearer ${tokens[i]}`, 'idempotency-key': `bench-${round}-${Date.now()}` },
      FILES,
      FILE_BYTES,
    );
    if (s.status !== 201) throw new Error(`upload failed: ${s.status} ${s.body}`);
    if (round === 0) continue; // warm-up
    serviceTimes[i].push(s.seconds);
    serviceCpu[i].push(cpuSeconds(service.child.pid!) - cpuBefore);
  }
  const rawCpuBefore = cpuSeconds(raw.child.pid!);
  const r = await upload(raw.port, '/upload', {}, FILES, FILE_BYTES);
  if (r.status !== 201) throw new Error(`baseline failed: ${r.status}`);
  if (round === 0) continue; // warm-up
  rawTimes.push(r.seconds);
  rawCpu.push(cpuSeconds(raw.child.pid!) - rawCpuBefore);
}
for (const service of services) service.child.kill();
raw.child.kill();
const rawRate = totalMiB / median(rawTimes);

// ---- Peak memory: a fresh process per upload size, each service and the baseline alike ----
const SIZES = [
  ['10 MB (1 × 10 MiB)', 1, 10 * MiB],
  ['50 MB (5 × 10 MiB)', 5, 10 * MiB],
  ['100 MB (5 × 20 MiB)', 5, 20 * MiB],
] as const;
interface Peak {
  label: string;
  idleMiB: number;
  peakMiB: number;
  again: number[];
}
const peaks: Peak[][] = services.map(() => []);
const rawPeaks: Array<{ idleMiB: number; peakMiB: number }> = [];
for (const [label, files, bytes] of SIZES) {
  for (const i of services.keys()) {
    const node = await startService(i);
    const t = await tokenFrom(node.port);
    const idleMiB = peakRssMiB(node.child.pid!);
    const res = await upload(
      node.port,
      `/v1/evidence/${evidence.id}/attachments`,
      { authorization: `Bearer ${t}`, 'idempotency-key': `mem-${files}-${bytes}` },
      files,
      bytes,
    );
    if (res.status !== 201) throw new Error(`upload failed: ${res.status} ${res.body}`);
    const peakMiB = peakRssMiB(node.child.pid!);
    // Two more uploads of the same size in the same process: a peak that stays put shows the
    // memory is reused garbage of the stream buffers, not held per byte uploaded.
    const again: number[] = [];
    for (let n = 1; n <= 2; n++) {
      await upload(
        node.port,
        `/v1/evidence/${evidence.id}/attachments`,
        { authorization: `Bearer ${t}`, 'idempotency-key': `mem-${files}-${bytes}-${n}` },
        files,
        bytes,
      );
      again.push(peakRssMiB(node.child.pid!));
    }
    node.child.kill();
    peaks[i].push({ label, idleMiB, peakMiB, again });
  }
  const base = await startChild([path.join(ROOT, 'bench/lib/raw-upload-server.ts'), fs.mkdtempSync(path.join(dir, 'raw-'))], {});
  const rawIdleMiB = peakRssMiB(base.child.pid!);
  await upload(base.port, '/upload', {}, files, bytes);
  rawPeaks.push({ idleMiB: rawIdleMiB, peakMiB: peakRssMiB(base.child.pid!) });
  base.child.kill();
}

console.log(`Upload of ${totalMiB} MiB in ${FILES} files, median of ${rounds} rounds (SQLite, local-disk blob store)`);
console.log(
  `  raw http  ${rawRate.toFixed(0).padStart(5)} MiB/s  (${median(rawTimes).toFixed(3)} s), CPU per upload ${median(rawCpu).toFixed(2)} s`,
);
for (const [i, main] of serviceMains.entries()) {
  const rate = totalMiB / median(serviceTimes[i]);
  console.log(`  service ${shown(main)}`);
  console.log(
    `    ${rate.toFixed(0).padStart(5)} MiB/s  (${median(serviceTimes[i]).toFixed(3)} s); ratio service/raw throughput: ${(rate / rawRate).toFixed(2)}`,
  );
  console.log(
    `    CPU per upload ${median(serviceCpu[i]).toFixed(2)} s; ratio raw/service ${(median(rawCpu) / median(serviceCpu[i])).toFixed(2)} (steadier than times on a shared machine)`,
  );
}
console.log('Peak RSS (VmHWM) before and after one upload, fresh process per size');
for (const [s, label] of SIZES.map(([l]) => l).entries()) {
  const r = rawPeaks[s];
  console.log(`  ${label.padEnd(22)} raw ${r.idleMiB.toFixed(1)} → ${r.peakMiB.toFixed(1)} MiB (+${(r.peakMiB - r.idleMiB).toFixed(1)})`);
  for (const [i, main] of serviceMains.entries()) {
    const p = peaks[i][s];
    console.log(
      `  ${''.padEnd(22)} ${shown(main)}: ${p.idleMiB.toFixed(1)} → ${p.peakMiB.toFixed(1)} MiB (+${(p.peakMiB - p.idleMiB).toFixed(1)})` +
        `; after 2nd/3rd upload ${p.again.map((m) => m.toFixed(1)).join(' / ')} MiB`,
    );
  }
}
const ratioOf = (xs: Array<{ peakMiB: number }>) => (xs[xs.length - 1].peakMiB / xs[0].peakMiB).toFixed(2);
console.log(
  `  ratio peak(100 MB) / peak(10 MB): raw ${ratioOf(rawPeaks)}; ${serviceMains.map((m, i) => `${shown(m)} ${ratioOf(peaks[i])}`).join('; ')}`,
);
fs.rmSync(dir, { recursive: true, force: true });
process.exit(0);
