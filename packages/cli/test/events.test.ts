// `compliance events list` and `compliance events tail` as child processes against the real
// service, on each engine: the feed as the SDK reads it, in every output format; --limit ending
// exactly at the cursor it prints; --since continuing from it; the usage and service errors; and
// tail printing a write made while it runs, then Ctrl-C (SIGINT) ending it with status 0 and the
// command that resumes after the last event printed.
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { ComplianceClient, type ChangeEvent } from '../../sdk/src/index.ts';
import { explain, type CliResult } from './support/cli.ts';
import { dialects, startCliService, type CliService } from './support/service.ts';

// Room for every column (without a terminal a table is fitted to COLUMNS, else 80).
const WIDE = { env: { COLUMNS: '400' } };

function ok(res: CliResult): string {
  assert.equal(res.code, 0, explain(res));
  return res.stdout;
}
const ndjson = (text: string) =>
  text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as ChangeEvent);
/** The cursor a list or tail printed on stderr. */
const cursorOf = (res: CliResult) => {
  const m = /cursor: (\S+)/.exec(res.stderr);
  assert.ok(m, `a cursor on stderr: ${explain(res)}`);
  return m[1];
};

describe('compliance events', { concurrency: dialects.length }, () => {
  for (const dialect of dialects) {
    describe(`on ${dialect}`, { concurrency: 1 }, () => {
      let s: CliService;
      let writer: ComplianceClient;
      let serial = 0;
      const createFinding = async () => {
        const n = serial++;
        const { data } = await writer.vulnerabilities.create({
          vulnerabilityId: `VUL-${8000 + n}`,
          title: `CLI events finding ${n}`,
          severity: 'medium',
          status: 'open',
        });
        return data.vulnerabilityId;
      };

      before(async () => {
        s = await startCliService(dialect, { demo: false });
        writer = new ComplianceClient({ baseUrl: s.server.url, clientId: s.readWrite.clientId, clientSecret: s.readWrite.clientSecret });
        for (let i = 0; i < 7; i++) await createFinding();
        await writer.vulnerabilities.update('api%23VUL-8002', { reportLink: 'https://reports.example.com/8002' });
      });
      after(async () => {
        await s?.close();
      });

      it('list: the feed as the SDK reads it, in ndjson, json and a table', async () => {
        const expected = await s.sdk.events.list().toArray({ limit: 1000 });
        assert.equal(expected.length, 8);
        const [asNdjson, asJson, asTable] = await Promise.all([
          s.cli(['events', 'list', '-o', 'ndjson']),
          s.cli(['events', 'list', '-o', 'json', '--page-size', '3']),
          s.cli(['events', 'list', '-o', 'table'], WIDE),
        ]);
        assert.deepEqual(ndjson(ok(asNdjson)), expected);
        assert.deepEqual(JSON.parse(ok(asJson)), expected, 'pages of 3 give the same events');
        const lines = ok(asTable).trimEnd().split('\n');
        assert.match(lines[0], /^OCCURRED AT\s+TYPE\s+RESOURCE ID\s+EVENT ID\s+CHANGE$/);
        assert.equal(lines.length, 1 + 8);
        assert.match(
          lines[3],
          /^\d{4}-\d\d-\d\d \d\d:\d\d UTC\s+vulnerability\.created\s+api%23VUL-8002\s+evt_\w{26}\s+medium · open · CLI events finding 2$/,
        );
        assert.match(lines[8], /vulnerability\.updated\s+api%23VUL-8002\s+evt_\w{26}\s+modifiedOn, reportLink$/);
        for (const res of [asNdjson, asJson, asTable]) assert.equal(cursorOf(res), cursorOf(asNdjson), 'the same end position');
      });

      it('list --limit stops exactly there, and --since continues after it with the same filters', async () => {
        const first = await s.cli(['events', 'list', '--type', 'vulnerability.created', '--limit', '4', '-o', 'ndjson']);
        const head = ndjson(ok(first));
        assert.deepEqual(
          head.map((e) => e.resourceId),
          ['api%23VUL-8000', 'api%23VUL-8001', 'api%23VUL-8002', 'api%23VUL-8003'],
        );
        const cursor = cursorOf(first);
        assert.ok(
          first.stderr.includes(`compliance events list --since ${cursor} --type vulnerability.created`),
          `the hint repeats the filters: ${first.stderr}`,
        );
        const rest = ndjson(ok(await s.cli(['events', 'list', '--type', 'vulnerability.created', '--since', cursor, '-o', 'ndjson'])));
        assert.deepEqual(
          rest.map((e) => e.resourceId),
          ['api%23VUL-8004', 'api%23VUL-8005', 'api%23VUL-8006'],
        );
        const about = ndjson(ok(await s.cli(['events', 'list', '--resource', 'api%23VUL-8002', '-o', 'ndjson'])));
        assert.deepEqual(
          about.map((e) => e.type),
          ['vulnerability.created', 'vulnerability.updated'],
        );
      });

      it('errors: flags the CLI reads are usage errors (2); a type or cursor the service refuses is validation (6)', async () => {
        const [size, limit, both, type, cursor] = await Promise.all([
          s.cli(['events', 'list', '--page-size', '501']),
          s.cli(['events', 'list', '--limit', '0']),
          s.cli(['events', 'tail', '--since', 'x', '--from-now']),
          s.cli(['events', 'list', '--type', 'vulnerability.archived']),
          s.cli(['events', 'list', '--since', 'not-a-cursor']),
        ]);
        for (const res of [size, limit, both]) assert.equal(res.code, 2, explain(res));
        assert.match(both.stderr, /either --since or --from-now/);
        for (const res of [type, cursor]) assert.equal(res.code, 6, explain(res));
        assert.match(type.stderr, /types/);
        assert.match(cursor.stderr, /nextCursor/);
      });

      it('help and completion know the events commands and the feed types', async () => {
        const [main, tailHelp, bash] = await Promise.all([
          s.cli(['--help']),
          s.cli(['events', 'tail', '--help']),
          s.cli(['completion', 'bash']),
        ]);
        assert.match(ok(main), /events list\s+change events in commit order/);
        assert.match(ok(main), /events tail\s+follow the change events/);
        assert.match(ok(tailHelp), /--from-now/);
        assert.match(ok(tailHelp), /Ctrl-C stops it with exit status 0/);
        assert.match(
          ok(bash),
          /"events tail:--type"\) COMPREPLY=.*control\.status_changed.* framework\.created .*framework\.progress_changed/,
        );
        assert.match(ok(bash), /events\) COMPREPLY=\(\$\(compgen -W "list tail"/);
      });

      it('tail prints a write made while it runs; Ctrl-C (SIGINT) exits 0 with the command that resumes after it', async () => {
        const start = cursorOf(await s.cli(['events', 'list', '-o', 'ndjson']));
        let written: string | undefined;
        let interrupted = false;
        const running = s.cli(['events', 'tail', '--since', start, '--interval', '1'], {
          onStdout: (text, child) => {
            if (!interrupted && written !== undefined && text.includes(`"${written}"`)) {
              interrupted = true;
              child.kill('SIGINT');
            }
          },
        });
        await sleep(300);
        written = await createFinding();
        const res = await running;
        assert.ok(interrupted, `the write was printed: ${explain(res)}`);
        assert.equal(res.code, 0, explain(res));
        assert.equal(res.signal, null);
        const printed = ndjson(res.stdout);
        assert.deepEqual(
          printed.map((e) => [e.type, e.resourceId]),
          [['vulnerability.created', written]],
          'piped, one JSON line per event; only what came after --since',
        );
        const cursor = cursorOf(res);
        assert.match(res.stderr, new RegExp(`resume after the last event printed with: compliance events tail --since ${cursor}\\n?`));
        // Resuming misses nothing and repeats nothing.
        const next = await createFinding();
        const resumed = ndjson(ok(await s.cli(['events', 'list', '--since', cursor, '-o', 'ndjson'])));
        assert.deepEqual(
          resumed.map((e) => e.resourceId),
          [next],
        );
      });

      it('tail --from-now skips the history; -o json is one array, closed by Ctrl-C', async () => {
        const before = new Set((await s.sdk.events.list().toArray({ limit: 1000 })).map((e) => e.eventId));
        const mine: string[] = [];
        let interrupted = false;
        const running = s.cli(['events', 'tail', '--from-now', '--type', 'vulnerability.created', '--interval', '1', '-o', 'json'], {
          onStdout: (text, child) => {
            if (!interrupted && mine.some((id) => text.includes(`"${id}"`))) {
              interrupted = true;
              child.kill('SIGINT');
            }
          },
        });
        // Findings are written until one is printed: those made before tail reached the end of the feed are history too.
        let exited = false;
        void running.then(() => (exited = true));
        for (let i = 0; i < 40 && !interrupted && !exited; i++) {
          mine.push(await createFinding());
          await sleep(500);
        }
        const res = await running;
        assert.equal(res.code, 0, explain(res));
        const printed = JSON.parse(res.stdout) as ChangeEvent[];
        assert.ok(printed.length >= 1, explain(res));
        for (const e of printed) {
          assert.ok(!before.has(e.eventId), `an event from before tail started: ${e.eventId}`);
          assert.ok(mine.includes(e.resourceId), `${e.resourceId} was written during tail`);
        }
        assert.match(
          res.stderr,
          /resume after the last event printed with: compliance events tail --since \S+ --type vulnerability\.created/,
        );
      });
    });
  }
});
