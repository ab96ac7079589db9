// One screenshot for the docs, taken only of a page that works: before the picture is taken the
// page is searched for error banners (role="alert", and the console's error classes of
// src/console/web/components/status.tsx and layout.tsx), and any one showing text fails the run
// with its message. A screenshot of "Could not load deliveries" must never reach docs/screenshots/
// again (scripts/console-screenshots.ts; test/e2e/console-screenshots.test.ts).
import type { Page } from 'playwright-core';

/** Everything the console shows when something went wrong. */
export const ERROR_BANNERS = '[role="alert"], .error-box, .form-error, .banner-error, .field-error';

export class ErrorBannerError extends Error {
  override name = 'ErrorBannerError';
}

/** The texts of the error banners visible on the page (empty live regions are not banners). */
export async function errorBanners(page: Page): Promise<string[]> {
  const texts: string[] = [];
  for (const banner of await page.locator(ERROR_BANNERS).all()) {
    if (!(await banner.isVisible())) continue;
    const text = (await banner.innerText()).trim().replace(/\s+/g, ' ');
    if (text !== '' && !texts.includes(text)) texts.push(text);
  }
  return texts;
}

/** Writes the page's screenshot to `file`, or throws (writing nothing) when it shows an error banner. */
export async function screenshotWorkingPage(page: Page, file: string, options: { fullPage?: boolean } = {}): Promise<void> {
  const errors = await errorBanners(page);
  if (errors.length > 0)
    throw new ErrorBannerError(`${page.url()} shows an error, so ${file} was not taken: ${errors.map((e) => `"${e}"`).join(', ')}`);
  await page.screenshot({ path: file, fullPage: options.fullPage ?? false });
}
