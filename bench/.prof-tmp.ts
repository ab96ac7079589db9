import { openDb } from '../src/storage/db/connect.ts';
import { listVulnerabilityPage, countVulnerabilities, loadCustomFieldDefinitions, loadCustomFieldValues } from '../src/storage/db/repositories/vulnerabilities.ts';
import { loadSubjectPeople } from '../src/storage/db/repositories/links.ts';
const db = openDb({ sqlitePath: '/tmp/cds-bench-small/vulns-scale-4.sqlite' });
const org = (await db.kysely.selectFrom('organizations').select('id').where('name','=','Bench vulnerabilities scale 4').executeTakeFirstOrThrow()).id;
const dom = { statuses: ['open','closed','acknowledged','ignored','risk'], severities: ['critical','high','medium','low'] };
async function time(name: string, f: () => Promise<unknown>) { for (let i=0;i<5;i++) await f(); const t=performance.now(); for (let i=0;i<50;i++) await f(); console.log(name, ((performance.now()-t)/50).toFixed(3),'ms'); }
const rows = await listVulnerabilityPage(db.kysely, org, {}, undefined, 101, dom);
const ids = rows.map(r=>r.id);
await time('page101', () => listVulnerabilityPage(db.kysely, org, {}, undefined, 101, dom));
await time('page51 filtered', () => listVulnerabilityPage(db.kysely, org, {statuses:['open'],severities:['critical']}, undefined, 51, dom));
await time('count', () => countVulnerabilities(db.kysely, org, {}));
await time('defs', () => loadCustomFieldDefinitions(db.kysely, org, 'vulnerability'));
await time('values', () => loadCustomFieldValues(db.kysely, org, ids));
await time('people', () => loadSubjectPeople(db.kysely, org, 'vulnerability', 'assignee', ids));
import { sql, CompiledQuery } from 'kysely';
const orig = db.kysely;
// capture SQL
const { Kysely } = await import('kysely');
const logged: any[] = [];
const k2 = orig.withPlugin({ transformQuery: (a: any) => a.node, transformResult: async (a: any) => a.result } as any);
const q = (orig as any);
