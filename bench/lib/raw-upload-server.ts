// The baseline of bench/uploads.ts: a bare node:http server that streams each request body to a
// file on disk and answers 201. No parsing, no hashing, no database. Prints its port on stdout.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

const dir = process.argv[2];
let n = 0;
const server = http.createServer(async (req, res) => {
  const file = path.join(dir, `upload-${n++}`);
  try {
    await pipeline(req, fs.createWriteStream(file, { flush: true }));
    res.writeHead(201, { 'content-type': 'application/json' }).end('{}');
  } catch {
    res.writeHead(500).end();
  } finally {
    fs.rm(file, { force: true }, () => {});
  }
});
server.listen(0, '127.0.0.1', () => console.log(`PORT ${(server.address() as { port: number }).port}`));
