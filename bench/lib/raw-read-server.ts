// The baseline of bench/reads.ts: a bare node:http server that answers each GET path with bytes
// captured from the service's own answer (status, content type, body), read once from a manifest
// at start. No auth, no database, no serialization: what the socket alone costs. Prints its port.
//
//   node bench/lib/raw-read-server.ts <manifest.json>
//   manifest: { "<path with query>": { "status": 200, "contentType": "...", "bodyFile": "<file>" } }
import fs from 'node:fs';
import http from 'node:http';

interface Entry {
  status: number;
  contentType: string;
  bodyFile: string;
}
const manifest = JSON.parse(fs.readFileSync(process.argv[2], 'utf8')) as Record<string, Entry>;
const answers = new Map(
  Object.entries(manifest).map(([urlPath, e]) => [
    urlPath,
    { status: e.status, contentType: e.contentType, body: fs.readFileSync(e.bodyFile) },
  ]),
);

const server = http.createServer((req, res) => {
  const answer = answers.get(req.url ?? '');
  if (!answer) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(answer.status, { 'content-type': answer.contentType, 'content-length': answer.body.length });
  res.end(answer.body);
});
server.keepAliveTimeout = 72_000;
server.listen(0, '127.0.0.1', () => console.log(`PORT ${(server.address() as { port: number }).port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
