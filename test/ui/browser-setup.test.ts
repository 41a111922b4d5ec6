// Where there is no Chromium: `npm test` says so in one line and the browser tests skip, except
// under CI=true, where a missing browser fails them (CI installs it; skipping would hide that).
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import t from 'tap';
import { openBrowser } from '../helpers/browser.js';

const root = path.resolve(import.meta.dirname, '../../..');

function checkScript(env: Record<string, string>): string {
  const clean = { ...process.env };
  delete clean.CI;
  return execFileSync(process.execPath, [path.join(root, 'scripts/check-browser.mjs')], { env: { ...clean, ...env }, encoding: 'utf8' });
}

t.test('without Chromium, npm test prints one line saying the browser tests are skipped and how to install it', async (t) => {
  const out = checkScript({ CHROMIUM_PATH: '/nowhere/chromium' });
  t.equal(out.trim().split('\n').length, 1, 'one line');
  t.match(out, /^Browser tests skipped .*apt-get install chromium.*CHROMIUM_PATH/);
  t.equal(checkScript({ CHROMIUM_PATH: '/nowhere/chromium', CI: 'true' }), '', 'in CI it says nothing: the tests fail instead');
  t.equal(checkScript({ CHROMIUM_PATH: process.execPath }), '', 'with a browser there, nothing');
});

t.test('a browser test without Chromium skips on a developer machine and fails in CI', async (t) => {
  const saved = { path: process.env.CHROMIUM_PATH, ci: process.env.CI };
  t.teardown(() => {
    for (const [k, v] of [['CHROMIUM_PATH', saved.path], ['CI', saved.ci]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });
  process.env.CHROMIUM_PATH = '/nowhere/chromium';
  const calls: string[] = [];
  const probe = { plan: (n: number, why?: string) => calls.push(`plan ${n} ${why}`), fail: (m: string) => calls.push(`fail ${m}`), teardown: () => undefined };
  delete process.env.CI;
  t.equal(await openBrowser(probe), null);
  t.same(calls, ['plan 0 no Chromium'], 'skipped');
  calls.length = 0;
  process.env.CI = 'true';
  t.equal(await openBrowser(probe), null);
  t.equal(calls.length, 1);
  t.match(calls[0], /^fail no Chromium found .*CI must run the browser tests/, 'failed in CI');
});
