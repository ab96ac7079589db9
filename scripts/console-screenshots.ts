// Takes the console (and API reference) screenshots in docs/screenshots/ (`npm run screenshots`): a fresh demo
// organization on a temporary SQLite file, some real /v1 traffic (a few requests past the rate
// limit), then every page in headless Chromium. The usage chart also gets sample counts for the
// previous hours, written through the usage repository, because real traffic can only fill the
// current hour; the screenshot's caption in docs/console.md says so. A page showing an error
// banner fails the run instead of being pictured (scripts/screenshot-page.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDb } from '../src/storage/db/connect.ts';
import { migrateToLatest } from '../src/storage/db/migrate.ts';
import { MemoryRateLimitStore } from '../src/storage/ratelimit/memory.ts';
import { createDemoOrganization } from '../src/demo/create-demo-organization.ts';
import { upsertUsage } from '../src/storage/db/repositories/auth/credential-usage.ts';
import { listCredentials } from '../src/storage/db/repositories/auth/credentials.ts';
import { USAGE_BUCKET_MS } from '../src/domain/console/usage-recorder.ts';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../test/harness/browser.ts';
import { screenshotWorkingPage } from './screenshot-page.ts';

const OUT = path.resolve(import.meta.dirname, '..', 'docs', 'screenshots');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-shots-'));
// No webhook delivery worker: the endpoint registered below is a public address this machine must not call.
const config = loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent', RATE_LIMIT_MAX: '12', WEBHOOK_DELIVERY: 'off' });
const db = openDb({ databaseUrl: undefined, sqlitePath: config.sqlitePath });
await migrateToLatest(db);
const store = new MemoryRateLimitStore();
const app = await buildApp(config, { db, rateLimitStore: store, logger: false });
await app.listen({ host: '127.0.0.1', port: 0 });
const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;

let browser: Browser | undefined;
try {
  const demo = await createDemoOrganization({ db, region: config.region, now: Date.now }, {});
  // Real traffic: 15 requests against a limit of 12 per window, so three are refused.
  const token = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      grant_type: 'client_credentials',
      client_id: demo.readOnly.clientId,
      client_secret: demo.readOnly.clientSecret,
    }),
  }).then((r) => r.json() as Promise<{ access_token: string }>);
  for (let i = 0; i < 15; i++) await fetch(`${url}/v1/frameworks`, { headers: { authorization: `Bearer ${token.access_token}` } });
  // Sample counts for the previous hours (see the note at the top).
  const now = Date.now();
  const current = now - (now % USAGE_BUCKET_MS);
  const credentials = await listCredentials(db.kysely, demo.organization.id);
  await upsertUsage(
    db.kysely,
    credentials.flatMap((c, n) =>
      Array.from({ length: 23 }, (_, i) => {
        const requests = Math.round((n + 1) * 14 * (1 + Math.sin((i + n * 5) / 3.5)) + (i % 4) * 3);
        return {
          credentialId: c.id,
          organizationId: demo.organization.id,
          bucketStart: current - (23 - i) * USAGE_BUCKET_MS,
          requests,
          rateLimited: requests > 40 ? requests - 40 : 0,
        };
      }),
    ),
  );

  fs.mkdirSync(OUT, { recursive: true });
  browser = await launchChromium();
  // UTC, so the screenshots show the same zone wherever they are made (the console names it).
  const page = await browser.newPage({ viewport: { width: 1200, height: 820 }, deviceScaleFactor: 1, timezoneId: 'UTC' });
  const shot = async (name: string, fullPage = true) => {
    await screenshotWorkingPage(page, path.join(OUT, `${name}.png`), { fullPage });
    console.log(`docs/screenshots/${name}.png`);
  };
  const h1 = (name: string) => page.getByRole('heading', { level: 1, name }).waitFor();

  await page.goto(`${url}/console`);
  await h1('Sign in');
  await page.getByLabel('Email').fill(demo.admin.email);
  await page.getByLabel('Password').fill(demo.admin.password);
  await shot('console-sign-in');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await h1('Credentials');
  await page.getByLabel('Name').fill('CI pipeline');
  await page.getByLabel('Access level').selectOption({ label: 'Read & Write' });
  await page.getByRole('button', { name: 'Create credential' }).click();
  await page.getByRole('region', { name: 'New credential created' }).waitFor();
  await shot('console-credentials-new-secret');
  await page.getByRole('button', { name: 'Done' }).click();
  await page.getByRole('button', { name: 'Revoke Demo Read Only' }).click();
  await page.getByRole('dialog', { name: 'Revoke credential?' }).waitFor();
  await shot('console-revoke-confirmation');
  await page.getByRole('button', { name: 'Cancel' }).click();
  await shot('console-credentials');
  for (const [link, heading, name] of [
    ['Usage', 'Usage', 'console-usage'],
    ['Compliance overview', 'Compliance overview', 'console-overview'],
    ['Audit log', 'Audit log', 'console-audit-log'],
  ]) {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: link }).click();
    await h1(heading);
    await page.waitForLoadState('networkidle');
    await shot(name);
  }

  // Webhooks: an endpoint just registered (its secret shown once), then its page.
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Webhooks' }).click();
  await h1('Webhooks');
  await page.getByLabel('Endpoint URL').fill('https://93.184.216.34/compliance-events');
  await page.getByLabel('Description (optional)').fill('SIEM');
  await page.getByLabel('All events, including types added later').uncheck();
  await page.getByRole('checkbox', { name: /vulnerability\.created/ }).check();
  await page.getByRole('checkbox', { name: /vulnerability\.updated/ }).check();
  await page.getByRole('checkbox', { name: /control\.status_changed/ }).check();
  await page.getByRole('button', { name: 'Register endpoint' }).click();
  await page.getByRole('region', { name: 'Endpoint registered' }).waitFor();
  await shot('console-webhooks-new-secret');
  await page.getByRole('button', { name: 'Done' }).click();
  await page.getByRole('row').filter({ hasText: 'compliance-events' }).getByRole('link').click();
  await h1('Webhook endpoint');
  // the deliveries section has settled: its table, its empty message, or its error (which fails the run)
  await page.getByText(/Deliveries to this endpoint|No deliveries yet|Could not load deliveries/).waitFor();
  await shot('console-webhook-endpoint');

  // The credentials on a phone: the table becomes one card per credential, Revoke within reach.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Credentials' }).click();
  await h1('Credentials');
  await page.waitForLoadState('networkidle');
  await page.evaluate('document.querySelector("#credentials-list-heading").scrollIntoView()');
  await shot('console-credentials-phone', false);

  // The API reference at /docs, rendered from the served /openapi.json.
  await page.setViewportSize({ width: 1200, height: 820 });
  await page.goto(`${url}/docs`);
  await page.getByRole('heading', { level: 1, name: 'Compliance Data REST Service' }).waitFor();
  await page.waitForLoadState('networkidle');
  await shot('api-reference', false);
} finally {
  await browser?.close();
  await app.close();
  await store.close();
  await db.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
