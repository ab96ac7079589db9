// The console's Webhooks pages end to end, in real headless Chromium against the real server on
// loopback: registering an endpoint (a refused private address named at the URL field first),
// seeing its signing secret exactly once and copying it, rotating it (both secrets sign during the
// overlap), disabling and re-enabling, the deliveries table, and deleting.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { api, createConsoleAdmin, createOrgWithCredential, startServer, type TestServer } from '../harness/server.ts';
import { CHROMIUM, launchChromium, newClipboardPage } from '../harness/browser.ts';
import { liveSigningSecrets } from '../../src/domain/webhooks/signing-secrets.ts';

const EMAIL = 'admin@webhooks.example';
const PASSWORD = 'e2e password for the webhooks console';
// a literal public address: registration needs no DNS
const URL_ONE = 'https://93.184.216.34/cds-events';

const skip = fs.existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed (apt-get install chromium)`;

describe('console webhooks in Chromium', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let organizationId: string;
  let endpointId: string;
  let firstSecret: string;

  before(async () => {
    // No delivery worker: the endpoints here are public addresses, and this machine sends nothing
    // off it; the deliveries table is filled and read, not sent.
    server = await startServer({ env: { WEBHOOK_DELIVERY: 'off' } });
    organizationId = (await createOrgWithCredential(server.system, { name: 'Webhooks Org' })).organizationId;
    await createConsoleAdmin(server.system, { organizationId, email: EMAIL, password: PASSWORD });
    browser = await launchChromium();
    ({ context, page } = await newClipboardPage(browser, server.url));
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  const heading = (name: string) => page.getByRole('heading', { level: 1, name });

  test('signs in and opens Webhooks from the navigation', async () => {
    await page.goto(`${server.url}/console/sign-in`);
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Credentials').waitFor();
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Webhooks' }).click();
    await heading('Webhooks').waitFor();
    assert.equal(new URL(page.url()).pathname, '/console/webhooks');
    await page.getByText('No endpoints yet.').waitFor();
  });

  test('a loopback URL is refused at the URL field, and nothing is registered', async () => {
    await page.getByLabel('Endpoint URL').fill('http://127.0.0.1:9000/hook');
    await page.getByRole('button', { name: 'Register endpoint' }).click();
    const message = page.locator('.field-error');
    await message.waitFor();
    assert.match(await message.innerText(), /loopback.*public addresses/);
    assert.equal(await page.getByLabel('Endpoint URL').getAttribute('aria-invalid'), 'true');
    const listed = await api(server.url, '/console/api/webhook-endpoints', undefined, { headers: { cookie: await cookie() } });
    assert.deepEqual(listed.body.data, []);
  });

  async function cookie() {
    // scoped to /console, so asked for by name rather than by the server's root URL
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === 'cds_console');
    assert.ok(session);
    return `${session.name}=${session.value}`;
  }

  test('registering shows the secret once, copies it, and lists the endpoint without it', async () => {
    await page.getByLabel('Endpoint URL').fill(URL_ONE);
    await page.getByLabel('Description (optional)').fill('SIEM');
    // from all events to two chosen types
    await page.getByLabel('All events, including types added later').uncheck();
    await page.getByRole('checkbox', { name: /vulnerability\.created/ }).check();
    await page.getByRole('checkbox', { name: /evidence\.status_changed/ }).check();
    await page.getByRole('button', { name: 'Register endpoint' }).click();
    const panel = page.getByRole('region', { name: 'Endpoint registered' });
    await panel.waitFor();
    firstSecret = (await page.getByTestId('webhook-secret').innerText()).trim();
    assert.match(firstSecret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.match(await panel.innerText(), /shown only once/);
    await page.getByRole('button', { name: 'Copy secret' }).click();
    await page.getByText('Copied', { exact: true }).waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), firstSecret);

    const row = page.getByRole('row').filter({ hasText: URL_ONE });
    assert.match(await row.innerText(), /SIEM[\s\S]*vulnerability\.created, evidence\.status_changed[\s\S]*Enabled/);
    const stored = (await api(server.url, '/console/api/webhook-endpoints', undefined, { headers: { cookie: await cookie() } })).body.data;
    assert.equal(stored.length, 1);
    endpointId = stored[0].endpointId;
    assert.deepEqual(
      await liveSigningSecrets(server.system, endpointId, Date.now()),
      [firstSecret],
      'the secret shown is the one that signs',
    );

    await page.getByRole('button', { name: 'Done' }).click();
    assert.equal(await page.getByTestId('webhook-secret').count(), 0);
    await page.reload();
    await heading('Webhooks').waitFor();
    await page.getByRole('row').filter({ hasText: URL_ONE }).waitFor();
    assert.ok(!(await page.content()).includes(firstSecret), 'the secret is nowhere in the page after a reload');
  });

  test("the endpoint's page shows its settings; rotating shows the new secret once, and both sign", async () => {
    await page.getByRole('row').filter({ hasText: URL_ONE }).getByRole('link', { name: URL_ONE }).click();
    await heading('Webhook endpoint').waitFor();
    assert.equal(new URL(page.url()).pathname, `/console/webhooks/${endpointId}`);
    assert.equal((await page.getByTestId('endpoint-url').innerText()).trim(), URL_ONE);
    assert.match(await page.getByTestId('endpoint-status').innerText(), /Enabled/);
    assert.ok(!(await page.content()).includes(firstSecret));

    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rotate the signing secret?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Rotate secret' }).click();
    const panel = page.getByRole('region', { name: 'Signing secret rotated' });
    await panel.waitFor();
    const second = (await page.getByTestId('webhook-secret').innerText()).trim();
    assert.match(second, /^whsec_/);
    assert.notEqual(second, firstSecret);
    assert.match(await panel.innerText(), /signed with both this secret and the previous one/);
    assert.deepEqual(await liveSigningSecrets(server.system, endpointId, Date.now()), [second, firstSecret]);
    await page.getByRole('button', { name: 'Done' }).click();
    assert.ok(!(await page.content()).includes(second));
  });

  test('disabling and enabling; editing the event types', async () => {
    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByTestId('endpoint-status').getByText('Disabled by an administrator.').waitFor();
    assert.match(await page.getByTestId('endpoint-status').innerText(), /Disabled/);
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByRole('button', { name: 'Disable' }).waitFor();
    assert.doesNotMatch(await page.getByTestId('endpoint-status').innerText(), /Disabled by/);

    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('All events, including types added later').check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('button', { name: 'Edit' }).waitFor();
    assert.match(await page.locator('.details').innerText(), /All events/);
    const audit = await api(server.url, '/console/api/audit-log?limit=50', undefined, { headers: { cookie: await cookie() } });
    const actions = (audit.body.data as any[]).filter((e) => e.target?.id === endpointId).map((e) => e.action);
    assert.deepEqual(actions.reverse(), [
      'webhook_endpoint.create',
      'webhook_endpoint.rotate_secret',
      'webhook_endpoint.disable',
      'webhook_endpoint.enable',
      'webhook_endpoint.update',
    ]);
  });

  test('the deliveries table shows status, HTTP code, latency and attempts, with Redeliver', async (t) => {
    // The deliveries routes belong to the delivery branch (issue 15's contract); before they are
    // merged the section says it could not load them.
    const probe = await api(server.url, `/console/api/webhook-endpoints/${endpointId}/deliveries`, undefined, {
      headers: { cookie: await cookie() },
    });
    if (probe.status === 404) {
      await page.getByText(/Could not load deliveries/).waitFor();
      t.skip('GET /console/api/webhook-endpoints/{endpointId}/deliveries is not served on this branch (the delivery engineer’s route)');
      return;
    }
    const now = Date.now();
    const rows = [
      { status: 'succeeded', attempts: 1, code: 204, latency: 87, at: now - 60_000 },
      { status: 'pending', attempts: 3, code: 500, latency: 1204, at: now - 30_000 },
    ] as const;
    for (const r of rows) {
      await server.database.db.kysely
        .insertInto('webhook_deliveries')
        .values({
          id: randomUUID(),
          organization_id: organizationId,
          endpoint_id: endpointId,
          event_id: `evt_${randomUUID()}`,
          event_type: 'vulnerability.created',
          payload: '{}',
          status: r.status,
          attempts: r.attempts,
          // far ahead, so a worker leaves the rows as they are
          next_attempt_at: now + 86_400_000,
          last_attempt_at: r.at,
          last_status_code: r.code,
          last_latency_ms: r.latency,
          last_error: r.status === 'pending' ? 'HTTP 500' : null,
          created_at: r.at,
        })
        .execute();
    }
    await page.getByRole('button', { name: 'Refresh' }).click();
    const table = page.getByRole('table', { name: /Deliveries to this endpoint/ });
    await table.waitFor();
    const body = await table.locator('tbody').innerText();
    assert.match(body, /Pending[\s\S]*500[\s\S]*1,204 ms[\s\S]*3[\s\S]*Succeeded[\s\S]*204[\s\S]*87 ms[\s\S]*1/, 'newest first');
    assert.equal(await table.getByRole('button', { name: /^Redeliver/ }).count(), 2);
  });

  test('Send test event and Redeliver each add a delivery to the table', async (t) => {
    const table = page.getByRole('table', { name: /Deliveries to this endpoint/ });
    if ((await table.count()) === 0) {
      t.skip('the deliveries routes are not served on this branch (see the test above)');
      return;
    }
    const rows = table.locator('tbody tr');
    const before = await rows.count();
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByText('A test event is on its way.').waitFor();
    await table.getByText('webhook.test').waitFor();
    assert.equal(await rows.count(), before + 1);
    const oldest = rows.last();
    const eventId = (await oldest.locator('.event-id').innerText()).trim();
    await oldest.getByRole('button', { name: /^Redeliver/ }).click();
    await page.getByText(`Event ${eventId} will be delivered again, as a new delivery.`).waitFor();
    await page.waitForFunction(`document.querySelectorAll('table.deliveries-table tbody tr').length === ${before + 2}`);
    // the redelivery is the newest row and carries the same event ID (the webhook-id header)
    assert.equal((await rows.first().locator('.event-id').innerText()).trim(), eventId);
  });

  test('deleting asks first, then goes back to the list', async () => {
    await page.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this endpoint?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('button', { name: 'Delete' }).click();
    await dialog.getByRole('button', { name: 'Delete endpoint' }).click();
    await heading('Webhooks').waitFor();
    await page.getByText('No endpoints yet.').waitFor();
    await page.goto(`${server.url}/console/webhooks/${endpointId}`);
    await page.getByText('This endpoint does not exist, or it was deleted.').waitFor();
  });
});
