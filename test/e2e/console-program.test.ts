// The console's Program page end to end, in real headless Chromium against the real server: an
// administrator uploads a document, reads the plan (nothing written yet), confirms the apply, and
// finds it in the audit log; a document with a problem shows its line and column.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { api, createConsoleAdmin, createOrgWithCredential, getToken, startServer, type TestServer } from '../harness/server.ts';
import { CHROMIUM, launchChromium, newClipboardPage } from '../harness/browser.ts';

const EMAIL = 'admin@program.example';
const PASSWORD = 'e2e password for the program console';
const DOCUMENT = `version: 1
frameworks:
  - key: e2e-fw
    name: E2E Framework
    requirements:
      - key: r1
        code: R-1
        name: First
`;

const skip = fs.existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed (apt-get install chromium)`;

describe('console program page in Chromium', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let token: string;

  before(async () => {
    server = await startServer();
    const client = await createOrgWithCredential(server.system, { name: 'Program Org', accessLevel: 'read_write' });
    token = await getToken(server.url, client);
    await createConsoleAdmin(server.system, { organizationId: client.organizationId, email: EMAIL, password: PASSWORD });
    browser = await launchChromium();
    ({ page } = await newClipboardPage(browser, server.url));
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  const heading = (name: string) => page.getByRole('heading', { level: 1, name });
  const upload = (name: string, text: string) =>
    page.getByLabel('Program document', { exact: true }).setInputFiles({ name, mimeType: 'application/yaml', buffer: Buffer.from(text) });

  test('signs in and opens Program from the navigation', async () => {
    await page.goto(`${server.url}/console/sign-in`);
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Credentials').waitFor();
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Program' }).click();
    await heading('Program').waitFor();
    assert.equal(new URL(page.url()).pathname, '/console/program');
  });

  test('a document with a problem shows it with its line and column', async () => {
    await upload('bad.yaml', 'version: 1\nframeworks:\n  - key: x\n    nme: X\n    requirements: []\n');
    await page.getByRole('button', { name: 'Plan' }).click();
    const problems = page.getByTestId('program-problems');
    await problems.waitFor();
    assert.match(await problems.innerText(), /line 4, column 5: \/frameworks\/0\/nme/);
  });

  test('upload, read the plan (nothing written), confirm the apply; it is in the audit log', async () => {
    await upload('program.yaml', DOCUMENT);
    await page.getByRole('button', { name: 'Plan' }).click();
    const plan = page.getByTestId('program-plan');
    await plan.getByRole('heading', { name: 'Plan' }).waitFor();
    assert.match(await plan.innerText(), /\+ frameworks e2e-fw/);
    assert.equal((await api(server.url, '/v1/frameworks', token)).body.data.length, 0);
    await page.getByTestId('program-apply').click();
    await page.getByRole('dialog').getByRole('button', { name: 'Apply' }).click();
    await plan.getByRole('heading', { name: 'Applied' }).waitFor();
    const frameworks = (await api(server.url, '/v1/frameworks', token)).body.data;
    assert.deepEqual(
      frameworks.map((f: { frameworkName: string }) => f.frameworkName),
      ['E2E Framework'],
    );
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Audit log' }).click();
    await heading('Audit log').waitFor();
    await page.getByText('Applied program document').first().waitFor();
    assert.match(await page.locator('main').innerText(), /program\.yaml: 1 created/);
  });
});
