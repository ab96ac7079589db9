// The demo generator, on every engine: deterministic output, every status value present at
// scale 1, mappings that point at real rows, and computed control statuses of every kind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { openDb, type Db } from '../../src/storage/db/connect.ts';
import { migrateToLatest } from '../../src/storage/db/migrate.ts';
import { BIND_PARAMETER_LIMITS, bulkInsert, rowsPerStatement } from '../../src/storage/db/bulk-insert.ts';
import { loadDemoData, planFor, type DemoSummary } from '../../src/demo/generate.ts';
import { orgTag } from '../../src/shared/org-tag.ts';
import {
  EVIDENCE_STATUSES,
  FUNCTION_GROUPINGS,
  POLICY_STATUSES,
  SEVERITIES,
  TEST_RESOURCE_STATUSES,
  TEST_STATUSES,
  VULNERABILITY_SOURCES,
  VULNERABILITY_STATUSES,
} from '../../src/shared/vocabulary.ts';

interface Engine {
  name: string;
  open(): Promise<{ db: Db; cleanup(): Promise<void> }>;
}

const engines: Engine[] = [
  {
    name: 'sqlite',
    async open() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'demo-test-'));
      const db = openDb({ sqlitePath: path.join(dir, 'demo.sqlite') });
      return {
        db,
        async cleanup() {
          await db.close();
          fs.rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
];

const baseUrl = process.env.TEST_DATABASE_URL;
if (baseUrl) {
  engines.push({
    name: 'postgres',
    async open() {
      const schema = `demo_test_${process.pid}_${Math.floor(Math.random() * 1e9).toString(36)}`;
      const admin = openDb({ databaseUrl: baseUrl, poolSize: 1 });
      await sql.raw(`create schema "${schema}"`).execute(admin.kysely);
      const separator = baseUrl.includes('?') ? '&' : '?';
      const db = openDb({ databaseUrl: `${baseUrl}${separator}options=-c%20search_path%3D${schema}` });
      return {
        db,
        async cleanup() {
          await db.close();
          await sql.raw(`drop schema "${schema}" cascade`).execute(admin.kysely);
          await admin.close();
        },
      };
    },
  });
}

async function addOrg(db: Db, id: string): Promise<void> {
  await db.kysely
    .insertInto('organizations')
    .values({ id, name: `Org ${id}`, region: 'eu', plan: 'all', created_at: Date.UTC(2025, 0, 1) })
    .execute();
}

type Rows = Record<string, unknown>[];

async function rows(db: Db, text: string, ...params: unknown[]): Promise<Rows> {
  const parts = text.split('?');
  const query = sql.join(
    parts.map((part, i) => (i < params.length ? sql`${sql.raw(part)}${params[i]}` : sql.raw(part))),
    sql``,
  );
  const result = await query.execute(db.kysely);
  return result.rows as Rows;
}

/**
 * Plain objects with booleans as 0/1, sorted by their JSON text (not by SQL: PostgreSQL's
 * collation orders `_` and `-` differently from SQLite), so rows compare across engines.
 */
/** a column's value as compared across engines: booleans as 0/1, JSON kept by triggers (`*_json`) by value, not spelling */
const comparable = (column: string, value: unknown) =>
  typeof value === 'boolean' ? Number(value) : column.endsWith('_json') && typeof value === 'string' ? JSON.parse(value) : value;

function normalize(list: Rows): Rows {
  return list
    .map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, comparable(k, v)])))
    .map((row) => [JSON.stringify(row), row] as const)
    .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
    .map(([, row]) => row);
}

const values = async (db: Db, text: string, ...params: unknown[]) =>
  new Set((await rows(db, text, ...params)).map((r) => Object.values(r)[0]));

const countOf = async (db: Db, text: string, ...params: unknown[]) => Number(Object.values((await rows(db, text, ...params))[0])[0]);

/** a projection of an organization's data with organization-derived IDs left out */
async function projection(db: Db, org: string) {
  const q = async (text: string) => normalize(await rows(db, text, org));
  return {
    controls: await q(
      `select code, name, domain, function_grouping, scope, out_of_scope_reason, questions from controls where organization_id = ?`,
    ),
    policies: await q(
      `select custom_id, name, status, department, is_relevant, next_review_date, gap_status, ai_detected_gaps, version_number from policies where organization_id = ?`,
    ),
    evidence: await q(
      `select name, status, department, is_relevant, next_review_date, gaps, recurrence from evidence where organization_id = ?`,
    ),
    tests: normalize(
      (await q(`select id, kind, name, result, integration_failing from tests where organization_id = ?`)).map((r) => ({
        ...r,
        id: String(r.id).replace(/_[0-9a-f]{12}$/, ''),
      })),
    ),
    vulnerabilities: await q(
      `select source, finding_key, title, status, severity, cve_id, fix_available, first_seen, cvss_score from vulnerabilities where organization_id = ?`,
    ),
    mappings: await countOf(db, `select count(*) from control_artifacts where organization_id = ?`, org),
  };
}

function withoutTiming(summary: DemoSummary) {
  const { elapsedMs: _elapsed, phaseMs: _phases, ...rest } = summary;
  return rest;
}

/** the control status rule of PRODUCT.md, over all frameworks */
async function controlStatuses(db: Db, org: string): Promise<Map<string, string>> {
  const artifacts = await rows(
    db,
    `
    select 'policy' as t, id, case when is_relevant then 1 else 0 end as relevant, status as s from policies where organization_id = ?
    union all select 'evidence', id, case when is_relevant then 1 else 0 end, status from evidence where organization_id = ?
    union all select 'test', id, case when result = 'ignored' then 0 else 1 end, case when result = 'passing' and integration_failing then 'affected' else result end from tests where organization_id = ?`,
    org,
    org,
    org,
  );
  const complete = new Map<string, boolean>();
  const relevant = new Map<string, boolean>();
  for (const a of artifacts) {
    const key = `${a.t}:${a.id}`;
    relevant.set(key, Boolean(Number(a.relevant)));
    complete.set(key, a.t === 'policy' ? a.s === 'published' : a.t === 'evidence' ? a.s === 'uploaded' : a.s === 'passing');
  }
  const controls = await rows(db, `select id, scope from controls where organization_id = ?`, org);
  const links = await rows(db, `select control_id, artifact_type, artifact_id from control_artifacts where organization_id = ?`, org);
  const byControl = new Map<string, string[]>();
  for (const l of links) {
    const list = byControl.get(String(l.control_id)) ?? [];
    list.push(`${l.artifact_type}:${l.artifact_id}`);
    byControl.set(String(l.control_id), list);
  }
  const out = new Map<string, string>();
  for (const c of controls) {
    const rel = (byControl.get(String(c.id)) ?? []).filter((k) => relevant.get(k));
    let status: string;
    if (c.scope === 'out_of_scope') status = 'not_applicable:out_of_scope';
    else if (rel.length === 0) status = 'not_applicable:no_relevant';
    else status = rel.every((k) => complete.get(k)) ? 'compliant' : 'non_compliant';
    out.set(String(c.id), status);
  }
  return out;
}

test('planFor grows linearly: scale 20 gives thousands of controls, scale 2000 a million findings', () => {
  const one = planFor(1);
  assert.equal(one.controls, 150);
  assert.equal(one.policies + one.evidence + one.tests, 260);
  assert.equal(one.vulnerabilities, 500);
  const twenty = planFor(20);
  assert.ok(twenty.controls >= 2000);
  const artifacts = twenty.policies + twenty.evidence + twenty.tests;
  assert.ok(artifacts >= 9000 && artifacts <= 11000, `${artifacts} artifacts at scale 20`);
  assert.equal(planFor(2000).vulnerabilities, 1_000_000);
  assert.throws(() => planFor(0), RangeError);
});

test("rowsPerStatement stays under both engines' bind-parameter limits", () => {
  for (const dialect of ['sqlite', 'postgres'] as const) {
    for (const columns of [1, 3, 7, 21, 40]) {
      const rowsEach = rowsPerStatement(dialect, columns, { form: 'values' });
      assert.ok(rowsEach >= 1);
      assert.ok(rowsEach * columns <= BIND_PARAMETER_LIMITS[dialect]);
    }
  }
  assert.equal(rowsPerStatement('sqlite', 21, { maxParameters: 100 }), 4);
  // PostgreSQL's default form binds one array per column, but building a statement is the event
  // loop's work: its rows are bounded by a budget of values too (bulk-insert.ts, STATEMENT_VALUES)
  assert.equal(rowsPerStatement('postgres', 21), Math.floor(4096 / 21));
  assert.equal(rowsPerStatement('postgres', 21, { maxParameters: 65_535 * 4 }), Math.floor(65_535 / 21));
  assert.equal(rowsPerStatement('postgres', 1), 4096);
  assert.throws(() => rowsPerStatement('sqlite', 3, { form: 'arrays' }));
});

/**
 * Two organization IDs whose demo tags agree in their first six hex digits (all the tag was once:
 * 24 bits, so a thousand demo organizations had a 3% chance of two alike). Found by counting up,
 * so the pair is the same on every run.
 */
function idsWithLikeTags(): [string, string] {
  const seen = new Map<string, string>();
  for (let i = 0; ; i++) {
    const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    const head = orgTag(id).slice(0, 6);
    const other = seen.get(head);
    if (other) return [other, id];
    seen.set(head, id);
  }
}

for (const engine of engines) {
  test(`demo data for organizations whose IDs hash alike on ${engine.name}: each gets its own test IDs`, async () => {
    const { db, cleanup } = await engine.open();
    try {
      await migrateToLatest(db);
      const [first, second] = idsWithLikeTags();
      await addOrg(db, first);
      await addOrg(db, second);
      // tests.id is a key of the whole table, not per organization: a second organization's demo
      // tests must not take the first one's IDs
      await loadDemoData(db, first, { seed: 1, scale: 0.2 });
      await loadDemoData(db, second, { seed: 2, scale: 0.2 });
      const ids = async (org: string) => (await rows(db, 'select id from tests where organization_id = ?', org)).map((r) => r.id);
      const [a, b] = [await ids(first), await ids(second)];
      assert.ok(a.length > 0 && b.length > 0);
      assert.deepEqual(
        a.filter((id) => b.includes(id)),
        [],
      );
    } finally {
      await cleanup();
    }
  });
}

for (const engine of engines) {
  test(`demo data on ${engine.name}`, async (t) => {
    const { db, cleanup } = await engine.open();
    try {
      await migrateToLatest(db);
      await addOrg(db, 'org_a');
      await addOrg(db, 'org_b');
      await addOrg(db, 'org_c');
      const progress: [number, number][] = [];
      const a = await loadDemoData(db, 'org_a', { seed: 7, onProgress: (done, total) => progress.push([done, total]) });
      const b = await loadDemoData(db, 'org_b', { seed: 7 });
      const c = await loadDemoData(db, 'org_c', { seed: 8 });

      await t.test('bulkInsert splits rows into statements and writes them all', async () => {
        await addOrg(db, 'org_bulk');
        const people = Array.from({ length: 1234 }, (_, i) => ({
          id: `bulk-${i}`,
          organization_id: 'org_bulk',
          name: `Person ${i}`,
          email: `p${i}@example.com`,
        }));
        assert.equal(await bulkInsert(db, 'people', people.slice(0, 1000), { form: 'values', maxParameters: 4 * 50 }), 1000);
        assert.equal(await bulkInsert(db, 'people', people.slice(1000), { maxRows: 100 }), 234);
        assert.equal(await countOf(db, `select count(*) from people where organization_id = ?`, 'org_bulk'), 1234);
        assert.equal(await bulkInsert(db, 'people', []), 0);
        // values of every column type survive the trip (quotes, newlines, JSON, booleans, floats, nulls)
        const tricky = 'He said "hi",\nthen {left} \\ O\'Brien ✓';
        await bulkInsert(db, 'vulnerabilities', [
          {
            id: 'bulk-v',
            organization_id: 'org_bulk',
            source: 'api',
            finding_key: 'VUL-9999',
            title: tricky,
            status: 'open',
            severity: 'low',
            cve_id: '',
            fix_available: null,
            description: '["a","b"]',
            remediation: null,
            steps_to_reproduce: null,
            first_seen: 1_700_000_000_123,
            last_scanned_on: null,
            cvss_score: 3.7,
            sla: 180,
            report_link: null,
            added_by: null,
            added_on: 1_700_000_000_123,
            last_modified_by: null,
            modified_on: null,
          },
        ]);
        const back = (
          await rows(
            db,
            `select title, cve_id, description, cvss_score, first_seen, fix_available from vulnerabilities where id = ?`,
            'bulk-v',
          )
        )[0];
        assert.deepEqual(
          { ...back },
          { title: tricky, cve_id: '', description: '["a","b"]', cvss_score: 3.7, first_seen: 1_700_000_000_123, fix_available: null },
        );
        await bulkInsert(db, 'subject_people', [
          {
            organization_id: 'org_bulk',
            subject_type: 'vulnerability',
            subject_id: 'bulk-v',
            person_id: 'bulk-1',
            role: 'assignee',
            is_primary: true,
            position: 0,
          },
        ]);
        assert.equal(await countOf(db, `select count(*) from subject_people where subject_id = ? and is_primary`, 'bulk-v'), 1);
      });

      await t.test('scale 1 sizes and progress reports', () => {
        assert.equal(a.frameworks, 3);
        assert.equal(a.controls, 150);
        assert.equal(a.policies, 60);
        assert.equal(a.evidence, 120);
        assert.equal(a.tests, 80);
        assert.equal(a.vulnerabilities, 500);
        assert.equal(a.testHistory, 800, 'ten history points per test');
        assert.ok(progress.length > 0);
        const [lastDone, lastTotal] = progress[progress.length - 1];
        assert.equal(lastDone, lastTotal);
        for (let i = 1; i < progress.length; i++) assert.ok(progress[i][0] >= progress[i - 1][0]);
      });

      await t.test('same seed gives the same data in another organization; another seed differs', async () => {
        assert.deepEqual(withoutTiming(a), withoutTiming(b));
        const pa = await projection(db, 'org_a');
        const pb = await projection(db, 'org_b');
        assert.deepEqual(pa, pb);
        const pc = await projection(db, 'org_c');
        assert.notDeepEqual(pa.vulnerabilities, pc.vulnerabilities);
        const idsA = await values(db, `select id from controls where organization_id = ?`, 'org_a');
        const idsB = await values(db, `select id from controls where organization_id = ?`, 'org_b');
        assert.equal([...idsA].filter((id) => idsB.has(id)).length, 0, 'IDs derive from the organization');
      });

      await t.test('same organization and seed give identical rows (compared with a fresh SQLite load)', async () => {
        const fresh = openDb({ sqlitePath: ':memory:' });
        try {
          await migrateToLatest(fresh);
          await addOrg(fresh, 'org_a');
          await loadDemoData(fresh, 'org_a', { seed: 7 });
          for (const table of ['controls', 'policies', 'evidence', 'tests', 'vulnerabilities', 'attachments', 'test_history'] as const) {
            const mine = normalize(await rows(db, `select * from ${table} where organization_id = ?`, 'org_a'));
            const theirs = normalize(await rows(fresh, `select * from ${table} where organization_id = ?`, 'org_a'));
            assert.deepEqual(mine, theirs, table);
          }
          for (const table of ['control_artifacts', 'artifact_requirements', 'subject_people', 'custom_field_values'] as const) {
            const query = `select * from ${table} where organization_id = ?`;
            assert.deepEqual(normalize(await rows(db, query, 'org_a')), normalize(await rows(fresh, query, 'org_a')), table);
          }
        } finally {
          await fresh.close();
        }
      });

      await t.test('every status value of every resource appears', async () => {
        const org = 'org_a';
        assert.deepEqual(await values(db, `select distinct status from policies where organization_id = ?`, org), new Set(POLICY_STATUSES));
        assert.deepEqual(
          await values(db, `select distinct status from evidence where organization_id = ?`, org),
          new Set(EVIDENCE_STATUSES),
        );
        assert.deepEqual(
          await values(
            db,
            `select distinct case when result = 'passing' and integration_failing then 'affected' else result end from tests where organization_id = ?`,
            org,
          ),
          new Set(TEST_STATUSES),
        );
        assert.deepEqual(
          await values(db, `select distinct status from test_resources where organization_id = ?`, org),
          new Set(TEST_RESOURCE_STATUSES),
        );
        assert.deepEqual(
          await values(db, `select distinct status from test_history where organization_id = ?`, org),
          new Set(TEST_STATUSES),
        );
        assert.deepEqual(
          await values(db, `select distinct status from vulnerabilities where organization_id = ?`, org),
          new Set(VULNERABILITY_STATUSES),
        );
        assert.deepEqual(
          await values(db, `select distinct status from vulnerability_resources where organization_id = ?`, org),
          new Set(VULNERABILITY_STATUSES),
        );
        assert.deepEqual(
          await values(db, `select distinct severity from vulnerabilities where organization_id = ?`, org),
          new Set(SEVERITIES),
        );
        assert.deepEqual(
          await values(db, `select distinct source from vulnerabilities where organization_id = ?`, org),
          new Set(VULNERABILITY_SOURCES),
        );
        assert.deepEqual(
          await values(db, `select distinct function_grouping from controls where organization_id = ?`, org),
          new Set(FUNCTION_GROUPINGS),
        );
        assert.deepEqual(
          await values(db, `select distinct scope from controls where organization_id = ?`, org),
          new Set(['in_scope', 'out_of_scope']),
        );
        assert.deepEqual(
          await values(db, `select distinct kind from tests where organization_id = ?`, org),
          new Set(['automated', 'cloud']),
        );
        for (const table of ['policies', 'evidence']) {
          assert.deepEqual(
            await values(db, `select distinct gap_status from ${table} where organization_id = ?`, org),
            new Set(['no_gaps', 'gaps_detected']),
          );
          assert.deepEqual(
            new Set(
              [...(await values(db, `select distinct is_relevant from ${table} where organization_id = ?`, org))].map((v) =>
                Boolean(Number(v)),
              ),
            ),
            new Set([true, false]),
          );
          assert.ok(
            (await countOf(db, `select count(*) from ${table} where organization_id = ? and department is null`, org)) > 0,
            `${table}: unassigned department`,
          );
          assert.ok(
            (await countOf(db, `select count(*) from ${table} where organization_id = ? and next_review_date is null`, org)) > 0,
            `${table}: no review date`,
          );
          assert.equal(
            await countOf(
              db,
              `select count(*) from ${table} where organization_id = ? and is_relevant = ? and not_relevant_reason is null`,
              org,
              false,
            ),
            0,
          );
        }
        assert.deepEqual(
          await values(db, `select distinct fix_available from vulnerabilities where organization_id = ?`, org),
          new Set(['yes', 'no', null]),
        );
        assert.ok((await countOf(db, `select count(*) from vulnerabilities where organization_id = ? and cve_id = ''`, org)) > 0);
      });

      await t.test('field rules: formats, JSON arrays, dates and consistency', async () => {
        const org = 'org_a';
        const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
        for (const table of [
          'frameworks',
          'controls',
          'policies',
          'evidence',
          'entities',
          'people',
          'requirements',
          'risks',
          'vulnerabilities',
          'applications',
        ]) {
          for (const id of await values(db, `select id from ${table} where organization_id = ?`, org))
            assert.match(String(id), uuid, table);
        }
        const testIds = [...(await values(db, `select id from tests where organization_id = ?`, org))].map(String);
        for (const id of testIds) assert.match(id, /^test_[a-z0-9_]+_[0-9a-f]{12}$/);
        assert.ok(testIds.some((id) => id.startsWith('test_mfa_enforced_on_idp_')));
        const vulns = await rows(db, `select finding_key, cve_id, first_seen from vulnerabilities where organization_id = ?`, org);
        for (const v of vulns) {
          assert.match(String(v.finding_key), /^(CVE-\d{4}-(0\d{3}|[1-9]\d{3,})|VUL-\d{4,})$/);
          assert.match(String(v.cve_id), /^(|CVE-\d{4}-\d{4,})$/);
          assert.ok(Number(v.first_seen) < Date.UTC(2026, 0, 15));
        }
        const jsonColumns: [string, string][] = [
          ['controls', 'questions'],
          ['policies', 'ai_detected_gaps'],
          ['evidence', 'gaps'],
          ['frameworks', 'tsc_selections'],
          ['test_resources', 'tags'],
          ['vulnerability_resources', 'tags'],
          ['custom_fields', 'options'],
        ];
        for (const [table, column] of jsonColumns) {
          for (const value of await values(db, `select ${column} from ${table} where organization_id = ?`, org)) {
            const parsed: unknown = JSON.parse(String(value));
            assert.ok(Array.isArray(parsed) && parsed.every((s) => typeof s === 'string'), `${table}.${column}`);
          }
        }
        // gap status follows the gap lists; attachments only once something was uploaded
        for (const p of await rows(db, `select gap_status, ai_detected_gaps from policies where organization_id = ?`, org)) {
          assert.equal(p.gap_status === 'gaps_detected', JSON.parse(String(p.ai_detected_gaps)).length > 0);
        }
        assert.equal(
          await countOf(
            db,
            `select count(*) from attachments a join evidence e on e.id = a.evidence_id where e.status = 'not_uploaded' and a.organization_id = ?`,
            org,
          ),
          0,
        );
        assert.equal(
          await countOf(
            db,
            `select count(*) from evidence e where e.organization_id = ? and e.status <> 'not_uploaded' and not exists (select 1 from attachments a where a.evidence_id = e.id)`,
            org,
          ),
          0,
        );
        assert.ok((await countOf(db, `select count(*) from attachments where organization_id = ? and url is not null`, org)) > 0);
        assert.ok((await countOf(db, `select count(*) from policy_documents where organization_id = ? and url is not null`, org)) > 0);
        assert.equal(
          await countOf(
            db,
            `select count(*) from policies where organization_id = ? and status in ('not_uploaded', 'draft', 'draft_approved', 'pending_approval') and published_on is not null`,
            org,
          ),
          0,
        );
        assert.equal(
          await countOf(
            db,
            `select count(*) from policies where organization_id = ? and status = 'published' and (published_on is null or published_by is null)`,
            org,
          ),
          0,
        );
        assert.equal(
          await countOf(
            db,
            `select count(*) from evidence e where e.organization_id = ? and e.status = 'pending_approval' and not exists (select 1 from subject_people sp where sp.subject_id = e.id and sp.role = 'approver')`,
            org,
          ),
          0,
        );
        assert.equal(
          await countOf(
            db,
            `select count(*) from controls where organization_id = ? and scope = 'out_of_scope' and (out_of_scope_reason is null or marked_out_of_scope_by is null)`,
            org,
          ),
          0,
        );
        assert.equal(
          await countOf(
            db,
            `select count(*) from tests where organization_id = ? and integration_failing and (kind <> 'automated' or result <> 'passing')`,
            org,
          ),
          0,
        );
        assert.equal(
          await countOf(db, `select count(*) from tests where organization_id = ? and result = 'ignored' and ignore_reason is null`, org),
          0,
        );
        // a test's flagged resources agree with its result
        assert.equal(
          await countOf(
            db,
            `select count(*) from tests t where t.organization_id = ? and t.result = 'fix_required' and not exists (select 1 from test_resources r where r.test_id = t.id and r.status = 'fix_required')`,
            org,
          ),
          0,
        );
        assert.equal(
          await countOf(
            db,
            `select count(*) from tests t join test_resources r on r.test_id = t.id where t.organization_id = ? and t.result <> 'fix_required' and r.status = 'fix_required'`,
            org,
          ),
          0,
        );
        const resourcesPerFinding = await rows(
          db,
          `select count(r.id) as n from vulnerabilities v left join vulnerability_resources r on r.vulnerability_id = v.id where v.organization_id = ? group by v.id`,
          org,
        );
        assert.ok(resourcesPerFinding.every((r) => Number(r.n) >= 0 && Number(r.n) <= 5));
      });

      await t.test('links and mappings reference existing rows of the same organization', async () => {
        const org = 'org_a';
        const subjects = `(
          select 'framework' as st, id as sid from frameworks where organization_id = '${org}'
          union all select 'control', id from controls where organization_id = '${org}'
          union all select 'policy', id from policies where organization_id = '${org}'
          union all select 'evidence', id from evidence where organization_id = '${org}'
          union all select 'test', id from tests where organization_id = '${org}'
          union all select 'test_resource', id from test_resources where organization_id = '${org}'
          union all select 'vulnerability', id from vulnerabilities where organization_id = '${org}')`;
        const artifacts = `(
          select 'policy' as at, id as aid from policies where organization_id = '${org}'
          union all select 'evidence', id from evidence where organization_id = '${org}'
          union all select 'test', id from tests where organization_id = '${org}')`;
        const dangling: [string, string][] = [
          [
            'control_requirements → controls',
            `select count(*) from control_requirements x where x.organization_id = ? and not exists (select 1 from controls c where c.id = x.control_id and c.organization_id = x.organization_id)`,
          ],
          [
            'control_requirements → requirements',
            `select count(*) from control_requirements x where x.organization_id = ? and not exists (select 1 from requirements r where r.id = x.requirement_id and r.organization_id = x.organization_id)`,
          ],
          [
            'control_artifacts → controls',
            `select count(*) from control_artifacts x where x.organization_id = ? and not exists (select 1 from controls c where c.id = x.control_id and c.organization_id = x.organization_id)`,
          ],
          [
            'control_artifacts → artifacts',
            `select count(*) from control_artifacts x where x.organization_id = ? and not exists (select 1 from ${artifacts} a where a.at = x.artifact_type and a.aid = x.artifact_id)`,
          ],
          [
            'artifact_requirements → artifacts',
            `select count(*) from artifact_requirements x where x.organization_id = ? and not exists (select 1 from ${artifacts} a where a.at = x.artifact_type and a.aid = x.artifact_id)`,
          ],
          [
            'artifact_requirements → requirements',
            `select count(*) from artifact_requirements x where x.organization_id = ? and not exists (select 1 from requirements r where r.id = x.requirement_id and r.organization_id = x.organization_id)`,
          ],
          [
            'artifact_requirements within mapped controls',
            `select count(*) from artifact_requirements x where x.organization_id = ? and not exists (select 1 from control_artifacts ca join control_requirements cr on cr.control_id = ca.control_id where ca.artifact_type = x.artifact_type and ca.artifact_id = x.artifact_id and cr.requirement_id = x.requirement_id)`,
          ],
          [
            'subject_people → people',
            `select count(*) from subject_people x where x.organization_id = ? and not exists (select 1 from people p where p.id = x.person_id and p.organization_id = x.organization_id)`,
          ],
          [
            'subject_people → subjects',
            `select count(*) from subject_people x where x.organization_id = ? and not exists (select 1 from ${subjects} s where s.st = x.subject_type and s.sid = x.subject_id)`,
          ],
          [
            'subject_entities → entities',
            `select count(*) from subject_entities x where x.organization_id = ? and not exists (select 1 from entities e where e.id = x.entity_id and e.organization_id = x.organization_id)`,
          ],
          [
            'subject_entities → subjects',
            `select count(*) from subject_entities x where x.organization_id = ? and not exists (select 1 from ${subjects} s where s.st = x.subject_type and s.sid = x.subject_id)`,
          ],
          [
            'tickets → subjects',
            `select count(*) from tickets x where x.organization_id = ? and (x.subject_type not in ('policy', 'evidence', 'test', 'vulnerability') or not exists (select 1 from ${subjects} s where s.st = x.subject_type and s.sid = x.subject_id))`,
          ],
          [
            'risk_links → risks',
            `select count(*) from risk_links x where x.organization_id = ? and not exists (select 1 from risks r where r.id = x.risk_id and r.organization_id = x.organization_id)`,
          ],
          [
            'risk_links → subjects',
            `select count(*) from risk_links x where x.organization_id = ? and (x.subject_type not in ('control', 'test', 'vulnerability') or not exists (select 1 from ${subjects} s where s.st = x.subject_type and s.sid = x.subject_id))`,
          ],
          [
            'evidence_tests',
            `select count(*) from evidence_tests x where x.organization_id = ? and (not exists (select 1 from evidence e where e.id = x.evidence_id) or not exists (select 1 from tests t where t.id = x.test_id and t.organization_id = x.organization_id))`,
          ],
          [
            'test_applications',
            `select count(*) from test_applications x where x.organization_id = ? and not exists (select 1 from applications a where a.id = x.application_id and a.organization_id = x.organization_id)`,
          ],
          [
            'custom_field_values → fields',
            `select count(*) from custom_field_values x where x.organization_id = ? and not exists (select 1 from custom_fields f where f.id = x.custom_field_id and f.organization_id = x.organization_id)`,
          ],
          [
            'custom_field_values → findings',
            `select count(*) from custom_field_values x where x.organization_id = ? and not exists (select 1 from vulnerabilities v where v.id = x.subject_id and v.organization_id = x.organization_id)`,
          ],
          [
            'framework entities',
            `select count(*) from frameworks f where f.organization_id = ? and not exists (select 1 from subject_entities se where se.subject_type = 'framework' and se.subject_id = f.id)`,
          ],
        ];
        for (const [label, query] of dangling) assert.equal(await countOf(db, query, org), 0, label);
        // exactly one primary assignee wherever a record has assignees
        const primaries = await rows(
          db,
          `select subject_type, subject_id, sum(case when is_primary then 1 else 0 end) as p from subject_people where organization_id = ? and role = 'assignee' group by subject_type, subject_id`,
          org,
        );
        assert.ok(primaries.length > 0);
        for (const r of primaries) assert.equal(Number(r.p), 1, `${r.subject_type} ${r.subject_id}`);
        assert.equal(
          await countOf(db, `select count(*) from subject_people where organization_id = ? and role = 'approver' and is_primary`, org),
          0,
        );
        // every requirement of every framework is covered by some control
        assert.equal(
          await countOf(
            db,
            `select count(*) from requirements r where r.organization_id = ? and not exists (select 1 from control_requirements cr where cr.requirement_id = r.id)`,
            org,
          ),
          0,
        );
        for (const type of ['policy', 'evidence', 'test', 'vulnerability', 'control', 'test_resource']) {
          assert.ok(
            (await countOf(db, `select count(*) from subject_people where organization_id = ? and subject_type = ?`, org, type)) > 0,
            `people on ${type}`,
          );
        }
        for (const type of ['policy', 'evidence', 'test', 'vulnerability']) {
          assert.ok(
            (await countOf(db, `select count(*) from tickets where organization_id = ? and subject_type = ?`, org, type)) > 0,
            `tickets on ${type}`,
          );
        }
        for (const type of ['control', 'test', 'vulnerability']) {
          assert.ok(
            (await countOf(db, `select count(*) from risk_links where organization_id = ? and subject_type = ?`, org, type)) > 0,
            `risks on ${type}`,
          );
        }
      });

      await t.test('custom field values: dropdown values are among the options', async () => {
        const fields = await rows(db, `select id, field_type, options from custom_fields where organization_id = ?`, 'org_a');
        assert.deepEqual(new Set(fields.map((f) => f.field_type)), new Set(['text_box', 'dropdown']));
        const options = new Map(
          fields.map((f) => [String(f.id), { type: String(f.field_type), options: JSON.parse(String(f.options)) as string[] }]),
        );
        const stored = await rows(db, `select custom_field_id, value from custom_field_values where organization_id = ?`, 'org_a');
        assert.ok(stored.length > 0);
        for (const v of stored) {
          const field = options.get(String(v.custom_field_id))!;
          if (field.type === 'dropdown') assert.ok(field.options.includes(String(v.value)), `${v.value} not in ${field.options}`);
          else assert.deepEqual(field.options, []);
        }
      });

      await t.test('computed control statuses cover every kind', async () => {
        const statuses = [...(await controlStatuses(db, 'org_a')).values()];
        const count = (s: string) => statuses.filter((x) => x === s).length;
        assert.ok(count('compliant') >= 5, `compliant: ${count('compliant')}`);
        assert.ok(count('non_compliant') >= 5, `non_compliant: ${count('non_compliant')}`);
        assert.ok(count('not_applicable:no_relevant') >= 1, 'in-scope control without relevant artifacts');
        assert.ok(count('not_applicable:out_of_scope') >= 1, 'out-of-scope control');
        // per-framework figures are not all or nothing
        const perFramework = await rows(
          db,
          `
          select f.name, count(distinct a.artifact_id) as mapped
          from frameworks f join requirements r on r.framework_id = f.id
          join artifact_requirements a on a.requirement_id = r.id
          where f.organization_id = ? group by f.name`,
          'org_a',
        );
        assert.equal(perFramework.length, 3);
        for (const f of perFramework) assert.ok(Number(f.mapped) > 20, `${f.name}: ${f.mapped} artifacts`);
      });

      await t.test('refuses to load into an organization that already has data, or one that does not exist', async () => {
        await assert.rejects(loadDemoData(db, 'org_a'), /already has/);
        await assert.rejects(loadDemoData(db, 'org_missing'), /does not exist/);
        assert.ok(c.controls > 0);
      });
    } finally {
      await cleanup();
    }
  });
}
