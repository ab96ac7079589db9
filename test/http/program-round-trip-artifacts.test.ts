// The round trip with evidence, tests and findings (issue 25): export the demo's organization
// whole, apply the export to an empty organization, and every GET of evidence, tests and findings
// (every field, every expansion, resources of every status) answers the same as the original's,
// IDs mapped through keys; so do the fields computed from them (control status, framework
// progress, mapped artifacts). Files the service hosts stay with the organization that received
// them (the demo's file records included): they are not exported, so attachments compare as the
// external links. On every engine.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../harness/engines.ts';
import { startServer, type TestServer } from '../harness/server.ts';
import { artifactReads, idMap, mapIds, newOrg, withoutHostedReasons } from '../harness/program-artifacts.ts';
import { loadDemoData } from '../../src/demo/generate.ts';

const NOW = Date.UTC(2026, 0, 15);
/** The demo's scale: 1 in the suite; `PROGRAM_ROUND_TRIP_SCALE=20` runs the scale-20 organization (minutes). */
const SCALE = Number(process.env.PROGRAM_ROUND_TRIP_SCALE ?? 1);

for (const dialect of dialects) {
  describe(`program documents: the round trip of evidence, tests and findings (${dialect})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startServer({ dialect, now: () => NOW, env: { RATE_LIMIT_MAX: '1000000' } });
    });
    after(() => server.close());

    test(`the demo's organization (scale ${SCALE}): export, apply to an empty organization, every GET answers the same`, async () => {
      const a = await newOrg(server);
      await loadDemoData(server.database.db, a.id, { scale: SCALE, seed: 11, now: NOW });
      const exported = (await a.verbs.export()) as Record<string, any>;
      assert.ok(exported.evidence.length > 0 && exported.tests.length > 0 && exported.vulnerabilities.length > 0);
      // no file the service hosts is carried: only external links
      for (const e of exported.evidence) for (const l of e.attachments ?? []) assert.match(l.url, /^https?:\/\//);
      const b = await newOrg(server);
      const plan = await b.verbs.apply(exported);
      assert.equal(plan.changed, true);
      const ids = idMap(exported, a, b, plan.changes);
      // the same document again changes nothing, in either organization
      assert.equal((await b.verbs.plan(exported)).changed, false);
      assert.equal((await a.verbs.plan(exported)).changed, false);

      const [ra, rb] = [await artifactReads(server, a), await artifactReads(server, b)];
      const mapped = mapIds(ra, ids) as typeof ra;
      assert.deepEqual(rb.evidence, mapped.evidence);
      assert.deepEqual(withoutHostedReasons(rb.evidenceDetails, new Set(mapped.hosted)), mapped.evidenceDetails);
      assert.deepEqual(rb.tests, mapped.tests);
      assert.deepEqual(rb.testDetails, mapped.testDetails);
      assert.deepEqual(rb.findings, mapped.findings);
      assert.deepEqual(rb.findingDetails, mapped.findingDetails);
      assert.equal(rb.fixYes, ra.fixYes);
      assert.deepEqual(rb.frameworks, mapped.frameworks);
      assert.deepEqual(rb.controls, mapped.controls);
      assert.deepEqual(rb.controlDetails, mapped.controlDetails);
    });
  });
}
