// Settled kinds (src/domain/program/settled-kinds.ts): after an apply, a plan or apply skips the
// kinds whose entries are the same while no data version has moved. These tests pin that the skip
// never changes an answer: every plan below is compared with the full path's plan of the same
// document (the organization's digests removed), a write made another way (a PATCH over HTTP)
// retires the digests, and a settled kind's references to a kind the document changes are still
// checked.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from '../harness/engines.ts';
import { api, createOrgWithCredential, getToken, startServer, type TestServer } from '../harness/server.ts';
import { programContext, programVerbs, rejection } from '../harness/program.ts';
import { patchControl } from '../harness/results-scope.ts';
import { loadDemoData } from '../../src/demo/generate.ts';
import { derivedRecordId } from '../../src/domain/kinds/keys.ts';

const NOW = Date.UTC(2026, 0, 15);
const clone = <T>(value: T): T => structuredClone(value);

for (const dialect of dialects) {
  describe(`settled kinds answer what the full path answers (${dialect})`, { concurrency: 1 }, () => {
    let server: TestServer;
    let document: Record<string, any>;
    let org: string;
    let token: string;
    let verbs: ReturnType<typeof programVerbs>;

    before(async () => {
      server = await startServer({ dialect, now: () => NOW });
      const source = await createOrgWithCredential(server.system, { accessLevel: 'read_write' });
      await loadDemoData(server.database.db, source.organizationId, { scale: 1, seed: 3, now: NOW });
      document = (await programVerbs(programContext(server, source.credentialId), source.organizationId).export()) as Record<string, any>;
      const target = await createOrgWithCredential(server.system, { accessLevel: 'read_write' });
      org = target.organizationId;
      token = await getToken(server.url, target);
      verbs = programVerbs(
        programContext(server, target.credentialId, () => NOW),
        org,
      );
      const first = await verbs.apply(document, true);
      assert.equal(first.changed, true);
    });
    after(() => server?.close());

    const digests = () => server.database.db.kysely.selectFrom('program_digests').selectAll().where('organization_id', '=', org).execute();

    /** The answer of `run` with the organization's digests, then without them (the full path); the digests are put back. */
    async function bothWays<T>(run: () => Promise<T>): Promise<[T | { refused: unknown }, T | { refused: unknown }]> {
      const k = server.database.db.kysely;
      const kept = await digests();
      const attempt = async () => {
        try {
          return await run();
        } catch (error) {
          return { refused: await rejection(Promise.reject(error)) };
        }
      };
      const settled = await attempt();
      await k.deleteFrom('program_digests').where('organization_id', '=', org).execute();
      const full = await attempt();
      if (kept.length > 0) await k.insertInto('program_digests').values(kept).execute();
      return [settled, full];
    }

    test('an apply keeps a digest per kind it lists; applying the same document again changes nothing', async () => {
      const rows = await digests();
      assert.deepEqual(
        rows.map((r) => r.kind).sort(),
        Object.keys(document)
          .filter((k) => k !== 'version')
          .sort(),
      );
      const again = await verbs.apply(document, true);
      assert.equal(again.changed, false);
      for (const [kind, entries] of Object.entries(document))
        if (kind !== 'version')
          assert.deepEqual(again.counts[kind], { created: 0, updated: 0, deleted: 0, unchanged: entries.length }, kind);
      assert.deepEqual(await digests(), rows, 'a no-op apply writes no digest');
    });

    test('one control renamed: the same plan as the full path, with every other kind unchanged', async () => {
      const edited = clone(document);
      edited.controls[0].name = `${edited.controls[0].name} (renamed)`;
      const [settled, full] = await bothWays(() => verbs.plan(edited, true));
      assert.deepEqual(settled, full);
      assert.equal((settled as any).changed, true);
      assert.deepEqual(
        (settled as any).changes.map((c: any) => [c.kind, c.action, Object.keys(c.fields)]),
        [['controls', 'update', ['name']]],
      );
    });

    test('an evidence record and a policy edited at once: the same plan as the full path', async () => {
      const edited = clone(document);
      edited.evidence[1].name = 'Renamed evidence';
      edited.policies[0].description = 'A new description';
      const [settled, full] = await bothWays(() => verbs.plan(edited, true));
      assert.deepEqual(settled, full);
    });

    test('a control pruned while a settled evidence record still maps to it is refused, as by the full path', async () => {
      const edited = clone(document);
      const evidence = edited.evidence.find((e: any) => (e.controls ?? []).length > 0);
      const gone = evidence.controls[0];
      edited.controls = edited.controls.filter((c: any) => c.key !== gone);
      const [settled, full] = await bothWays(() => verbs.plan(edited, true));
      assert.deepEqual(settled, full);
      const refused = (settled as { refused: { code: string; details: Array<{ field: string; message: string }> } }).refused;
      assert.equal(refused.code, 'validation_failed');
      assert.ok(
        refused.details.some((d) => d.field.startsWith('/evidence/') && d.message.includes(gone)),
        JSON.stringify(refused.details.slice(0, 3)),
      );
    });

    test('a requirement dropped from its framework while settled controls name it is refused, as by the full path', async () => {
      const edited = clone(document);
      const control = edited.controls.find((c: any) => (c.requirements ?? []).length > 0);
      const [frameworkKey, requirementKey] = control.requirements[0].split('/');
      const framework = edited.frameworks.find((f: any) => f.key === frameworkKey);
      framework.requirements = framework.requirements.filter((r: any) => r.key !== requirementKey);
      const [settled, full] = await bothWays(() => verbs.plan(edited, true));
      assert.deepEqual(settled, full);
      assert.ok('refused' in (settled as object));
    });

    test('a write made another way retires the digests: the same document puts the record back', async () => {
      const control = document.controls.find((c: any) => (c.scope ?? 'in_scope') === 'in_scope');
      const id = derivedRecordId(org, 'control', control.key);
      const moved = await patchControl(server, token, id, { controlScope: 'out_of_scope', outOfScopeReason: 'Scoped out by hand' });
      assert.equal(moved.status, 200, JSON.stringify(moved.body));
      const plan = await verbs.plan(document, true);
      assert.equal(plan.changed, true, 'the PATCH is seen');
      assert.ok(plan.changes.some((c) => c.kind === 'controls' && c.action === 'update'));
      const applied = await verbs.apply(document, true);
      assert.equal(applied.changed, true);
      const back = await api(server.url, `/v1/controls/${id}`, token);
      assert.equal(back.body.data.controlScope, 'in_scope');
      assert.equal((await verbs.apply(document, true)).changed, false);
    });
  });
}
