// The pure core of API tokens: input normalization, the commands (which must never mutate the
// state they read), token formats, and the scope rule for admin tokens.
import t from 'tap';
import { ValidationError, NotFoundError } from '../../../src/core/errors.js';
import { resolveEvents, type EventDraft } from '../../../src/core/engine/command.js';
import { applyRecord } from '../../../src/core/state/apply.js';
import { storeEvent } from '../../../src/core/state/events/stored.js';
import { loadDump } from '../../../src/core/state/dump.js';
import type { Op } from '../../../src/core/state/ops.js';
import type { State } from '../../../src/core/state/state.js';
import type { ApiToken } from '../../../src/core/state/types.js';
import { credentialOf, generateToken, parseSeedToken, tokenPrefix } from '../../../src/concepts/tokens/format.js';
import { TokenHasher, sameDigest, tokenId } from '../../../src/concepts/tokens/hasher.js';
import {
  createToken, deleteToken, findToken, hasUsableAdminToken, specFromBody, TOKEN_LIMIT, updateTokenExpiry, type TokenSpec,
} from '../../../src/concepts/tokens/logic.js';
import { deepFreeze, fixedEnv, fixtureState, snapshot } from '../../core/state/fixture.js';

const NOW = '2026-02-02T02:02:02.000Z';
const hasher = new TokenHasher(Buffer.alloc(32, 7));
const spec = (extra: Partial<TokenSpec> = {}): TokenSpec => ({
  tokenName: 'sdk', type: 'client', environment: 'development', projects: ['default'], expiresAt: null, ...extra,
});

/** Runs a command against a frozen copy of `s` (so any mutation throws), then applies its change to `s`. */
function run<R>(s: State, cmd: (s: State, e: ReturnType<typeof fixedEnv>) => { ops: Op[]; events: EventDraft[]; result: R }): R {
  const frozen = deepFreeze(loadDump(snapshot(s)));
  const change = cmd(frozen, fixedEnv(NOW));
  const env = fixedEnv(NOW);
  applyRecord(s, { lsn: 99, ops: structuredClone(change.ops), events: resolveEvents(s, env, change.events).map(storeEvent) }, false);
  return change.result;
}

t.test('specFromBody: defaults, backend alias, project vs projects, one environment for SDK tokens', async (t) => {
  t.same(specFromBody({ tokenName: ' a ', type: 'BACKEND' }), { tokenName: 'a', type: 'client', environment: 'development', projects: ['*'], expiresAt: null });
  t.same(specFromBody({ tokenName: 'a', type: 'admin' }), { tokenName: 'a', type: 'admin', environment: '*', projects: ['*'], expiresAt: null });
  t.same(specFromBody({ tokenName: 'a', type: 'frontend', projects: ['b', 'a', 'b'] }).projects, ['a', 'b']);
  t.same(specFromBody({ tokenName: 'a', type: 'client', projects: ['a', '*'] }).projects, ['*']);
  t.throws(() => specFromBody({ tokenName: 'a', type: 'client', project: 'x', projects: ['y'] }), ValidationError);
  t.throws(() => specFromBody({ tokenName: 'a', type: 'client', environment: '*' }), ValidationError);
  t.throws(() => specFromBody({ tokenName: '   ', type: 'client' }), ValidationError);
  t.throws(() => specFromBody({ tokenName: 'a', type: 'root' }), ValidationError);
});

t.test('createToken stores only the hash and emits api-token-created without any secret', async (t) => {
  const s = fixtureState();
  const secret = generateToken(['default'], 'development');
  const view = run(s, createToken(spec(), hasher.hash(secret), tokenPrefix(['default'], 'development')));
  const stored = s.apiTokens.get(hasher.hash(secret))!;
  t.equal(stored.tokenName, 'sdk');
  t.equal(stored.createdAt, NOW);
  t.equal(view.id, tokenId(stored.hash));
  const everything = JSON.stringify(snapshot(s));
  t.notOk(everything.includes(secret.split('.')[1]), 'the secret is nowhere in the state or its events');
  const ev = s.events.oldestFirst();
  const last = [...ev].pop()!;
  t.equal(last.type, 'api-token-created');
  t.equal(last.environment, 'development');
  t.equal(last.project, 'default');
});

t.test('createToken refuses unknown environments and projects, past expiry, and the limit', async (t) => {
  const s = fixtureState();
  t.throws(() => createToken(spec({ environment: 'staging' }), 'a', 'p')(s, fixedEnv(NOW)), ValidationError);
  t.throws(() => createToken(spec({ projects: ['nope'] }), 'a', 'p')(s, fixedEnv(NOW)), ValidationError);
  t.throws(() => createToken(spec({ expiresAt: '2020-01-01T00:00:00Z' }), 'a', 'p')(s, fixedEnv(NOW)), /future/);
  t.throws(() => createToken(spec(), 'h1', 'p')(s, fixedEnv(NOW)), ValidationError, 'an existing hash');
  t.throws(() => createToken(spec(), 'h0', 'p')(s, fixedEnv(NOW)), ValidationError, 'a revoked hash');
  const ok = createToken(spec({ expiresAt: '2030-01-01T00:00:00+02:00' }), 'a', 'p')(s, fixedEnv(NOW));
  t.equal((ok.ops[0] as { token: ApiToken }).token.expiresAt, '2029-12-31T22:00:00.000Z', 'expiry normalized to UTC');
  const full = fixtureState();
  for (let i = full.apiTokens.size; i < TOKEN_LIMIT; i++) full.apiTokens.set(`x${i}`, { ...full.apiTokens.get('h1')!, hash: `x${i}` });
  t.throws(() => createToken(spec(), 'a', 'p')(full, fixedEnv(NOW)), /limit of 2000/);
});

t.test('update and delete find a token by secret hash or by listed id; unknown is 404 without echo', async (t) => {
  const s = fixtureState();
  const secret = 'default:development.abc';
  run(s, createToken(spec(), hasher.hash(secret), 'default:development.'));
  const id = tokenId(hasher.hash(secret));
  const updated = run(s, updateTokenExpiry({ hash: 'nomatch', id }, '2031-01-01T00:00:00.000Z'));
  t.equal(updated.expiresAt, '2031-01-01T00:00:00.000Z');
  const last = [...s.events.oldestFirst()].pop()!;
  t.equal(last.type, 'api-token-updated');
  t.equal((last.preData as { expiresAt: null }).expiresAt, null);
  const err = t.throws(() => deleteToken({ hash: hasher.hash('some-secret'), id: 'some-secret' })(s, fixedEnv(NOW))) as Error;
  t.type(err, NotFoundError);
  t.notMatch(err.message, /some-secret/);
  run(s, deleteToken({ hash: hasher.hash(secret), id: secret }));
  t.notOk(s.apiTokens.has(hasher.hash(secret)));
  t.ok(s.revokedTokens.has(hasher.hash(secret)), 'remembered as revoked');
  t.equal([...s.events.oldestFirst()].pop()!.type, 'api-token-deleted');
  t.equal(findToken(s, { hash: 'x', id: 'not-an-id' }), undefined);
});

t.test('hasUsableAdminToken ignores expired, limited and non-admin tokens', async (t) => {
  const s = fixtureState();
  t.notOk(hasUsableAdminToken(s, NOW), 'the fixture only has a client token');
  run(s, createToken(spec({ type: 'admin', environment: '*', projects: ['default'] }), 'limited', 'default:*.'));
  t.notOk(hasUsableAdminToken(s, NOW), 'a project-limited admin token cannot manage tokens');
  run(s, createToken(spec({ type: 'admin', environment: '*', projects: ['*'], expiresAt: '2026-02-03T00:00:00.000Z' }), 'adm', '*:*.'));
  t.ok(hasUsableAdminToken(s, NOW));
  t.notOk(hasUsableAdminToken(s, '2026-02-04T00:00:00.000Z'));
});

t.test('token strings: seed parsing, Authorization header forms, generated tokens', async (t) => {
  t.same(parseSeedToken('*:*.s3cret'), { project: '*', environment: '*' });
  t.same(parseSeedToken('my.project:production.a.b'), { project: 'my.project', environment: 'production' });
  t.equal(parseSeedToken('no-scope-secret'), null);
  t.equal(parseSeedToken('p:env.'), null);
  t.equal(credentialOf(undefined), null);
  t.equal(credentialOf('   '), null);
  t.equal(credentialOf('Bearer   '), 'Bearer', 'a lone "Bearer" is taken as the credential (and fails as unknown)');
  t.equal(credentialOf('bearer abc'), 'abc');
  t.equal(credentialOf(' abc '), 'abc');
  const g = generateToken(['a', 'b'], 'production');
  t.match(g, /^\[\]:production\.[0-9a-f]{64}$/);
  t.not(generateToken(['*'], '*'), generateToken(['*'], '*'));
});

t.test('hasher: keyed, stable, constant-time comparison', async (t) => {
  const other = new TokenHasher(Buffer.alloc(32, 8));
  t.equal(hasher.hash('x'), hasher.hash('x'));
  t.not(hasher.hash('x'), other.hash('x'), 'a different key gives a different hash');
  t.ok(sameDigest(hasher.digest('x'), hasher.digest('x')));
  t.notOk(sameDigest(hasher.digest('x'), hasher.digest('y')));
  t.notOk(sameDigest(hasher.digest('x'), Buffer.alloc(3)));
  t.throws(() => new TokenHasher(Buffer.alloc(8)));
});
