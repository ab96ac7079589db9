// The API reference at /docs in real headless Chromium against the real server: it renders the
// /openapi.json this server serves, lists every operation of that document (by its summary and
// method, in the navigation), and needs nothing from the internet (every request the page makes
// goes to the server itself).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { startServer, type TestServer } from '../harness/server.ts';
import { CHROMIUM, launchChromium, refuseRequestsElsewhere } from '../harness/browser.ts';

const skip = fs.existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed (apt-get install chromium)`;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

describe('API reference in Chromium', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let elsewhere: string[] = [];

  before(async () => {
    server = await startServer();
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    elsewhere = await refuseRequestsElsewhere(page, server.url);
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('GET /docs lists every operation and webhook of the served OpenAPI document, with nothing fetched from elsewhere', async () => {
    const document: any = await (await fetch(`${server.url}/openapi.json`)).json();
    const expected: string[] = [];
    for (const [path, item] of Object.entries<Record<string, { summary?: string }>>(document.paths))
      for (const method of METHODS) if (item[method]) expected.push(`${method.toUpperCase()} ${item[method].summary ?? path}`);
    // the webhooks (issue 15) are listed too, each as the request a receiver gets
    for (const [name, item] of Object.entries<Record<string, { summary?: string }>>(document.webhooks ?? {}))
      for (const method of METHODS) if (item[method]) expected.push(`${method.toUpperCase()} ${item[method].summary ?? name}`);
    assert.ok(expected.length >= 20, `the document lists the service's operations: ${expected.length}`);

    const response = await page.goto(`${server.url}/docs`);
    assert.equal(response?.status(), 200);
    await page.getByRole('heading', { level: 1, name: document.info.title }).waitFor();
    const navigation = page.locator('aside');
    await navigation.getByText(expected.at(-1)!.replace(/^\S+ /, ''), { exact: true }).first().waitFor();
    // The navigation lists each operation as its summary followed by "HTTP METHOD: <method>".
    const text = await navigation.innerText();
    // (DELETE is shown as DEL)
    const listed = new Set(
      [...text.matchAll(/([^\n]+)\nHTTP METHOD:\s*\n(GET|POST|PUT|PATCH|DELETE|DEL)\b/g)].map(
        (m) => `${m[2] === 'DEL' ? 'DELETE' : m[2]} ${m[1].trim()}`,
      ),
    );
    const missing = expected.filter((operation) => !listed.has(operation));
    assert.deepEqual(missing, [], `operations the reference does not list (it lists ${listed.size})`);
    assert.equal(listed.size, expected.length, 'and it lists nothing the document does not hold');
    assert.deepEqual(elsewhere, [], 'the reference fetched nothing from outside the server');
  });
});
