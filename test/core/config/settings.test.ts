// The table of settings itself: every entry complete, its default one its own parser reads back,
// every parser refusing a bad value with a ConfigError that names the variable, and the reader's
// rules for unset, empty and blank values.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { ConfigError, loadConfig } from '../../../src/core/config.js';
import { GROUPS, readSettings, SETTINGS, type Setting } from '../../../src/core/config/settings.js';
import { ROOT } from '../../helpers/server.js';

const table: Record<string, Setting<unknown>> = SETTINGS;
const names = Object.keys(table);

t.test('every entry has a name, a group, a one-line doc and a kind that says what it accepts', async (t) => {
  t.ok(names.length >= 95, `${names.length} settings`);
  const wrong = names.filter((name) => {
    const s = table[name];
    return !/^[A-Z][A-Z0-9_]*$/.test(name) || !(s.group in GROUPS) || !/^\S.*\.$/.test(s.doc) || s.doc.includes('\n') || !s.kind.accepts;
  });
  t.same(wrong, [], 'upper-case name, known group, doc one sentence-like line ending in a full stop, accepts described');
  for (const [group, { title, intro }] of Object.entries(GROUPS)) t.ok(title && intro && names.some((n) => table[n].group === group), `group ${group} is titled, introduced and used`);
});

t.test('names are unique, in the source as well (a repeated key would silently replace the first)', async (t) => {
  const source = fs.readFileSync(path.join(ROOT, 'src/core/config/settings.ts'), 'utf8');
  const keys = [...source.matchAll(/^ {2}([A-Z][A-Z0-9_]*): s\(/gm)].map((m) => m[1]);
  t.equal(keys.length, names.length, 'every entry found in the source');
  t.same(keys.filter((k, i) => keys.indexOf(k) !== i), [], 'no key twice');
});

t.test('a default is a value its own parser reads back', async (t) => {
  for (const name of names) {
    const s = table[name];
    if (s.default === undefined) continue;
    const shown = s.kind.show(s.default);
    t.same(s.kind.parse(shown, name), s.default, `${name}: "${shown}"`);
  }
});

t.test('a bad value is refused with a ConfigError that names the variable, never another error', async (t) => {
  const bad = ['-1', '1.5', 'maybe', 'x y', '*', 'ftp://a/b', '{', '99999999', ':', '=', '@'];
  for (const name of names) {
    const errors: unknown[] = [];
    for (const raw of bad) {
      try {
        table[name].kind.parse(raw, name);
      } catch (e) {
        errors.push(e);
      }
    }
    const free = table[name].kind.accepts.startsWith('text') || table[name].kind.accepts === 'comma-separated tokens';
    if (!free) t.ok(errors.length > 0, `${name} refuses some of ${bad.join(' ')}`);
    t.ok(errors.every((e) => e instanceof ConfigError && e.message.startsWith(name)), `${name}: ${errors.map((e) => (e as Error).message).join(' / ') || 'accepts anything'}`);
  }
});

t.test('unset, empty and blank values', async (t) => {
  const read = (env: Record<string, string>) => readSettings(env);
  t.equal(read({}).get('WEBHOOK_TIMEOUT_MS'), 10_000, 'unset: the default');
  t.equal(read({ WEBHOOK_TIMEOUT_MS: '' }).get('WEBHOOK_TIMEOUT_MS'), 10_000, 'empty: unset');
  t.equal(read({ WEBHOOK_TIMEOUT_MS: '250' }).get('WEBHOOK_TIMEOUT_MS'), 250, 'set: parsed');
  t.equal(read({}).get('PORT', 3063), 3063, 'a fallback given by the caller replaces the table\'s default');
  t.equal(read({ PORT: '80' }).get('PORT', 3063), 80, 'and does not replace a set value');
  t.equal(read({ OIDC_ROLE_CLAIM: '   ' }).get('OIDC_ROLE_CLAIM'), undefined, 'blank is unset for trimmed text');
  t.equal(read({ UNLEASH_DEFAULT_ADMIN_USERNAME: ' bob ' }).get('UNLEASH_DEFAULT_ADMIN_USERNAME'), 'bob');
  t.throws(() => read({ WAL_SYNC: '' }).get('WAL_SYNC'), /WAL_SYNC must be "always" or "none", got ""/, 'an empty WAL_SYNC is refused, as before the table');
  t.equal(read({ MAX_CONNECTIONS: 'x' }).isSet('MAX_CONNECTIONS'), true);
  t.equal(read({ MAX_CONNECTIONS: '' }).isSet('MAX_CONNECTIONS'), false);
  t.equal(read({ DATABASE_POOL_MAX: 'many' }).get('PORT'), 4242, 'a value is parsed only when asked for');
});

t.test('Config takes its defaults from the table', async (t) => {
  const c = loadConfig({ DATA_DIR: '/tmp/x' });
  const pairs: [unknown, string][] = [
    [c.http.bodyLimit, 'BODY_LIMIT_BYTES'], [c.http.requestTimeoutMs, 'REQUEST_TIMEOUT_MS'], [c.checkpoint.records, 'CHECKPOINT_RECORDS'],
    [c.metrics.flushMs, 'METRICS_FLUSH_MS'], [c.streaming.keepAliveMs, 'STREAMING_KEEPALIVE_MS'], [c.frontend.cacheMaxBytes, 'FRONTEND_CACHE_MAX_BYTES'],
    [c.webhooks.retryForMs, 'WEBHOOK_RETRY_FOR_MS'], [c.signIn.perAccount, 'SIGN_IN_LIMIT_PER_ACCOUNT'], [c.walSync, 'WAL_SYNC'], [c.logFormat, 'LOG_FORMAT'],
  ];
  for (const [value, name] of pairs) t.equal(value, table[name].default, name);
  t.equal(c.streaming.maxConnectionsPerToken, 1_000, 'a tenth of STREAMING_MAX_CONNECTIONS');
  t.equal(loadConfig({ DATA_DIR: '/tmp/x', STREAMING_MAX_CONNECTIONS: '5' }).streaming.maxConnectionsPerToken, 1, 'at least 1');
  t.equal(c.cluster, null, 'no database: no cluster');
  t.equal(loadConfig({ DATA_DIR: '/tmp/x', DATABASE_POOL_MAX: 'many' }).cluster, null, 'a cluster setting is not read without a database, as before the table');
  t.throws(() => loadConfig({ DATA_DIR: '/tmp/x', DATABASE_HOST: 'db', DATABASE_POOL_MAX: 'many' }), /DATABASE_POOL_MAX must be a non-negative integer, got "many"/);
  t.same(loadConfig({ DATA_DIR: '/tmp/x', DATABASE_HOST: 'db' }).cluster, {
    host: 'db', port: 5432, database: 'unleash', user: 'unleash', password: undefined, ssl: false, poolMax: 4, timeoutMs: 5000, settingsRetryMs: 30_000, label: 'db:5432/unleash as unleash',
  });
});
