// TokenAuthenticator on its own: the decision for each kind of credential, with a fake clock so
// expiry is exact, and the scope handed to the client API.
import type { IncomingMessage } from 'node:http';
import t from 'tap';
import { AuthenticationRequired, NoAccessError } from '../../../src/core/errors.js';
import { emptyState } from '../../../src/core/state/state.js';
import type { ApiToken } from '../../../src/core/state/types.js';
import { TokenAuthenticator } from '../../../src/concepts/tokens/token-authenticator.js';
import { TokenHasher } from '../../../src/concepts/tokens/hasher.js';

const hasher = new TokenHasher(Buffer.alloc(32, 1));
const state = emptyState();
let now = Date.parse('2026-01-01T00:00:00Z');
const auth = new TokenAuthenticator(() => state, hasher, () => now);
const req = (authorization?: string) => ({ headers: authorization === undefined ? {} : { authorization } }) as IncomingMessage;

function add(secret: string, extra: Partial<ApiToken>): void {
  const hash = hasher.hash(secret);
  state.apiTokens.set(hash, {
    hash, tokenName: secret.split('.')[1], type: 'admin', environment: '*', projects: ['*'], expiresAt: null, createdAt: '', prefix: '', ...extra,
  });
}
add('*:*.admin', {});
add('a:*.scoped', { projects: ['a'] });
add('a:production.client', { type: 'client', projects: ['a'], environment: 'production' });
add('*:development.front', { type: 'frontend', environment: 'development' });
add('*:*.soon', { expiresAt: '2026-01-01T00:00:10.000Z' });

t.test('missing, blank, unknown and tampered credentials are 401', async (t) => {
  for (const h of [undefined, '', 'Bearer ', 'garbage', '*:*.unknown', '*:*.admin ', 'b:*.scoped']) {
    if (h === '*:*.admin ') continue; // trailing spaces are trimmed: that one is valid
    t.throws(() => auth.admin(req(h), 'READ', {}), AuthenticationRequired, `header ${JSON.stringify(h)}`);
    t.throws(() => auth.client(req(h)), AuthenticationRequired);
  }
  t.equal(auth.admin(req('Bearer *:*.admin '), 'READ', {}).name, 'admin', 'Bearer prefix and surrounding spaces are accepted');
});

t.test('expired tokens are 401 from their expiry instant on', async (t) => {
  t.equal(auth.admin(req('*:*.soon'), 'ADMIN', {}).name, 'soon');
  now += 10_000;
  const err = t.throws(() => auth.admin(req('*:*.soon'), 'ADMIN', {})) as Error;
  t.type(err, AuthenticationRequired);
  t.match(err.message, /expired/);
  now -= 10_000;
});

t.test('wrong token types are 403 naming the permission and environment', async (t) => {
  const e1 = t.throws(() => auth.admin(req('a:production.client'), 'UPDATE_FEATURE_STRATEGY', { project: 'a', environment: 'production' })) as Error;
  t.type(e1, NoAccessError);
  t.match(e1.message, 'You need permission=UPDATE_FEATURE_STRATEGY to perform this action on environment=production');
  t.throws(() => auth.admin(req('*:development.front'), 'READ', {}), NoAccessError);
  t.throws(() => auth.client(req('*:*.admin')), NoAccessError);
  t.throws(() => auth.client(req('*:development.front')), NoAccessError);
  t.throws(() => auth.frontend(req('a:production.client')), NoAccessError);
});

t.test('a scoped admin token acts inside its project only', async (t) => {
  t.equal(auth.admin(req('a:*.scoped'), 'CREATE_FEATURE', { project: 'a' }).name, 'scoped');
  const err = t.throws(() => auth.admin(req('a:*.scoped'), 'CREATE_FEATURE', { project: 'b', environment: 'development' })) as Error;
  t.type(err, NoAccessError);
  t.match(err.message, 'You need permission=CREATE_FEATURE to perform this action on environment=development in project=b');
  t.throws(() => auth.admin(req('a:*.scoped'), 'ADMIN', {}), NoAccessError);
});

t.test('listings that show only what the caller may see: any admin token gets in, with its stored limits as its view', async (t) => {
  t.equal(auth.admin(req('a:*.scoped'), 'READ', { visibleOnly: true }).name, 'scoped');
  // Events about people, tokens and webhooks are for those who may list them: a token limited to a
  // project may not, an unlimited admin token may.
  t.same(auth.adminView(req('a:*.scoped')), { projects: ['a'], environment: '*', hideAdminEvents: true });
  t.same(auth.adminView(req('*:*.admin')), { projects: ['*'], environment: '*', hideAdminEvents: false });
  for (const other of ['a:production.client', '*:development.front']) {
    t.throws(() => auth.admin(req(other), 'READ', { visibleOnly: true }), NoAccessError, `${other.split('.')[1]} token: 403`);
    t.throws(() => auth.adminView(req(other)), NoAccessError);
  }
  t.throws(() => auth.adminView(req('*:*.unknown')), AuthenticationRequired);
  const hash = hasher.hash('a:*.scoped');
  const before = state.apiTokens.get(hash)!;
  state.apiTokens.set(hash, { ...before, projects: ['a', 'b'] });
  t.same(auth.adminView(req('a:*.scoped')).projects, ['a', 'b'], 'a changed token (a project deleted or added) is re-read at once');
  state.apiTokens.set(hash, before);
});

t.test('client scope comes from the stored token, and is the same object on every call', async (t) => {
  const s1 = auth.client(req('a:production.client'));
  t.same({ environment: s1.environment, projects: s1.projects, actor: s1.actor.name }, { environment: 'production', projects: ['a'], actor: 'client' });
  t.equal(auth.client(req('Bearer a:production.client')), s1, 'cached: no allocation per request');
  t.equal(auth.frontend(req('*:development.front')).environment, 'development');
});

t.test('a token removed from the state stops working at once', async (t) => {
  const hash = hasher.hash('a:production.client');
  const kept = state.apiTokens.get(hash)!;
  state.apiTokens.delete(hash);
  t.throws(() => auth.client(req('a:production.client')), AuthenticationRequired);
  state.apiTokens.set(hash, { ...kept, environment: 'development' });
  t.equal(auth.client(req('a:production.client')).environment, 'development', 'a replaced token object is re-read');
});
