// A change that asks first, as a person answers it in the browser: the question read and
// answered, the note's Undo pressed; and a wait for what the page did to reach the server.
import type { Browser, Page } from 'playwright-core';
import { signIn, watchPage } from './browser.js';

/** The open question titled `title`: its text, then `button` pressed and the dialog gone. */
export async function answer(page: Page, title: string, button: string): Promise<string> {
  const question = page.getByRole('dialog', { name: title });
  await question.waitFor();
  const text = (await question.locator('#ask-body').innerText()).trim();
  await question.getByRole('button', { name: button, exact: true }).click();
  await question.waitFor({ state: 'detached' });
  return text;
}

/** Presses Undo on the note that says `text`, and waits for the note to go. */
export async function undo(page: Page, text: string): Promise<void> {
  await page.getByRole('status').locator('.toast', { hasText: text }).getByRole('button', { name: 'Undo' }).click();
  await page.getByRole('status').locator('.toast', { hasText: text }).waitFor({ state: 'detached' });
}

/** Waits (5 s at most) until `done` says what the page did is on the server. */
export async function until(done: () => Promise<boolean>): Promise<void> {
  for (const end = Date.now() + 5_000; !(await done());) {
    if (Date.now() > end) throw new Error('not on the server within 5 s');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A new page signed in with `token` on `flag`'s page (project default), once `shown` shows in `region`. */
export async function openFlagPage(browser: Browser, url: string, token: string, flag: string, region: string, shown: string) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const watched = watchPage(page, url);
  await signIn(page, url, token);
  await page.goto(`${url}/#/projects/default/flags/${flag}`);
  const panel = page.getByRole('region', { name: region });
  await panel.getByText(shown).waitFor();
  return { page, panel, ...watched };
}
