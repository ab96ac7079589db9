// The developer console end to end, in real headless Chromium (Debian's chromium, driven by
// playwright-core) against the real server on loopback: sign in, create credentials and see the
// secret exactly once, use it on /v1, revoke it (401 token_revoked at once), a Read Only
// credential refused a write, a wrong password refused, a change without the CSRF token refused,
// and the usage, overview and audit-log pages showing what happened.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import {
  api,
  createConsoleAdmin,
  createOrgWithCredential,
  getToken,
  insertCredentialFixture,
  startServer,
  type TestServer,
} from '../harness/server.ts';
import { loadDemoData } from '../../src/demo/generate.ts';
import { bumpDataVersions } from '../../src/storage/db/repositories/organizations/organizations.ts';
import { DATA_KINDS } from '../../src/shared/data-versions.ts';
import { CHROMIUM, launchChromium, newClipboardPage } from '../harness/browser.ts';

const EMAIL = 'admin@e2e.example';
const PASSWORD = 'e2e password for the console';

// .ci/run installs Debian's chromium; elsewhere the suite says why it did not run.
const skip = fs.existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed (apt-get install chromium)`;

describe('developer console in Chromium', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let organizationId: string;

  before(async () => {
    server = await startServer();
    const org = await createOrgWithCredential(server.system, { name: 'E2E Org' });
    organizationId = org.organizationId;
    await loadDemoData(server.database.db, organizationId, { scale: 1 });
    await bumpDataVersions(server.database.db.kysely, organizationId, DATA_KINDS);
    await createConsoleAdmin(server.system, { organizationId, email: EMAIL, password: PASSWORD });
    browser = await launchChromium();
    ({ page } = await newClipboardPage(browser, server.url));
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  const heading = (name: string) => page.getByRole('heading', { level: 1, name });
  // Run in the page (as strings: this file is type-checked without the DOM library).
  const focusedText = () => page.evaluate<string | undefined>('document.activeElement?.textContent?.trim()');
  const statusOf = (path: string) => page.evaluate<number>(`fetch(${JSON.stringify(path)}).then((r) => r.status)`);

  test('a wrong password is refused on the sign-in page', async () => {
    await page.goto(`${server.url}/console`);
    await heading('Sign in').waitFor();
    // The address follows what is shown in an effect, after the page is painted (app.tsx), so the
    // heading can be seen a moment before the address changes.
    await page.waitForURL((url) => url.pathname === '/console/sign-in');
    // Keyboard order: email, password, then the button.
    await page.getByLabel('Email').focus();
    await page.keyboard.type(EMAIL);
    await page.keyboard.press('Tab');
    await page.keyboard.type('not the right password');
    await page.keyboard.press('Tab');
    assert.equal(await focusedText(), 'Sign in');
    await page.keyboard.press('Enter');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.innerText(), /email or password is wrong/);
    const session = await statusOf('/console/api/session');
    assert.equal(session, 401, 'no session was started');
  });

  test('signing in shows the credentials page with the organization', async () => {
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Credentials').waitFor();
    await page.waitForURL((url) => url.pathname === '/console/credentials');
    const header = await page.locator('header').innerText();
    assert.match(header, /E2E Org/);
    assert.match(header, new RegExp(EMAIL.replace('.', '\\.')));
  });

  let readWrite: { clientId: string; clientSecret: string };
  let readWriteToken: string;

  test('creating a Read & Write credential shows its secret once; a reload does not show it again', async () => {
    await page.getByLabel('Name').fill('E2E Read & Write');
    await page.getByLabel('Access level').selectOption({ label: 'Read & Write' });
    await page.getByRole('button', { name: 'Create credential' }).click();
    const panel = page.getByRole('region', { name: 'New credential created' });
    await panel.waitFor();
    readWrite = {
      clientId: (await page.getByTestId('new-client-id').innerText()).trim(),
      clientSecret: (await page.getByTestId('new-client-secret').innerText()).trim(),
    };
    assert.match(readWrite.clientId, /^cds_id_/);
    assert.match(readWrite.clientSecret, /^cds_secret_/);
    assert.match(await panel.innerText(), /shown only once/);

    await page.getByRole('button', { name: 'Copy secret' }).click();
    await page.getByText('Copied', { exact: true }).waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), readWrite.clientSecret);

    const row = page.getByRole('row').filter({ hasText: readWrite.clientId });
    assert.match(await row.innerText(), /E2E Read & Write[\s\S]*Read & Write[\s\S]*Never[\s\S]*Active/);

    await page.reload();
    await heading('Credentials').waitFor();
    await page.getByRole('row').filter({ hasText: readWrite.clientId }).waitFor();
    assert.equal(await page.getByTestId('new-client-secret').count(), 0);
    assert.ok(!(await page.content()).includes(readWrite.clientSecret), 'the secret is nowhere in the page');
    const storage = await page.evaluate<string>('JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })');
    assert.ok(!storage.includes(readWrite.clientSecret), 'nor in web storage');
  });

  test('the new secret obtains a token that works on /v1, writes included', async () => {
    readWriteToken = await getToken(server.url, readWrite);
    const list = await api(server.url, '/v1/frameworks', readWriteToken);
    assert.equal(list.status, 200);
    const created = await api(server.url, '/v1/vulnerabilities', readWriteToken, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'e2e-create-1' },
      body: JSON.stringify({ vulnerabilityId: 'VUL-9901', title: 'Found in the console test', severity: 'low', status: 'open' }),
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
  });

  test('revoking asks for confirmation, then the old token gets 401 token_revoked at once', async () => {
    await page.reload();
    await page.getByRole('button', { name: 'Revoke E2E Read & Write' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke credential?' });
    await dialog.waitFor();
    assert.equal(await focusedText(), 'Cancel', 'the safe choice has focus');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    assert.equal((await api(server.url, '/v1/frameworks', readWriteToken)).status, 200, 'Escape revoked nothing');

    await page.getByRole('button', { name: 'Revoke E2E Read & Write' }).click();
    await dialog.getByRole('button', { name: 'Revoke credential' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const row = page.getByRole('row').filter({ hasText: readWrite.clientId });
    await row.getByText('Revoked', { exact: true }).waitFor();
    assert.equal(await row.getByRole('button').count(), 0, 'a revoked credential has no revoke button');

    const res = await api(server.url, '/v1/frameworks', readWriteToken);
    assert.equal(res.status, 401);
    assert.equal(res.body.error.code, 'token_revoked');
    await page.reload();
    await page.getByRole('row').filter({ hasText: readWrite.clientId }).getByText('Revoked', { exact: true }).waitFor();
  });

  test('a Read Only credential created in the console is refused a write with 403 forbidden', async () => {
    await page.getByLabel('Name').fill('E2E Read Only');
    await page.getByLabel('Access level').selectOption({ label: 'Read Only' });
    await page.getByRole('button', { name: 'Create credential' }).click();
    await page.getByRole('region', { name: 'New credential created' }).waitFor();
    const readOnly = {
      clientId: (await page.getByTestId('new-client-id').innerText()).trim(),
      clientSecret: (await page.getByTestId('new-client-secret').innerText()).trim(),
    };
    await page.getByRole('button', { name: 'Done' }).click();
    assert.equal(await page.getByTestId('new-client-secret').count(), 0);

    const token = await getToken(server.url, readOnly);
    assert.equal((await api(server.url, '/v1/vulnerabilities', token)).status, 200);
    const write = await api(server.url, '/v1/vulnerabilities', token, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'e2e-create-2' },
      body: JSON.stringify({ vulnerabilityId: 'VUL-9902', title: 'Should not exist', severity: 'low', status: 'open' }),
    });
    assert.equal(write.status, 403);
    assert.equal(write.body.error.code, 'forbidden');
  });

  test('a change without the CSRF token is refused, even with the session cookie', async () => {
    const before = await page.getByRole('row').count();
    // The browser sends the session cookie by itself; only the CSRF header is missing.
    const res = await page.evaluate<{ status: number; body: any }>(`(async () => {
      const r = await fetch('/console/api/credentials', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'forged', accessLevel: 'read_write' }),
      });
      return { status: r.status, body: await r.json() };
    })()`);
    assert.equal(res.status, 403);
    assert.equal(res.body.error.code, 'forbidden');
    await page.reload();
    await heading('Credentials').waitFor();
    await page.getByRole('row').filter({ hasText: 'E2E Read Only' }).waitFor();
    assert.equal(await page.getByRole('row').count(), before, 'nothing was created');
    assert.equal(await page.getByRole('row').filter({ hasText: 'forged' }).count(), 0);
  });

  test('the usage page charts the requests of the last 24 hours per credential', async () => {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Usage' }).click();
    await heading('Usage').waitFor();
    // Focus moves in an effect after the heading renders: wait for it (a few seconds at most).
    await page
      .waitForFunction("document.activeElement?.tagName === 'H1'", undefined, { timeout: 5000 })
      .catch(async () => assert.fail(`focus moves to the new page; focused: ${await page.evaluate('document.activeElement?.tagName')}`));
    // The Read & Write credential made 3 /v1 requests (list, create, list) before revocation;
    // its token's request after revocation is refused before it is counted.
    const chart = page.getByRole('img', { name: /^E2E Read & Write: 3 requests, 0 rate-limited/ });
    await chart.waitFor();
    const readOnly = page.getByRole('img', { name: /^E2E Read Only: 2 requests, 0 rate-limited/ });
    await readOnly.waitFor();
  });

  test('the compliance overview shows every framework with the progress /v1/frameworks computes', async () => {
    await page.getByRole('link', { name: 'Compliance overview' }).click();
    await heading('Compliance overview').waitFor();
    // Read /v1 with a credential of the same organization made outside the browser.
    const c = await insertCredentialFixture({
      ctx: server.system,
      input: { organizationId, accessLevel: 'read_only', name: 'comparison' },
    });
    const v1 = await api(server.url, '/v1/frameworks', await getToken(server.url, c));
    for (const framework of v1.body.data) {
      const card = page.getByRole('region', { name: framework.frameworkName });
      await card.waitFor();
      const p = framework.complianceProgress;
      const bars: Array<[string, number]> = [
        ['Controls', p.controls.percentage],
        ['Policies', p.policies.percentage],
        ['Evidence', p.evidence.percentage],
        ['Tests', p.tests.percentage],
      ];
      for (const [label, percentage] of bars) {
        assert.equal(Number(await card.getByLabel(label).getAttribute('value')), percentage, `${framework.frameworkName} ${label}`);
      }
      assert.match(await card.innerText(), new RegExp(`${p.controls.compliant} of ${p.controls.total}`));
    }
  });

  test('the audit log lists the actions, newest first, with who and from where', async () => {
    await page.getByRole('link', { name: 'Audit log' }).click();
    await heading('Audit log').waitFor();
    const rows = page.getByRole('row');
    await rows.filter({ hasText: 'Revoked credential' }).waitFor();
    const text = await page.locator('table').innerText();
    for (const expected of [
      'E2E Read Only',
      'E2E Read & Write',
      'Created credential',
      'Revoked credential',
      'Signed in',
      'Sign-in failed',
    ]) {
      assert.ok(text.includes(expected), `${expected} in\n${text}`);
    }
    const at = (needle: string) => text.indexOf(needle);
    assert.ok(at('Revoked credential') < at('Signed in') && at('Signed in') < at('Sign-in failed'), 'newest first');
    assert.ok(text.includes(EMAIL));
    assert.ok(text.includes('127.0.0.1'));
  });

  test('a credential created while another one’s secret is shown takes the panel; "Copied" was about the old secret', async () => {
    await page.goto(`${server.url}/console/credentials`);
    await heading('Credentials').waitFor();
    await page.getByLabel('Name').fill('E2E First of two');
    await page.getByRole('button', { name: 'Create credential' }).click();
    const panel = page.getByRole('region', { name: 'New credential created' });
    await panel.waitFor();
    const first = (await page.getByTestId('new-client-secret').innerText()).trim();
    await page.getByRole('button', { name: 'Copy secret' }).click();
    await panel.getByText('Copied', { exact: true }).waitFor();

    await page.getByLabel('Name').fill('E2E Second of two');
    await page.getByRole('button', { name: 'Create credential' }).click();
    await page.getByTestId('new-client-secret').filter({ hasNotText: first }).waitFor();
    const second = (await page.getByTestId('new-client-secret').innerText()).trim();
    assert.match(second, /^cds_secret_/);
    assert.match(await panel.innerText(), /E2E Second of two/);
    // The status clears in an effect after the new secret renders: wait for it (a few seconds at most).
    await page
      .waitForFunction("document.querySelector('.copy-status')?.textContent === ''", undefined, { timeout: 5000 })
      .catch(async () => assert.fail(`the copy status is cleared; it says: ${await panel.getByRole('status').innerText()}`));
    assert.equal(await focusedText(), 'New credential created', 'the new secret has the attention');
    await page.getByRole('button', { name: 'Done' }).click();
    assert.equal(await page.getByTestId('new-client-secret').count(), 0);
  });

  test('after a revocation the dialog closes and focus lands on the credentials table', async () => {
    await page.getByRole('button', { name: 'Revoke E2E First of two' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke credential?' });
    await dialog.waitFor();
    assert.match(await dialog.innerText(), /Revoking E2E First of two \(client ID cds_id_[\w-]+\) cannot be undone/);
    await dialog.getByRole('button', { name: 'Revoke credential' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('row').filter({ hasText: 'E2E First of two' }).getByText('Revoked', { exact: true }).waitFor();
    await page
      .waitForFunction("document.activeElement?.tagName === 'CAPTION'", undefined, { timeout: 5000 })
      .catch(async () =>
        assert.fail(`focus is on the table's caption; focused: ${await page.evaluate('document.activeElement?.outerHTML')}`),
      );
  });

  test('signing out ends the session', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading('Sign in').waitFor();
    const status = await statusOf('/console/api/credentials');
    assert.equal(status, 401);
    await page.goto(`${server.url}/console/credentials`);
    await heading('Sign in').waitFor();
  });
});
