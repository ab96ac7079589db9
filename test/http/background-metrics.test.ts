// Metrics of the work done in the background, on the operations listener's /metrics: webhook
// deliveries by outcome and the lag of the worker that starts them, the outbox backlog and the
// age of its oldest due delivery; and the example alert rules (deploy/prometheus/alerts.yaml)
// name only metrics that exist. On every engine.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { parse } from 'yaml';
import { dialects } from '../harness/engines.ts';
import { startServer, type TestServer } from '../harness/server.ts';
import { enqueueEvents, eventually, insertEndpointFixture, startReceiver, testEvent, type Receiver } from '../harness/webhooks.ts';
import { createOrganization } from '../../src/domain/organizations/create.ts';

const scrape = async (server: TestServer) => (await fetch(`${server.opsUrl}/metrics`)).text();
/** the value of one sample line, e.g. `cds_webhook_outbox_pending` or `cds_webhook_deliveries_total{outcome="succeeded"}` */
const sample = (text: string, series: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

for (const dialect of dialects) {
  describe(`background work metrics (${dialect})`, () => {
    let server: TestServer | undefined;
    let idle: TestServer | undefined;
    let receivers: Receiver[] = [];
    after(async () => {
      await server?.close();
      await idle?.close();
      await Promise.all(receivers.map((r) => r.close()));
    });

    test('deliveries are counted by outcome, and the worker lag is observed for each', async () => {
      server = await startServer({ dialect, env: { WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true', WEBHOOK_POLL_MS: '50' } });
      const organizationId = (await createOrganization({ ctx: server.system, input: { name: 'Metrics hooks' } })).id;
      const ok = await startReceiver(204);
      const failing = await startReceiver(500);
      receivers = [ok, failing];
      const good = await insertEndpointFixture(server.system, { organizationId, url: `${ok.url}/hook` });
      const bad = await insertEndpointFixture(server.system, { organizationId, url: `${failing.url}/hook` });
      assert.ok(good && bad);
      // due 2 s ago: the lag observed is at least that
      await enqueueEvents(server.database.db, organizationId, [testEvent(), testEvent()], Date.now() - 2000);
      // each event goes to both endpoints: two attempts succeed, two fail (a retry is scheduled)
      await ok.waitFor(2);
      await failing.waitFor(2);
      const text = await eventually(async () => {
        const t = await scrape(server!);
        return sample(t, 'cds_scheduler_lag_seconds_count{scheduler="webhook_delivery"}') === 4 ? t : undefined;
      });
      assert.equal(sample(text, 'cds_webhook_deliveries_total{outcome="succeeded"}'), 2);
      assert.equal(sample(text, 'cds_webhook_deliveries_total{outcome="retrying"}'), 2);
      assert.ok(
        sample(text, 'cds_scheduler_lag_seconds_sum{scheduler="webhook_delivery"}')! >= 4 * 2,
        'four attempts, each at least 2 s late',
      );
      assert.equal(sample(text, 'cds_scheduler_lag_seconds_bucket{le="1",scheduler="webhook_delivery"}'), 0);
    });

    test('the outbox backlog and the age of its oldest due delivery, read at scrape time', async () => {
      idle = await startServer({ dialect, env: { WEBHOOK_DELIVERY: 'off' } });
      const organizationId = (await createOrganization({ ctx: idle.system, input: { name: 'Metrics backlog' } })).id;
      const empty = await scrape(idle);
      assert.equal(sample(empty, 'cds_webhook_outbox_pending'), 0);
      assert.equal(sample(empty, 'cds_webhook_outbox_oldest_due_seconds'), 0);

      await insertEndpointFixture(idle.system, { organizationId, url: 'https://hooks.example.com/a' });
      await enqueueEvents(idle.database.db, organizationId, [testEvent(), testEvent()], Date.now() - 60_000);
      await enqueueEvents(idle.database.db, organizationId, [testEvent()], Date.now() + 3_600_000); // a retry due in an hour
      await new Promise((resolve) => setTimeout(resolve, 1100)); // past the one-second reuse of the last answer
      const text = await scrape(idle);
      assert.equal(sample(text, 'cds_webhook_outbox_pending'), 3);
      const age = sample(text, 'cds_webhook_outbox_oldest_due_seconds')!;
      assert.ok(age >= 60 && age < 120, `oldest due ${age} s`);
    });

    test('every metric the example alert rules use is served', async () => {
      const rules = parse(fs.readFileSync(new URL('../../deploy/prometheus/alerts.yaml', import.meta.url), 'utf8'));
      const exprs: string[] = rules.groups.flatMap((g: { rules: { expr: string; alert: string }[] }) => g.rules.map((r) => r.expr));
      assert.ok(exprs.length >= 5);
      const text = await scrape(idle!);
      const families = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
      const used = new Set(exprs.flatMap((e) => [...e.matchAll(/\bcds_[a-z0-9_]+/g)].map((m) => m[0].replace(/_(bucket|count|sum)$/, ''))));
      for (const name of [
        'cds_webhook_deliveries_total',
        'cds_webhook_outbox_pending',
        'cds_webhook_outbox_oldest_due_seconds',
        'cds_scheduler_lag_seconds',
      ]) {
        assert.ok(used.has(name), `an alert uses ${name}`);
      }
      for (const name of used) assert.ok(families.has(name), `${name} is served on /metrics`);
    });
  });
}
