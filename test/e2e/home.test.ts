// What a person finds at the server's address, in real headless Chromium against the real server:
// a landing page that says what the service is and where the console, the API reference and the
// OpenAPI document are, whose "first request" runs as printed (bash, curl and jq against this
// server); an icon at /favicon.ico and /favicon.svg that the browser decodes; nothing fetched
// from elsewhere and no request answered 404.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { createOrgWithCredential, startServer, type TestServer } from '../harness/server.ts';
import { CHROMIUM, launchChromium, refuseRequestsElsewhere } from '../harness/browser.ts';

const execFileAsync = promisify(execFile);
const skip = fs.existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed (apt-get install chromium)`;
const hasTools = ['curl', 'jq'].every((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0);

describe('the landing page and icon in Chromium', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let elsewhere: string[] = [];
  const failed: string[] = [];

  before(async () => {
    server = await startServer();
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    elsewhere = await refuseRequestsElsewhere(page, server.url);
    page.on('response', (response) => {
      if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
    });
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('GET / says what this is and links the console, the API reference and the OpenAPI document', async () => {
    const response = await page.goto(`${server.url}/`);
    assert.equal(response?.status(), 200);
    await page.getByRole('heading', { level: 1, name: 'Compliance Data REST Service' }).waitFor();
    assert.match(await page.locator('main').innerText(), /frameworks.*controls.*policies.*evidence.*tests.*vulnerability/s);
    // its one style block runs under its Content-Security-Policy (allowed by its hash)
    assert.equal(await page.evaluate('getComputedStyle(document.querySelector("main")).maxWidth'), '768px');
    const links: Array<[name: RegExp, path: string, type: RegExp]> = [
      [/^Developer console/, '/console', /text\/html/],
      [/^API reference/, '/docs', /text\/html/],
      [/^OpenAPI document/, '/openapi.json', /application\/json/],
    ];
    for (const [name, path, type] of links) {
      const link = page.getByRole('link', { name }).first();
      assert.equal(await link.getAttribute('href'), path);
      const answer = await fetch(`${server.url}${path}`);
      assert.equal(answer.status, 200, path);
      assert.match(answer.headers.get('content-type') ?? '', type, path);
    }
    assert.deepEqual(elsewhere, [], 'nothing is fetched from elsewhere');
    assert.deepEqual(failed, [], 'no request of the page failed (the icon included)');
  });

  test('the first request on the page runs as printed: a token, then the list of frameworks', {
    skip: hasTools ? false : 'curl or jq missing',
  }, async () => {
    await page.goto(`${server.url}/`);
    const steps = page.locator('#first-request + ol pre');
    assert.equal(await steps.count(), 2);
    const script = await steps.nth(1).innerText();
    assert.ok(script.includes(`${server.url}/oauth/token`), `the page names this server's address: ${script}`);
    assert.match(await steps.nth(0).innerText(), /^export CLIENT_ID=\S+\s+CLIENT_SECRET=/);
    const credential = await createOrgWithCredential(server.system, { name: 'Landing Org' });
    // (asynchronously: the server answering it runs in this process)
    const run = await execFileAsync('bash', ['--norc', '-e', '-c', script], {
      env: { PATH: process.env.PATH, CLIENT_ID: credential.clientId, CLIENT_SECRET: credential.clientSecret },
      encoding: 'utf8',
      timeout: 20_000,
    });
    assert.equal(run.stderr, '');
    const body = JSON.parse(run.stdout);
    assert.ok(Array.isArray(body.data), run.stdout);
    assert.match(body.meta.requestId, /^req_/);
  });

  test('/favicon.ico and /favicon.svg are icons the browser decodes', async () => {
    const ico = await fetch(`${server.url}/favicon.ico`);
    assert.equal(ico.status, 200);
    assert.equal(ico.headers.get('content-type'), 'image/x-icon');
    assert.match(ico.headers.get('cache-control') ?? '', /max-age=\d+/);
    const svg = await fetch(`${server.url}/favicon.svg`);
    assert.equal(svg.status, 200);
    assert.match(svg.headers.get('content-type') ?? '', /^image\/svg\+xml/);

    // A page without the request routing above: Chromium does not hand a /favicon.ico image
    // load to Playwright's routing, and fails it.
    const plain = await browser.newPage();
    await plain.goto(`${server.url}/`);
    for (const path of ['/favicon.ico', '/favicon.svg']) {
      // Drawn on a canvas: a corner outside the rounded square is transparent, the middle of the
      // check mark white, a point on the square's edge the accent blue.
      const pixels = await plain.evaluate<{ width: number; corner: number[]; check: number[]; square: number[] }>(`(async () => {
        const image = new Image();
        image.src = ${JSON.stringify(path)};
        await image.decode();
        const canvas = document.createElement('canvas');
        canvas.width = 32;
        canvas.height = 32;
        const context = canvas.getContext('2d');
        context.drawImage(image, 0, 0, 32, 32);
        const at = (x, y) => [...context.getImageData(x, y, 1, 1).data];
        return { width: image.naturalWidth, corner: at(0, 0), check: at(13, 21), square: at(16, 3) };
      })()`);
      assert.equal(pixels.width, 32, path);
      assert.equal(pixels.corner[3], 0, `${path}: the corner is transparent ${JSON.stringify(pixels)}`);
      assert.deepEqual(pixels.check, [255, 255, 255, 255], `${path}: the check mark is white ${JSON.stringify(pixels)}`);
      assert.deepEqual(pixels.square, [0x0b, 0x5c, 0xad, 255], `${path}: the square is the accent blue ${JSON.stringify(pixels)}`);
    }
    await plain.close();
  });
});
