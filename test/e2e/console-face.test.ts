// The console as a person meets it, in real headless Chromium against the real server: forms
// check on the client first and show each field's message once, under the field; the one-time
// secret panel goes when its credential is revoked; every time names its zone; the usage charts
// have a scale; and on a phone (390 x 844) and from 660 to 1400 px after a revocation the
// credentials table fits its box, every Revoke in sight.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createConsoleAdmin, createOrgWithCredential, startServer, type TestServer } from '../harness/server.ts';
import { CHROMIUM, launchChromium } from '../harness/browser.ts';

const EMAIL = 'admin@face.example';
const PASSWORD = 'face password for the console';
const skip = fs.existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed (apt-get install chromium)`;

describe('console forms, times, charts and phones in Chromium', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  before(async () => {
    server = await startServer();
    const org = await createOrgWithCredential(server.system, { name: 'Face Org' });
    await createConsoleAdmin(server.system, { organizationId: org.organizationId, email: EMAIL, password: PASSWORD });
    browser = await launchChromium();
  });
  after(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await server?.close();
  });

  /** A new browser (New York time, so the zone cannot be mistaken for the server's UTC) on the sign-in page. */
  async function open(viewport = { width: 1280, height: 900 }) {
    const context = await browser.newContext({ viewport, timezoneId: 'America/New_York' });
    contexts.push(context);
    const page = await context.newPage();
    const posts: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST') posts.push(new URL(request.url()).pathname);
    });
    await page.goto(`${server.url}/console`);
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    return { page, posts };
  }

  async function signIn(page: Page) {
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Credentials' }).waitFor();
  }

  async function createCredential(page: Page, name: string) {
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByRole('button', { name: 'Create credential' }).click();
    await page.getByRole('region', { name: 'New credential created' }).waitFor();
    return (await page.getByTestId('new-client-id').innerText()).trim();
  }

  const count = (text: string, part: string) => text.split(part).length - 1;

  test('sign-in: empty fields are caught in the browser; a field the API refuses is named once, under it', async () => {
    const { page, posts } = await open();
    await page.getByRole('button', { name: 'Sign in' }).click();
    assert.equal(await page.getByLabel('Email').evaluate((el: any) => el.validity.valueMissing), true, 'the email is required');
    assert.deepEqual(posts, [], 'nothing was sent');

    // Longer than the API accepts (1024 characters): the API's field message, once, at the field.
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill('x'.repeat(1100));
    await page.getByRole('button', { name: 'Sign in' }).click();
    const message = 'Password must be at most 1024 characters long';
    await page.getByText(message).waitFor();
    const text = await page.locator('main').innerText();
    assert.equal(count(text, 'at most 1024 characters'), 1, text);
    assert.doesNotMatch(text, /must NOT/);
    assert.match(await page.getByRole('alert').innerText(), /See the field/);
    const describedBy = await page.getByLabel('Password').getAttribute('aria-describedby');
    assert.equal(await page.locator(`[id="${describedBy}"]`).innerText(), message, 'the input points to its message');
  });

  test('create: a blank name is refused in the browser with a message at the field; nothing is sent', async () => {
    const { page, posts } = await open();
    await signIn(page);
    await page.getByLabel('Name').fill('   ');
    await page.getByRole('button', { name: 'Create credential' }).click();
    await page.getByText('Name must not be blank').waitFor();
    assert.ok(!posts.includes('/console/api/credentials'), 'no create request was sent');
    assert.equal(await page.getByLabel('Name').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.getByLabel('Name').getAttribute('maxlength'), '100');
    // typing again clears the message
    await page.getByLabel('Name').fill('Better name');
    assert.equal(await page.getByText('Name must not be blank').count(), 0);
  });

  test('create: an empty name gets the same message under the field, not the browser\u2019s bubble', async () => {
    const { page, posts } = await open();
    await signIn(page);
    await page.getByRole('button', { name: 'Create credential' }).click();
    await page.getByText('Name must not be blank').waitFor();
    assert.ok(!posts.includes('/console/api/credentials'), 'no create request was sent');
    assert.equal(await page.getByLabel('Name').getAttribute('aria-invalid'), 'true');
    // Still marked required (for assistive technology), without the browser's own check.
    assert.equal(await page.getByLabel('Name').evaluate((el: any) => el.required), true);
  });

  // Once a credential is revoked its row holds its revocation time where the others hold Revoke:
  // the table must still fit its box at tablet, laptop and desktop widths (below 1024 px it is a
  // list of cards, as on a phone), every Revoke in sight.
  for (const width of [660, 768, 900, 1024, 1280, 1400]) {
    test(`at ${width} px wide, after a revocation, every Revoke button is visible without scrolling the table`, async () => {
      const { page } = await open({ width, height: 900 });
      await signIn(page);
      const revoked = await createCredential(page, `Revoked at ${width} px, a long descriptive name for the system`);
      await page.getByRole('button', { name: 'Done' }).click();
      const kept = await createCredential(page, `Kept at ${width} px`);
      await page.getByRole('button', { name: 'Done' }).click();
      await page
        .getByRole('row')
        .filter({ hasText: revoked })
        .getByRole('button', { name: /^Revoke / })
        .click();
      await page
        .getByRole('dialog')
        .getByRole('button', { name: /^Revoke/ })
        .click();
      await page.getByRole('row').filter({ hasText: revoked }).getByText('Revoked', { exact: true }).first().waitFor();

      const layout = await page.locator('.table-scroll').evaluate((el: any) => {
        const box = el.getBoundingClientRect();
        const buttons = [...el.querySelectorAll('button')].map((b: any) => {
          const r = b.getBoundingClientRect();
          return { name: b.getAttribute('aria-label'), left: r.left, right: r.right };
        });
        return { left: box.left, right: box.right, hidden: el.scrollWidth - el.clientWidth, buttons };
      });
      assert.ok(layout.hidden <= 1, `the table does not scroll sideways (${layout.hidden} px hidden) at ${width} px`);
      assert.ok(layout.buttons.length >= 1, 'active credentials have a Revoke button');
      for (const b of layout.buttons)
        assert.ok(b.left >= layout.left && b.right <= layout.right + 0.5, `${b.name} within the table's box: ${JSON.stringify(layout)}`);
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth');
      assert.ok(overflow <= width, `the page does not scroll sideways (${overflow} px wide)`);
      const keep = page
        .getByRole('row')
        .filter({ hasText: kept })
        .getByRole('button', { name: /^Revoke / });
      assert.ok(await keep.isVisible(), 'the kept credential still offers Revoke');
    });
  }

  test('revoking the credential whose secret is shown removes the secret panel; times name their zone', async () => {
    const { page } = await open();
    await signIn(page);
    const clientId = await createCredential(page, 'Revoked at once');
    const row = page.getByRole('row').filter({ hasText: clientId });
    // created just now, shown in the browser's zone (New York: EST, written GMT-5 in en-GB)
    assert.match(await row.innerText(), /\d{2}:\d{2} (GMT-5|EST|GMT-4|EDT)/);
    await row.getByRole('button', { name: 'Revoke Revoked at once' }).click();
    await page
      .getByRole('dialog')
      .getByRole('button', { name: /^Revoke/ })
      .click();
    await row.getByText('Revoked', { exact: true }).first().waitFor();
    await page.getByRole('region', { name: 'New credential created' }).waitFor({ state: 'detached' });
    assert.equal(await page.getByTestId('new-client-secret').count(), 0, 'the revoked secret is no longer shown');
  });

  test('on a phone (390 x 844) the credentials table fits the screen and Revoke is reachable', async () => {
    const { page } = await open({ width: 390, height: 844 });
    await signIn(page);
    const clientId = await createCredential(page, 'Phone credential');
    await page.getByRole('button', { name: 'Done' }).click();
    const row = page.getByRole('row').filter({ hasText: clientId });
    const revoke = row.getByRole('button', { name: 'Revoke Phone credential' });
    await revoke.scrollIntoViewIfNeeded();
    const box = await revoke.boundingBox();
    assert.ok(box && box.x >= 0 && box.x + box.width <= 390, `Revoke is within the screen's width: ${JSON.stringify(box)}`);
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth');
    assert.ok(overflow <= 390, `the page does not scroll sideways (${overflow} px wide)`);
    // what sticks out of the table's box, if anything, named for the failure message
    const scroller = await page.locator('.table-scroll').evaluate((el: any) => {
      const edge = el.getBoundingClientRect().right + 1;
      const wide = [...el.querySelectorAll('*')].filter((e: any) => e.getBoundingClientRect().right > edge);
      return { hidden: el.scrollWidth - el.clientWidth, wide: wide.map((e: any) => `${e.tagName}.${e.className}`) };
    });
    assert.ok(scroller.hidden <= 1, `the table does not scroll sideways either: ${JSON.stringify(scroller)}`);
    await revoke.click();
    await page
      .getByRole('dialog')
      .getByRole('button', { name: /^Revoke/ })
      .click();
    await row.getByText('Revoked', { exact: true }).first().waitFor();
  });

  test('the usage chart has a scale from 0 to a round number at or above the busiest hour', async () => {
    const { page } = await open();
    await signIn(page);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Usage' }).click();
    await page.getByRole('heading', { level: 1, name: 'Usage' }).waitFor();
    const scale = page.getByTestId('chart-scale').first();
    await scale.waitFor();
    const labels = (await scale.innerText()).split('\n').filter((l) => l.trim() !== '');
    assert.equal(labels.at(-1), '0');
    assert.match(labels[0], /^\d[\d,]*$/);
    assert.match(await page.locator('main').innerText(), /Hours are in (GMT-5|EST|GMT-4|EDT)/);
  });
});
