// Every read command against the real service with the demo data, on each engine: at least one
// filter per command, each output format, paging through ~500 findings, and the exit codes of an
// unknown ID (4) and an invalid filter value (6). The expected answers come from the SDK.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { explain, type CliResult } from './support/cli.ts';
import { dialects, startCliService, type CliService } from './support/service.ts';

// Room for every column (without a terminal a table is fitted to COLUMNS, else 80).
const WIDE = { env: { COLUMNS: '400' } };

function ok(res: CliResult): string {
  assert.equal(res.code, 0, explain(res));
  return res.stdout;
}
const json = (res: CliResult) => JSON.parse(ok(res));
const ndjson = (res: CliResult) =>
  ok(res)
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
/** The data rows of a table (every line after the header). */
const tableRows = (res: CliResult) => ok(res).trimEnd().split('\n').slice(1);
const header = (res: CliResult) => ok(res).split('\n')[0];
const ids = (records: Array<Record<string, unknown>>, key: string) => records.map((r) => r[key]).sort();

describe('compliance reads', { concurrency: dialects.length }, () => {
  for (const dialect of dialects) {
    // The engines run side by side; within one, the steps share a credential and its rate limit, so one at a time
    // (node:test would otherwise give them the parent's concurrency).
    describe(`on ${dialect}`, { concurrency: 1 }, () => {
      let s: CliService;
      before(async () => {
        s = await startCliService(dialect);
      });
      after(async () => {
        await s?.close();
      });

      it('frameworks list: --entity-ids, --fields; json, ndjson and table', async () => {
        const all = (await s.sdk.frameworks.list()).data;
        const entityId = all[0].entities[0].entityId;
        const expected = (await s.sdk.frameworks.list({ entityIds: [entityId], fields: ['addedOn', 'tscSelections'] })).data;
        const [asJson, asNdjson, asTable] = await Promise.all([
          s.cli(['frameworks', 'list', '--entity-ids', entityId, '--fields', 'addedOn,tscSelections', '-o', 'json']),
          s.cli(['frameworks', 'list', '-o', 'ndjson']),
          s.cli(['frameworks', 'list', '--output', 'table'], WIDE),
        ]);
        assert.deepEqual(json(asJson), expected);
        assert.equal(ok(asJson), `${JSON.stringify(expected, null, 2)}\n`, 'json is the data, pretty-printed');
        assert.deepEqual(ndjson(asNdjson), all);
        assert.match(header(asTable), /^FRAMEWORK ID\s+NAME\s+CONTROLS\s+POLICIES\s+EVIDENCE\s+TESTS\s+NEXT AUDIT$/);
        assert.equal(tableRows(asTable).length, all.length);
        for (const f of all) assert.ok(ok(asTable).includes(f.frameworkId));
      });

      it('controls list and get: status and grouping filters, frameworks, scope, domains, assignees', async () => {
        const all = (await s.sdk.controls.list()).data;
        const frameworkId = (await s.sdk.frameworks.list()).data[0].frameworkId;
        const assignee = all.find((c) => c.assignees.length > 0)!.assignees[0].email;
        const domain = all[0].controlDomain;
        const entityId = all.find((c) => c.entities.length > 0)!.entities[0].entityId;
        const [filtered, byFramework, byOthers, asTable] = await Promise.all([
          s.cli([
            'controls',
            'list',
            '--status',
            'non_compliant',
            '--function-groupings',
            'protect',
            '--function-groupings',
            'detect',
            '-o',
            'ndjson',
          ]),
          s.cli(['controls', 'list', '--framework-ids', frameworkId, '--control-scope', 'in_scope', '--fields', 'mappedFrameworkIds']),
          s.cli(['controls', 'list', '--assignee-emails', assignee, '--domains', domain.toUpperCase(), '--entity-ids', entityId]),
          s.cli(['controls', 'list', '--status', 'compliant', '-o', 'table'], WIDE),
        ]);
        const expected = (await s.sdk.controls.list({ status: ['non_compliant'], functionGroupings: ['protect', 'detect'] })).data;
        const rows = ndjson(filtered);
        assert.ok(rows.length > 0);
        assert.deepEqual(ids(rows, 'controlId'), ids(expected, 'controlId'));
        for (const c of rows) {
          assert.equal(c.status, 'non_compliant');
          assert.ok(['protect', 'detect'].includes(c.functionGrouping));
        }
        const mapped = json(byFramework);
        assert.ok(mapped.length > 0);
        for (const c of mapped) {
          assert.ok(c.mappedFrameworkIds.includes(frameworkId));
          assert.equal(c.controlScope, 'in_scope');
        }
        const others = json(byOthers);
        assert.deepEqual(
          ids(others, 'controlId'),
          ids((await s.sdk.controls.list({ assigneeEmails: [assignee], domains: [domain], entityIds: [entityId] })).data, 'controlId'),
        );
        assert.match(header(asTable), /^CONTROL ID\s+CODE\s+NAME\s+DOMAIN\s+FUNCTION\s+SCOPE\s+STATUS\s+%$/);
        assert.equal(tableRows(asTable).length, all.filter((c) => c.status === 'compliant').length);

        const id = rows[0].controlId;
        const [one, oneTable] = await Promise.all([
          s.cli(['controls', 'get', id, '--fields', 'complianceOverview,mappedArtifacts']),
          s.cli(['controls', 'get', id, '-o', 'table'], WIDE),
        ]);
        const control = json(one);
        assert.deepEqual(control, (await s.sdk.controls.get(id, { fields: ['complianceOverview', 'mappedArtifacts'] })).data);
        assert.ok(Array.isArray(control.complianceOverview));
        assert.match(ok(oneTable), new RegExp(`^controlCode\\s+${control.controlCode}$`, 'm'));
      });

      it('policies list and get: relevance, departments, review dates; expansions', async () => {
        const expected = (await s.sdk.policies.list({ isRelevant: true, departments: ['No Department'] })).data;
        const dated = (await s.sdk.policies.list()).data.filter((p) => p.nextReviewDate !== null);
        const from = Math.min(...dated.map((p) => p.nextReviewDate!));
        const approver = (await s.sdk.policies.list()).data.find((p) => p.approvers.length > 0)!.approvers[0].email;
        const [table, byDate, approvers] = await Promise.all([
          s.cli(['policies', 'list', '--is-relevant', 'true', '--departments', 'No Department', '-o', 'table'], WIDE),
          s.cli([
            'policies',
            'list',
            '--next-review-at-from',
            String(from),
            '--next-review-at-to',
            '2100-01-01',
            '--fields',
            'versionNumber',
            '-o',
            'ndjson',
          ]),
          s.cli(['policies', 'list', '--status', 'published,draft,needs_review', '--approver-emails', approver, '--is-relevant', '1']),
        ]);
        assert.ok(expected.length > 0);
        assert.match(header(table), /^POLICY ID\s+CUSTOM ID\s+NAME\s+STATUS\s+DEPARTMENT\s+RELEVANT\s+NEXT REVIEW\s+GAPS$/);
        const rows = tableRows(table);
        assert.equal(rows.length, expected.length);
        for (const p of expected) assert.ok(rows.some((r) => r.startsWith(p.policyId)));
        const reviewed = ndjson(byDate);
        assert.equal(reviewed.length, dated.length);
        assert.deepEqual(
          reviewed,
          (await s.sdk.policies.list({ nextReviewAtFrom: from, nextReviewAtTo: Date.UTC(2100, 0, 1), fields: ['versionNumber'] })).data,
        );
        const approved = json(approvers);
        assert.deepEqual(
          approved,
          (await s.sdk.policies.list({ status: ['published', 'draft', 'needs_review'], approverEmails: [approver], isRelevant: true }))
            .data,
        );
        for (const p of approved) assert.ok(p.approvers.some((a: { email: string }) => a.email === approver));
        const id = expected[0].policyId;
        const policy = json(await s.cli(['policies', 'get', id, '--fields', 'versionHistory,documents']));
        assert.deepEqual(policy, (await s.sdk.policies.get(id, { fields: ['versionHistory', 'documents'] })).data);
        assert.ok(Array.isArray(policy.versionHistory));
      });

      it('evidence list and get: status and fields; the attachments expansion', async () => {
        const expected = (await s.sdk.evidence.list({ status: ['needs_revision'], fields: ['ticketsCount'] })).data;
        const [rows, table] = await Promise.all([
          s.cli(['evidence', 'list', '--status', 'needs_revision', '--fields', 'ticketsCount', '-o', 'ndjson']),
          s.cli(['evidence', 'list', '--status', 'uploaded', '-o', 'table', '--fields', 'ticketsCount'], WIDE),
        ]);
        assert.deepEqual(ndjson(rows), expected);
        assert.match(header(table), /^EVIDENCE ID\s+NAME\s+STATUS\s+DEPARTMENT\s+RELEVANT\s+NEXT REVIEW\s+GAPS\s+ticketsCount$/);
        const uploaded = (await s.sdk.evidence.list({ status: ['uploaded'] })).data[0].evidenceId;
        const record = json(await s.cli(['evidence', 'get', uploaded, '--fields', 'attachments,gaps']));
        assert.equal(record.evidenceId, uploaded);
        assert.ok(record.attachments.length > 0);
      });

      it('tests list and get: status, applications, assignees; resource status of flagged resources', async () => {
        const all = (await s.sdk.tests.list()).data;
        const app = all[0].applications[0].name;
        const expected = (await s.sdk.tests.list({ status: ['fix_required', 'affected'], applications: [app] })).data;
        const [filtered, table] = await Promise.all([
          s.cli(['tests', 'list', '--status', 'fix_required,affected', '--applications', app, '--fields', 'mappedFrameworkIds']),
          s.cli(['tests', 'list', '--assignee-emails', all[0].assignees[0].email, '-o', 'table'], WIDE),
        ]);
        const got = json(filtered);
        assert.deepEqual(ids(got, 'testId'), ids(expected, 'testId'));
        for (const t of got) assert.ok(Array.isArray(t.mappedFrameworkIds));
        assert.match(header(table), /^TEST ID\s+NAME\s+STATUS\s+APPLICATIONS\s+ASSIGNEE$/);
        const id = expected[0]?.testId ?? all[0].testId;
        const test = json(await s.cli(['tests', 'get', id, '--resource-status', 'passing,fix_required', '--fields', 'testHistory']));
        assert.deepEqual(test, (await s.sdk.tests.get(id, { resourceStatus: ['passing', 'fix_required'], fields: ['testHistory'] })).data);
      });

      it('vulnerabilities list walks every page; filters, --page-size, --limit; get by the listed ID', async () => {
        const first = await s.sdk.vulnerabilities.listPage({ count: 50 });
        const critical = await s.sdk.vulnerabilities.listPage({ severity: ['critical'], fixAvailable: ['yes', 'no'], count: 50 });
        const bySource = await s.sdk.vulnerabilities.listPage({ status: ['open', 'risk'], source: ['snyk', 'aws', 'qualys'] });
        const [all, criticalRows, filtered, limited, table] = await Promise.all([
          s.cli(['vulnerabilities', 'list']),
          s.cli([
            'vulns',
            'list',
            '--severity',
            'critical',
            '--fix-available',
            'yes,no',
            '--page-size',
            '50',
            '--fields',
            'cvssScore',
            '-o',
            'ndjson',
          ]),
          s.cli(['vulnerabilities', 'list', '--status', 'open,risk', '--source', 'snyk,aws,qualys', '-o', 'ndjson']),
          s.cli(['vulnerabilities', 'list', '--limit', '120', '-o', 'ndjson']),
          s.cli(['vulnerabilities', 'list', '--limit', '3', '-o', 'table'], WIDE),
        ]);
        const every = json(all);
        assert.ok(first.meta.totalCount > 400, 'the demo has about 500 findings');
        assert.equal(every.length, first.meta.totalCount);
        assert.equal(new Set(every.map((v: { vulnerabilityId: string }) => v.vulnerabilityId)).size, every.length, 'no finding twice');
        const crit = ndjson(criticalRows);
        assert.equal(crit.length, critical.meta.totalCount);
        for (const v of crit) {
          assert.equal(v.severity, 'critical');
          assert.equal(typeof v.cvssScore, 'number');
        }
        const some = ndjson(filtered);
        assert.equal(some.length, bySource.meta.totalCount);
        for (const v of some) {
          assert.ok(['open', 'risk'].includes(v.status));
          assert.ok(['snyk', 'aws', 'qualys'].includes(v.source));
        }
        assert.deepEqual(ndjson(limited), every.slice(0, 120), '--limit stops early, in the order of the walk');
        assert.match(header(table), /^VULNERABILITY ID\s+SEVERITY\s+STATUS\s+SOURCE\s+CVE\s+TITLE\s+ASSIGNEE$/);
        assert.equal(tableRows(table).length, 3);

        const id = every[0].vulnerabilityId as string;
        assert.match(id, /%23/);
        const [encoded, decoded] = await Promise.all([
          s.cli([
            'vulnerabilities',
            'get',
            id,
            '--fields',
            'affectedResources',
            '--resource-status',
            'open,closed,acknowledged,ignored,risk',
          ]),
          s.cli(['vulnerabilities', 'get', decodeURIComponent(id), '-o', 'ndjson']),
        ]);
        const finding = json(encoded);
        assert.deepEqual(
          finding,
          (
            await s.sdk.vulnerabilities.get(id, {
              fields: ['affectedResources'],
              resourceStatus: ['open', 'closed', 'acknowledged', 'ignored', 'risk'],
            })
          ).data,
        );
        assert.ok(Array.isArray(finding.affectedResources));
        assert.equal(ndjson(decoded)[0].vulnerabilityId, id);
      });

      it('exit 4 for an unknown ID and 6 for an invalid filter value, with the code, details and request ID', async () => {
        const results = await Promise.all([
          s.cli(['controls', 'get', '00000000-0000-4000-8000-000000000000']),
          s.cli(['vulnerabilities', 'get', 'api%23VUL-0000']),
          s.cli(['tests', 'get', 'test_no_such_test']),
          s.cli(['controls', 'list', '--status', 'green']),
          s.cli(['vulnerabilities', 'list', '--severity', 'catastrophic']),
          s.cli(['evidence', 'list', '--fields', 'nonsense']),
        ]);
        for (const res of results.slice(0, 3)) {
          assert.equal(res.code, 4, explain(res));
          assert.match(res.stderr, /not_found: /);
          assert.match(res.stderr, /request ID: req_/);
        }
        for (const res of results.slice(3)) {
          assert.equal(res.code, 6, explain(res));
          assert.match(res.stderr, /validation_failed: /);
          assert.equal(res.stdout, '');
        }
        assert.match(results[3].stderr, /status: .*green/);
      });
    });
  }
});
