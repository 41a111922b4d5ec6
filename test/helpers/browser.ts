// Debian's Chromium driven by playwright-core, for tests in a real browser. Where there is no
// Chromium a test is skipped on a developer's machine, and fails under CI=true (.ci/run installs
// the package, so a missing browser there is a broken set-up, not a reason to skip).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** CHROMIUM_PATH when set (and only it, so a wrong path is noticed), else the first system browser found. */
export function chromiumPath(): string | null {
  const chosen = process.env.CHROMIUM_PATH;
  if (chosen) return fs.existsSync(chosen) ? chosen : null;
  return CANDIDATES.find((p) => fs.existsSync(p)) ?? null;
}


interface BrowserTest {
  plan(n: number, comment?: string): void;
  fail(message: string): void;
  teardown(fn: () => unknown): void;
}

/** A headless Chromium closed when the test ends, or null when there is none (skipped, or failed in CI). */
export async function openBrowser(t: BrowserTest): Promise<Browser | null> {
  const executablePath = chromiumPath();
  if (!executablePath) {
    // npm test has already said so in one line (scripts/check-browser.mjs); here each test only skips.
    if (process.env.CI === 'true') t.fail('no Chromium found (install Debian\'s "chromium" or set CHROMIUM_PATH): CI must run the browser tests');
    else t.plan(0, 'no Chromium');
    return null;
  }
  const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  t.teardown(() => browser.close());
  return browser;
}

/** Where screenshots go: ARTIFACTS_DIR when set (CI keeps it), else a folder under the system's temp dir. */
export function artifactPath(name: string): string {
  const dir = process.env.ARTIFACTS_DIR ?? path.join(os.tmpdir(), 'fanion-test-artifacts');
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, name);
}

/** Opens the sign-in page's token form and fills in `token` (without sending it). */
export async function fillToken(page: Page, token: string): Promise<void> {
  await page.getByText('Use an admin API token instead').click();
  await page.getByLabel('Admin API token').fill(token);
}

/** Signs in to the console at `url` with an admin token and waits for its navigation. */
export async function signIn(page: Page, url: string, token: string): Promise<void> {
  await page.goto(url);
  await fillToken(page, token);
  await page.getByRole('button', { name: 'Sign in with the token' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
}

/** Signs in to the console at `url` as a person, with a password, and waits for its navigation. */
export async function signInWithPassword(page: Page, url: string, login: string, password: string): Promise<void> {
  await page.goto(url);
  await page.getByLabel('Email or username').fill(login);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
}

/**
 * Confirms the next question the console asks (deleting, archiving) in its own dialog
 * (ui/src/confirm-dialog.ts): called before the click that asks, it answers once the dialog shows.
 * A dialog that never shows fails the step after the click, which waits for the change.
 */
export function acceptNextDialog(page: Page): void {
  page.locator('dialog.ask[open] [data-answer="yes"]').click({ timeout: 15_000 }).catch(() => undefined);
}

/** Collects the page's script errors and requests to other sites: both must stay empty. */
export function watchPage(page: Page, origin: string): { problems: string[]; elsewhere: string[] } {
  const seen = { problems: [] as string[], elsewhere: [] as string[] };
  page.on('pageerror', (e) => seen.problems.push(e.message));
  page.on('request', (r) => {
    if (!r.url().startsWith(origin) && !r.url().startsWith('data:')) seen.elsewhere.push(r.url());
  });
  return seen;
}

/**
 * What `read` gives once it gives `want`, or after `ms` whatever it gives then (for the assertion
 * to show). A list's header and count can change before its rows do (the rows come from a fetch),
 * and results follow each key typed, so one read right after them could see an earlier view.
 */
export async function settledOn<T>(read: () => Promise<T>, want: T, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  let got = await read();
  while (JSON.stringify(got) !== JSON.stringify(want) && Date.now() < end) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    got = await read();
  }
  return got;
}
