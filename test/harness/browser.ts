// Headless Chromium for end-to-end tests: Debian's package, driven by playwright-core (which
// never downloads a browser of its own). The flags keep it from reaching for the network, which
// this machine's closed network refuses.
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** A page of a new context allowed to use the clipboard on `origin` (the copy buttons of secrets). */
export async function newClipboardPage(browser: Browser, origin: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  return { context, page: await context.newPage() };
}

/**
 * Records and refuses every request of `page` that is not to `serverUrl` itself (a CDN, web fonts,
 * telemetry): the pages this server serves must work on a machine without internet access.
 * Returns the list the refused addresses are added to.
 */
export async function refuseRequestsElsewhere(page: Page, serverUrl: string): Promise<string[]> {
  const origin = new URL(serverUrl).origin;
  const elsewhere: string[] = [];
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (new URL(url).origin === origin || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
    elsewhere.push(url);
    return route.abort();
  });
  return elsewhere;
}
