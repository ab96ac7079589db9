// "Load more" on the console's cursor-paged tables, in real headless Chromium against the real
// server: the audit log (50 entries a page) and an endpoint's deliveries (25 a page) each show their
// first page, append the next on "Load more", and once the last page is in, the button goes and
// focus stays in the table.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { createConsoleAdmin, createOrgWithCredential, startServer, type TestServer } from '../harness/server.ts';
import { CHROMIUM, launchChromium } from '../harness/browser.ts';
import { enqueueEvents, insertEndpointFixture, testEvent } from '../harness/webhooks.ts';
import { insertAuditEntry } from '../../src/storage/db/repositories/console/audit-log.ts';

const EMAIL = 'admin@load-more.example';
const PASSWORD = 'e2e password for load more';

const skip = fs.existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed (apt-get install chromium)`;

describe('console "Load more" in Chromium', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let endpointId: string;

  before(async () => {
    // No delivery worker: the deliveries stay pending, to be listed, not sent.
    server = await startServer({ env: { WEBHOOK_DELIVERY: 'off' } });
    const { organizationId } = await createOrgWithCredential(server.system, { name: 'Load More Org' });
    await createConsoleAdmin(server.system, { organizationId, email: EMAIL, password: PASSWORD });
    // 60 older entries than the setup's and the sign-in's: two pages of the audit log
    const start = Date.now() - 3_600_000;
    for (let i = 0; i < 60; i++) {
      await insertAuditEntry(server.database.db.kysely, {
        id: randomUUID(),
        organizationId,
        at: start + i * 1000,
        actorType: 'cli',
        actorId: null,
        actorLabel: `older action ${i}`,
        action: 'credential.created',
        targetType: null,
        targetId: null,
        targetLabel: null,
        ip: null,
        userAgent: null,
      });
    }
    ({ endpointId } = await insertEndpointFixture(server.system, { organizationId, url: 'https://93.184.216.34/load-more' }));
    await enqueueEvents(
      server.database.db,
      organizationId,
      Array.from({ length: 30 }, () => testEvent()),
    );
    browser = await launchChromium();
    page = await (await browser.newContext()).newPage();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  const bodyRows = (table: string | RegExp) => page.getByRole('table', { name: table }).locator('tbody tr');
  const focusedTag = () => page.evaluate<string | undefined>('document.activeElement?.tagName');

  test('the audit log appends its next page, then drops the button and keeps focus in the table', async () => {
    await page.goto(`${server.url}/console/sign-in`);
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Credentials' }).waitFor();
    await page.goto(`${server.url}/console/audit-log`);
    const rows = bodyRows('Administrator actions, newest first');
    await rows.first().waitFor();
    assert.equal(await rows.count(), 50);
    assert.equal(await rows.filter({ hasText: 'older action 0' }).count(), 0, 'the oldest entry is on the next page');
    await page.getByRole('button', { name: 'Load more' }).click();
    await rows.filter({ hasText: 'older action 0' }).waitFor();
    // 60 inserted, the admin's creation and this sign-in
    assert.equal(await rows.count(), 62);
    assert.equal(await page.getByRole('button', { name: 'Load more' }).count(), 0);
    assert.equal(await focusedTag(), 'CAPTION');
  });

  test("an endpoint's deliveries append their next page", async () => {
    await page.goto(`${server.url}/console/webhooks/${endpointId}`);
    const rows = bodyRows(/Deliveries to this endpoint/);
    await rows.first().waitFor();
    assert.equal(await rows.count(), 25);
    await page.getByRole('button', { name: 'Load more' }).click();
    await page.getByRole('button', { name: 'Load more' }).waitFor({ state: 'detached' });
    assert.equal(await rows.count(), 30);
  });
});
