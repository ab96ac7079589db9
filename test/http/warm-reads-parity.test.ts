// Warm reads answered before Fastify's routing (src/http/warm-reads.ts) are Fastify's own answers
// byte for byte: the status line, every header in the same order with the same value (but Date
// and X-Request-Id, and X-RateLimit-Remaining, which counts this request: one less than the
// answer just before with the same token), and the body with its own request ID. Each is compared
// with an app on the same database and rate-limit store that answers everything through Fastify
// and computes every answer afresh; the server's cds_warm_reads_total says the early path was the
// one taken. Refusals (a revoked, malformed or missing token, a plan change, another organization,
// the rate limit) fall through to Fastify and answer as it does; the rate limit, the request
// metrics and the usage counts count every request exactly once.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { addCredential, createOrgWithCredential, getToken, startServer, type TestServer } from '../harness/server.ts';
import { dialects } from '../harness/engines.ts';
import { NoResultCache } from '../../src/domain/result-cache.ts';
import { createDemoOrganization } from '../../src/demo/create-demo-organization.ts';
import { revokeCredential } from '../../src/domain/auth/revoke-credential.ts';
import { updateOrganizationPlan } from '../../src/domain/organizations/update-plan.ts';
import { listUsage } from '../../src/storage/db/repositories/auth/credential-usage.ts';

const deployments: Array<{ dialect: 'sqlite' | 'postgres'; store: 'memory' | 'redis' }> = [{ dialect: 'sqlite', store: 'memory' }];
if (dialects.includes('postgres') && process.env.TEST_REDIS_URL) deployments.push({ dialect: 'postgres', store: 'redis' });

const LIMIT = 40;
// An hour's window, so that a case rarely sees one end (compare() asks again when it does).
const ENV = {
  RATE_LIMIT_MAX: String(LIMIT),
  RATE_LIMIT_WINDOW_SEC: '3600',
  UNAUTHENTICATED_RATE_LIMIT_MAX: '1000',
  USAGE_FLUSH_INTERVAL_MS: '100',
};

interface RawAnswer {
  statusLine: string;
  headers: Array<[string, string]>;
  body: string;
}

/** GET `path` on a connection of its own, with the request's header lines as given; the answer's bytes as sent. */
function rawGet(baseUrl: string, path: string, headerLines: string[]): Promise<RawAnswer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const finish = () => {
      const all = Buffer.concat(chunks);
      const end = all.indexOf('\r\n\r\n');
      if (end < 0) return false;
      const [statusLine, ...lines] = all.subarray(0, end).toString('latin1').split('\r\n');
      const headers = lines.map((line) => {
        const colon = line.indexOf(': ');
        return [line.slice(0, colon), line.slice(colon + 2)] as [string, string];
      });
      const length = Number(headers.find(([name]) => name.toLowerCase() === 'content-length')?.[1] ?? Number.NaN);
      if (all.length < end + 4 + length) return false;
      socket.destroy();
      resolve({ statusLine, headers, body: all.subarray(end + 4, end + 4 + length).toString('utf8') });
      return true;
    };
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      finish();
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`${path}: the connection closed before the whole answer`)));
    socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n${headerLines.map((l) => `${l}\r\n`).join('')}\r\n`);
  });
}

const bearer = (token: string) => [`Authorization: Bearer ${token}`];
const header = (answer: RawAnswer, name: string) => answer.headers.find(([n]) => n.toLowerCase() === name)?.[1];

/**
 * Asserts `later` (asked right after `earlier`, with the same credential or from the same address)
 * is `earlier` byte for byte, but Date, the request ID and the rate-limit count of this request.
 * Returns false when a rate-limit window or a second ended between the two (the caller asks again).
 */
function sameAnswer(earlier: RawAnswer, later: RawAnswer, what: string): boolean {
  if (header(earlier, 'x-ratelimit-reset') !== header(later, 'x-ratelimit-reset')) return false;
  if (header(earlier, 'retry-after') !== header(later, 'retry-after')) return false;
  assert.equal(later.statusLine, earlier.statusLine, what);
  assert.deepEqual(
    later.headers.map(([name]) => name),
    earlier.headers.map(([name]) => name),
    `${what}: the same headers in the same order`,
  );
  const ids = [earlier, later].map((a) => header(a, 'x-request-id')!);
  assert.notEqual(ids[0], ids[1], `${what}: each answer has its own request ID`);
  for (const [i, answer] of [earlier, later].entries()) {
    assert.match(ids[i], /^req_[0-9a-f]{24}$/);
    assert.equal(answer.body.split(ids[i]).length, 2, `${what}: the body carries its request ID once`);
  }
  for (const [i, [name, value]] of later.headers.entries()) {
    const lower = name.toLowerCase();
    if (lower === 'date' || lower === 'x-request-id') continue;
    const expected = earlier.headers[i][1];
    if (lower === 'x-ratelimit-remaining') assert.equal(value, String(Math.max(0, Number(expected) - 1)), `${what}: ${name}`);
    else assert.equal(value, expected, `${what}: ${name}`);
  }
  assert.equal(later.body.replace(ids[1], 'req_ID'), earlier.body.replace(ids[0], 'req_ID'), `${what}: body`);
  return true;
}

/** Asks `first` then `second` (twice more if a window or a second ended in between) and compares them. */
async function compare(
  first: () => Promise<RawAnswer>,
  second: () => Promise<RawAnswer>,
  what: string,
): Promise<[RawAnswer, RawAnswer, number]> {
  for (let attempt = 0; ; attempt++) {
    const a = await first();
    const b = await second();
    if (sameAnswer(a, b, what)) return [a, b, attempt + 1];
    assert.ok(attempt < 2, `${what}: the rate-limit window kept ending between two requests`);
  }
}

async function metric(server: TestServer, line: string): Promise<number> {
  const text = await (await fetch(`${server.opsUrl}/metrics`)).text();
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found ? Number(found.slice(line.length + 1)) : 0;
}
const warmReads = (server: TestServer) => metric(server, 'cds_warm_reads_total');

for (const { dialect, store } of deployments) {
  describe(`warm reads answered before routing are Fastify's answers, byte for byte (${dialect}, ${store})`, { concurrency: 1 }, () => {
    let warm: TestServer;
    let plain: TestServer;
    let organizationId: string;
    let token: () => Promise<{ token: string; credentialId: string }>;
    before(async () => {
      warm = await startServer({ dialect, store, env: ENV });
      // The same database and the same rate-limit store (counts and markers), every answer computed
      // afresh and given by Fastify.
      plain = await startServer({
        database: warm.database,
        testStore: warm.testStore,
        env: ENV,
        cache: new NoResultCache(),
        warmReads: false,
      });
      const demo = await createDemoOrganization(warm.system, { scale: 1, name: `Parity ${dialect}` });
      organizationId = demo.organization.id;
      // A credential of its own per case, so that every case starts with a full rate-limit window.
      token = async () => {
        const client = await addCredential(warm.system, organizationId);
        return { token: await getToken(warm.url, client), credentialId: client.credentialId };
      };
    });
    after(async () => {
      await plain?.close();
      await warm?.close();
    });

    it('every cacheable route, with and without a query, answers the same bytes before routing', async () => {
      const { token: t } = await token();
      const first = async (path: string) => JSON.parse((await rawGet(warm.url, path, bearer(t))).body).data[0];
      const control = await first('/v1/controls');
      const policy = await first('/v1/policies');
      const evidence = await first('/v1/evidence');
      const test = await first('/v1/tests');
      const page = JSON.parse((await rawGet(warm.url, '/v1/vulnerabilities?count=50', bearer(t))).body);
      const id = (v: string) => encodeURIComponent(v);
      const paths = [
        '/v1/frameworks',
        '/v1/frameworks?fields=addedOn,tscSelections',
        '/v1/controls',
        '/v1/controls?status=non_compliant&fields=mappedFrameworkIds,addedOn',
        `/v1/controls/${id(control.controlId)}`,
        `/v1/controls/${id(control.controlId)}?fields=complianceOverview,mappedArtifacts,mappedRisks`,
        '/v1/policies',
        '/v1/policies?isRelevant=true',
        `/v1/policies/${id(policy.policyId)}`,
        `/v1/policies/${id(policy.policyId)}?fields=documents`,
        '/v1/evidence',
        '/v1/evidences?isRelevant=true',
        `/v1/evidence/${id(evidence.evidenceId)}?fields=attachments`,
        '/v1/tests',
        '/v1/tests?status=fix_required,passing',
        `/v1/tests/${id(test.testId)}`,
        `/v1/tests/${id(test.testId)}?fields=testHistory`,
        '/v1/vulnerabilities',
        '/v1/vulnerabilities?count=100',
        `/v1/vulnerabilities?count=50&nextCursor=${id(page.meta.nextCursor)}`,
        // vulnerabilityId is already percent-encoded (source%23key)
        `/v1/vulnerabilities/${page.data[0].vulnerabilityId}`,
        `/v1/vulnerabilities/${page.data[0].vulnerabilityId}?fields=affectedResources`,
      ];
      let early = 0;
      for (const path of paths) {
        const { token: own } = await token();
        // The first answer is Fastify's (it holds the URL); the next ones come before routing. A
        // vulnerability page after the first is kept only once asked for again (result-cache.ts).
        await rawGet(warm.url, path, bearer(own));
        if (path.includes('nextCursor=')) await rawGet(warm.url, path, bearer(own));
        const before = await warmReads(warm);
        const [fromPlain] = await compare(
          () => rawGet(plain.url, path, bearer(own)),
          () => rawGet(warm.url, path, bearer(own)),
          path,
        );
        assert.match(fromPlain.statusLine, /^HTTP\/1\.1 200 OK$/, path);
        // An evidence record's answer depends on the clock (isCurrentPeriod): never held.
        const held = (await warmReads(warm)) - before;
        if (!path.startsWith('/v1/evidence/')) assert.ok(held >= 1, `${path}: answered before routing`);
        early += held;
      }
      assert.ok(early >= paths.length - 1);
    });

    it('a token revoked after its URL was held answers token_revoked, as Fastify does', async () => {
      const client = await addCredential(warm.system, organizationId);
      const t = await getToken(warm.url, client);
      for (let i = 0; i < 3; i++) await rawGet(warm.url, '/v1/frameworks', bearer(t));
      await revokeCredential({ ctx: warm.system, input: { credentialId: client.credentialId } });
      const before = await warmReads(warm);
      // The refused token counts against the client's address: the second is one less.
      const [, revoked] = await compare(
        () => rawGet(plain.url, '/v1/frameworks', bearer(t)),
        () => rawGet(warm.url, '/v1/frameworks', bearer(t)),
        'revoked',
      );
      assert.match(revoked.statusLine, / 401 /);
      assert.equal(JSON.parse(revoked.body).error.code, 'token_revoked');
      assert.equal(await warmReads(warm), before, 'not answered before routing');
    });

    it('a malformed, a missing or a repeated Authorization header on a held URL answers as Fastify does', async () => {
      const { token: t } = await token();
      for (let i = 0; i < 2; i++) await rawGet(warm.url, '/v1/controls', bearer(t));
      const before = await warmReads(warm);
      for (const [what, lines, status] of [
        ['malformed', ['Authorization: Bearer not-a-token'], 401],
        ['another scheme', ['Authorization: Basic dXNlcjpwYXNz'], 401],
        ['missing', [], 401],
        ['repeated', [...bearer(t), ...bearer(t)], 400],
        ['with a body', [...bearer(t), 'Content-Length: 0'], 200],
      ] as const) {
        const [, answer] = await compare(
          () => rawGet(plain.url, '/v1/controls', [...lines]),
          () => rawGet(warm.url, '/v1/controls', [...lines]),
          what,
        );
        assert.match(answer.statusLine, new RegExp(` ${status} `), what);
      }
      assert.equal(await warmReads(warm), before, 'none answered before routing');
    });

    it("another organization's token on a URL held for this one gets its own organization's answer", async () => {
      const { token: t } = await token();
      for (let i = 0; i < 2; i++) await rawGet(warm.url, '/v1/frameworks', bearer(t));
      const other = await createOrgWithCredential(warm.system, { name: 'Other' });
      const otherToken = await getToken(warm.url, other);
      const [, answer] = await compare(
        () => rawGet(plain.url, '/v1/frameworks', bearer(otherToken)),
        () => rawGet(warm.url, '/v1/frameworks', bearer(otherToken)),
        'other organization',
      );
      assert.deepEqual(JSON.parse(answer.body).data, []);
      // Held for it too now, and still its own answer.
      const before = await warmReads(warm);
      await compare(
        () => rawGet(plain.url, '/v1/frameworks', bearer(otherToken)),
        () => rawGet(warm.url, '/v1/frameworks', bearer(otherToken)),
        'other organization, held',
      );
      assert.ok((await warmReads(warm)) - before >= 1, 'answered before routing');
    });

    it('a plan change after the URL was held answers plan_restricted (403), as Fastify does', async () => {
      const client = await createOrgWithCredential(warm.system, { name: 'Plan' });
      const t = await getToken(warm.url, client);
      for (let i = 0; i < 3; i++) await rawGet(warm.url, '/v1/frameworks', bearer(t));
      await updateOrganizationPlan({ ctx: warm.system, input: { organizationId: client.organizationId, plan: 'control' } });
      const [, answer] = await compare(
        () => rawGet(plain.url, '/v1/frameworks', bearer(t)),
        () => rawGet(warm.url, '/v1/frameworks', bearer(t)),
        'plan',
      );
      assert.match(answer.statusLine, / 403 /);
      assert.equal(JSON.parse(answer.body).error.code, 'plan_restricted');
    });

    it('a burst of warm reads on many connections at once: each its own answer, request ID and count', async () => {
      const { token: t } = await token();
      const path = '/v1/frameworks';
      const first = await rawGet(warm.url, path, bearer(t));
      assert.match(first.statusLine, / 200 /);
      const before = await warmReads(warm);
      const burst = 30;
      const answers = await Promise.all(Array.from({ length: burst }, () => rawGet(warm.url, path, bearer(t))));
      assert.equal((await warmReads(warm)) - before, burst, 'all answered before routing');
      const ids = new Set<string>();
      for (const answer of answers) {
        assert.match(answer.statusLine, / 200 /);
        const id = header(answer, 'x-request-id')!;
        ids.add(id);
        assert.equal(answer.body.replace(id, 'req_ID'), first.body.replace(header(first, 'x-request-id')!, 'req_ID'));
      }
      assert.equal(ids.size, burst, 'every answer has its own request ID');
      const remaining = answers.map((a) => Number(header(a, 'x-ratelimit-remaining'))).sort((x, y) => x - y);
      const left = Number(header(first, 'x-ratelimit-remaining'));
      assert.deepEqual(
        remaining,
        Array.from({ length: burst }, (_, i) => left - burst + i),
        'each request counted once',
      );
    });

    it('the rate limit counts every answer once and refuses the one over it (429) as Fastify does', async () => {
      const { token: t, credentialId } = await token();
      // a URL not held yet: its first answer is Fastify's
      const path = '/v1/tests?fields=ticketsCount';
      const before = await warmReads(warm);
      const requestsBefore = await metric(warm, 'cds_http_requests_total{method="GET",route="/v1/tests",status="200"}');
      for (let n = 1; n <= LIMIT; n++) {
        const answer = await rawGet(warm.url, path, bearer(t));
        assert.match(answer.statusLine, / 200 /);
        assert.equal(header(answer, 'x-ratelimit-remaining'), String(LIMIT - n), 'counted exactly once');
      }
      const early = (await warmReads(warm)) - before;
      assert.equal(early, LIMIT - 1, 'all but the first answered before routing');
      assert.equal(
        (await metric(warm, 'cds_http_requests_total{method="GET",route="/v1/tests",status="200"}')) - requestsBefore,
        LIMIT,
        'the request metrics count every answer',
      );
      const [, refused, pairs] = await compare(
        () => rawGet(plain.url, path, bearer(t)),
        () => rawGet(warm.url, path, bearer(t)),
        '429',
      );
      assert.match(refused.statusLine, / 429 /);
      assert.equal(JSON.parse(refused.body).error.code, 'rate_limit_exceeded');
      assert.equal((await warmReads(warm)) - before, LIMIT - 1, 'the refusals were not answered before routing');

      // The usage page's counts: every request of the credential once, the refused ones as such.
      const counted = async () => {
        const rows = (await listUsage(warm.database.db.kysely, organizationId, 0)).filter((r) => r.credentialId === credentialId);
        return rows.reduce((sum, r) => [sum[0] + r.requests, sum[1] + r.rateLimited], [0, 0]);
      };
      const deadline = Date.now() + 10_000;
      let seen = await counted();
      while (seen[0] < LIMIT + 2 * pairs && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        seen = await counted();
      }
      assert.deepEqual(seen, [LIMIT + 2 * pairs, 2 * pairs]);
    });
  });
}
