// The screenshots of docs/screenshots/ are taken only of pages that work: the step that takes
// each one (scripts/screenshot-page.ts, used by scripts/console-screenshots.ts) is run here in
// headless Chromium against the real server, on a console page that works and on pages that show
// an error the way the console does (a console API call that fails, a refused sign-in).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { createConsoleAdmin, createOrgWithCredential, startServer, type TestServer } from '../harness/server.ts';
import { CHROMIUM, launchChromium } from '../harness/browser.ts';
import { ErrorBannerError, screenshotWorkingPage } from '../../scripts/screenshot-page.ts';

const EMAIL = 'admin@shots.example';
const PASSWORD = 'screenshots password for the console';
const skip = fs.existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed (apt-get install chromium)`;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe('screenshots for the docs are only taken of working pages', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let dir: string;

  before(async () => {
    server = await startServer();
    const org = await createOrgWithCredential(server.system, { name: 'Shots Org' });
    await createConsoleAdmin(server.system, { organizationId: org.organizationId, email: EMAIL, password: PASSWORD });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1200, height: 820 } });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-shots-test-'));
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('a refused sign-in (role="alert") fails the screenshot and writes nothing', async () => {
    await page.goto(`${server.url}/console`);
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    const file = path.join(dir, 'sign-in-refused.png');
    await assert.rejects(screenshotWorkingPage(page, file), (err: Error) => {
      assert.ok(err instanceof ErrorBannerError, String(err));
      assert.match(err.message, /sign-in-refused\.png was not taken/);
      return true;
    });
    assert.equal(fs.existsSync(file), false);
  });

  test('a working page is pictured: a PNG is written', async () => {
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Credentials' }).waitFor();
    await page.getByRole('table').waitFor();
    const file = path.join(dir, 'credentials.png');
    await screenshotWorkingPage(page, file, { fullPage: true });
    assert.deepEqual(fs.readFileSync(file).subarray(0, 8), PNG_SIGNATURE);
  });

  test('a page whose console API call fails ("Could not load …") fails the screenshot with its message', async () => {
    // An endpoint ID longer than the API takes: GET /console/api/webhook-endpoints/{id} answers 400.
    await page.goto(`${server.url}/console/webhooks/${'x'.repeat(101)}`);
    await page.getByText(/^Could not load/).waitFor();
    const file = path.join(dir, 'webhook-endpoint.png');
    await assert.rejects(screenshotWorkingPage(page, file, { fullPage: true }), (err: Error) => {
      assert.ok(err instanceof ErrorBannerError, String(err));
      assert.match(err.message, /"Could not load the webhook endpoint\. [^"]+"/);
      return true;
    });
    assert.equal(fs.existsSync(file), false);
  });
});
