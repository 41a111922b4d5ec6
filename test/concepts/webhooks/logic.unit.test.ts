// The pure half of webhooks: which events an addon wants, the request that carries one, and the
// commands' ops (a new addon starts after its own creation; the cursor only moves forward).
import { createHmac } from 'node:crypto';
import t from 'tap';
import { addonView, createAddon, moveCursor, signature, updateAddon, wants, webhookLimits, webhookRequest } from '../../../src/concepts/webhooks/logic.js';
import { loadConfig } from '../../../src/core/config.js';
import { addon, fixtureState, T0 } from '../../core/state/fixture.js';
import type { EventRecord } from '../../../src/core/state/types.js';

const event = (over: Partial<EventRecord> = {}): EventRecord => ({
  id: 7, type: 'feature-created', createdAt: T0, createdBy: 'admin', createdByUserId: null, environment: null, project: 'default',
  featureName: 'alpha', data: { name: 'alpha', note: '<b>&' }, preData: null, tags: null, ...over,
});
/** The default settings' limits. */
const LIMITS = webhookLimits(loadConfig({}));
const env = { now: T0, newId: () => '00000000-0000-4000-8000-000000000000', actor: { name: 'admin', userId: null } };

t.test('filters: event types, projects and environments; empty or * means all', async (t) => {
  t.ok(wants(addon(1), event()), '* takes every type');
  t.notOk(wants(addon(1, { events: ['feature-archived'] }), event()));
  t.ok(wants(addon(1, { projects: ['default'] }), event()));
  t.notOk(wants(addon(1, { projects: ['shop'] }), event()));
  t.notOk(wants(addon(1, { projects: ['shop'] }), event({ project: null })), 'an event of no project does not pass a project filter');
  t.ok(wants(addon(1, { projects: ['*'] }), event({ project: null })));
  t.notOk(wants(addon(1, { environments: ['production'] }), event()), 'nor one of no environment an environment filter');
  t.ok(wants(addon(1, { environments: ['production'] }), event({ environment: 'production' })));
});

t.test('the request: event JSON by default, the template when set, signed either way', async (t) => {
  const plain = webhookRequest(addon(1), event(), LIMITS.template);
  t.same(JSON.parse(plain.body), { id: 7, type: 'feature-created', createdBy: 'admin', createdAt: T0, project: 'default', environment: null, featureName: 'alpha', data: { name: 'alpha', note: '<b>&' }, preData: null, tags: [] });
  t.equal(plain.headers['X-Fanion-Signature'], `sha256=${createHmac('sha256', 'fixture-signing-secret').update(plain.body).digest('hex')}`);
  t.equal(plain.headers['Content-Type'], 'application/json');
  t.notOk('Authorization' in plain.headers);
  const templated = webhookRequest(addon(1, { parameters: { url: 'http://x/', bodyTemplate: '{{event.data.note}}|{{{event.data.note}}}', contentType: 'text/plain' } }), event(), LIMITS.template);
  t.equal(templated.body, '&lt;b&gt;&amp;|<b>&', 'double braces escape as Mustache does; triple braces do not');
  t.equal(templated.headers['X-Fanion-Signature'], signature('fixture-signing-secret', templated.body));
  t.equal(templated.headers['Content-Type'], 'text/plain');
});

t.test('a new addon starts after its own creation event; the cursor never moves back', async (t) => {
  const s = fixtureState();
  const change = createAddon({ provider: 'webhook', enabled: true, parameters: { url: 'http://x/' }, events: ['*'] }, LIMITS)(s, env);
  t.same(change.ops[1], { o: 'addon.cursor', id: 2, eventId: s.events.lastId + 1 });
  t.equal(change.events[0].type, 'addon-config-created');
  t.match(change.result.signingSecret, /^[0-9a-f]{64}$/);
  t.same(moveCursor(1, 1)(s).ops, [], 'already there (the fixture cursor is 1)');
  t.same(moveCursor(1, 2)(s).ops, [{ o: 'addon.cursor', id: 1, eventId: 2 }]);
  t.same(moveCursor(42, 2)(s).ops, [], 'an unknown addon has no cursor');
  const off = updateAddon('1', { provider: 'webhook', enabled: false, parameters: { url: 'http://x/', signingSecret: '*****' }, events: ['*'] }, LIMITS)(s);
  t.equal(off.result.signingSecret, 'fixture-signing-secret', 'the masked secret is kept');
  t.equal(off.ops.length, 1, 'switching off does not move the cursor');
});

t.test('an addon saved before the destination policy: its URL may be kept on an update (sends are refused), not set anew', async (t) => {
  const s = fixtureState();
  // The fixture's addon points at 127.0.0.1, as one saved before loopback was refused.
  const off = updateAddon('1', { provider: 'webhook', enabled: false, parameters: { url: 'http://127.0.0.1:9/hook' }, events: ['*'] }, LIMITS)(s);
  t.equal(off.result.enabled, false, 'switched off with its URL unchanged');
  t.throws(() => updateAddon('1', { provider: 'webhook', enabled: false, parameters: { url: 'http://127.0.0.1:10/hook' }, events: ['*'] }, LIMITS)(s), /127\.0\.0\.1 is a loopback address/);
  t.throws(() => createAddon({ provider: 'webhook', enabled: true, parameters: { url: 'http://127.0.0.1:9/hook' }, events: ['*'] }, LIMITS)(s, env), /127\.0\.0\.1 is a loopback address/);
  const withPassword = addonView(addon(1, { parameters: { url: 'https://user:hunter2-secret@hooks.example.com/x' } }));
  t.equal(withPassword.parameters.url, 'https://user:*****@hooks.example.com/x', 'a password saved in a URL before is masked when shown');
  t.equal(addonView(addon(1, { parameters: { url: 'https://user:hunter2-secret@hooks.example.com/x' } }), true).parameters.url, 'https://user:hunter2-secret@hooks.example.com/x', 'and revealed only where secrets are');
});

t.test('a body template saved before its budget may be kept on an update, not set anew', async (t) => {
  const s = fixtureState();
  const exploding = `${'{{#event.data.values}}'.repeat(6)}{{.}}${'{{/event.data.values}}'.repeat(6)}`;
  const old = addon(1, { parameters: { url: 'https://hooks.example.com/x', bodyTemplate: exploding } });
  s.addons.set(1, old);
  const input = (bodyTemplate: string) => ({ provider: 'webhook', enabled: false, parameters: { url: 'https://hooks.example.com/x', bodyTemplate }, events: ['*'] });
  t.equal(updateAddon('1', input(exploding), LIMITS)(s).result.enabled, false, 'switched off, template unchanged');
  t.throws(() => updateAddon('1', input(`${exploding} `), LIMITS)(s), /parameters\.bodyTemplate: could take about \d+ steps/);
});
