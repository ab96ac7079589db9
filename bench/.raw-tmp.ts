import { DatabaseSync } from 'node:sqlite';
const db = new DatabaseSync('/tmp/cds-bench-small/vulns-scale-4.sqlite');
const org = (db.prepare("select id from organizations where name like 'Bench vulnerabilities%'").get() as any).id;
const q1 = `select "v".* from (select "first_seen", "source", "finding_key" from (select "first_seen", "source", "finding_key" from "vulnerabilities" where "organization_id" = ? order by "first_seen" desc, "source", "finding_key" limit ?) as "b0") as "k" inner join "vulnerabilities" as "v" on "v"."organization_id" = ? and "v"."source" = "k"."source" and "v"."finding_key" = "k"."finding_key" order by "k"."first_seen" desc, "k"."source", "k"."finding_key" limit ?`;
const q2 = `select first_seen, source, finding_key from vulnerabilities where organization_id = ? order by first_seen desc, source, finding_key limit ?`;
const q3 = `select * from vulnerabilities where organization_id = ? order by first_seen desc, source, finding_key limit ?`;
function t(name: string, f: () => unknown) { for (let i=0;i<5;i++) f(); const s=performance.now(); for (let i=0;i<100;i++) f(); console.log(name, ((performance.now()-s)/100).toFixed(3)); }
t('q1 prep+run', () => db.prepare(q1).all(org, 101, org, 101));
const p1 = db.prepare(q1); t('q1 run', () => p1.all(org, 101, org, 101));
t('q2', () => db.prepare(q2).all(org, 101));
t('q3', () => db.prepare(q3).all(org, 101));
t('prep only q1', () => db.prepare(q1));
