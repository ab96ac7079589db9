import { openDb } from '../src/storage/db/connect.ts';
import { sql } from 'kysely';
import { listVulnerabilityPage } from '../src/storage/db/repositories/vulnerabilities.ts';
const db = openDb({ sqlitePath: '/tmp/cds-bench-small/vulns-scale-4.sqlite' });
const org = (await db.kysely.selectFrom('organizations').select('id').where('name','like','Bench vulnerabilities%').executeTakeFirstOrThrow()).id;
const q3 = `select * from vulnerabilities where organization_id = '${org}' order by first_seen desc, source, finding_key limit 101`;
async function time(name: string, f: () => Promise<unknown>) { for (let i=0;i<5;i++) await f(); const t=performance.now(); for (let i=0;i<100;i++) await f(); console.log(name, ((performance.now()-t)/100).toFixed(3),'ms'); }
const dom = { statuses: ['open','closed','acknowledged','ignored','risk'], severities: ['critical','high','medium','low'] };
await time('kysely raw q3', () => sql.raw(q3).execute(db.kysely));
await time('kysely builder simple', () => db.kysely.selectFrom('vulnerabilities').selectAll().where('organization_id','=',org).orderBy('first_seen','desc').limit(101).execute());
await time('page', () => listVulnerabilityPage(db.kysely, org, {}, undefined, 101, dom));
await time('select 1', () => sql`select 1`.execute(db.kysely));
