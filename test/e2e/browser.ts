import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, onTestFinished } from 'vitest';
import { REPO_ROOT } from '../support/cli.js';

/** Debian's Chromium (installed by .ci/run); a browser is never downloaded. */
export const CHROMIUM = '/usr/bin/chromium';

/** Where a failing browser test leaves its screenshots (ignored by git). */
export const SCREENSHOT_DIR = join(REPO_ROOT, 'test-results', 'web');

/** Headless, offline, quiet; playwright gives every launch a fresh user-data-dir of its own. */
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
}

/** One browser for a whole test file (starting Chromium is the slow part); closed after the file. */
export function sharedBrowser(): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });
  return () => {
    if (!browser) throw new Error('the browser is not started yet');
    return browser;
  };
}

function fileSafe(text: string): string {
  return text.replace(/[^\w.-]+/g, '-').slice(0, 120);
}

/**
 * A fresh browser context (its own cookies) for the current test: closed when the test ends, and every
 * page it holds screenshotted into test-results/web when the test fails.
 */
export async function freshContext(
  browser: Browser,
  viewport = { width: 1280, height: 800 },
): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport });
  context.setDefaultTimeout(20_000);
  const testName = expect.getState().currentTestName ?? 'web-test';
  // Finished hooks run before failed ones, last registered first: this one sees the pages (and the
  // server) before anything is closed.
  onTestFinished(async ({ task }) => {
    if (task.result?.state === 'fail') {
      mkdirSync(SCREENSHOT_DIR, { recursive: true });
      for (const [index, page] of context.pages().entries()) {
        const path = join(SCREENSHOT_DIR, `${fileSafe(testName)}-${index + 1}.png`);
        await page.screenshot({ path, fullPage: true }).catch(() => undefined);
        process.stderr.write(`screenshot of the failing page: ${path}\n`);
      }
    }
    await context.close();
  });
  return context;
}

/** Opens the printed URL (signing the context in) and waits until the page shows the session. */
export async function openSession(context: BrowserContext, url: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(url);
  await page.getByRole('textbox', { name: 'Message', exact: true }).waitFor();
  return page;
}

/** Types a prompt into the Message box and sends it with Enter, as a keyboard user does. */
export async function sendPrompt(page: Page, text: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message', exact: true });
  await box.fill(text);
  await box.press('Enter');
}
