// What deleting a project or an environment does to the API tokens scoped to it, as pure
// commands on a frozen state: one change (ops + events), no secret anywhere in it.
import { createHash } from 'node:crypto';
import t from 'tap';
import { deleteEnvironment } from '../../../src/concepts/environments/logic.js';
import { deleteProject } from '../../../src/concepts/projects/logic.js';
import { tokensWithout } from '../../../src/concepts/tokens/logic.js';
import type { Op } from '../../../src/core/state/ops.js';
import type { State } from '../../../src/core/state/state.js';
import type { ApiToken } from '../../../src/core/state/types.js';
import { runPure } from '../../core/engine/pure.js';
import { copiesOf, T0 } from '../../core/state/fixture.js';

/** Stored hashes look like real ones (64 hex digits), so the listed id is a prefix of one. */
const H = (name: string) => createHash('sha256').update(name).digest('hex');
const token = (name: string, extra: Partial<ApiToken>): ApiToken => ({
  hash: H(name), tokenName: `name-${name}`, type: 'client', environment: 'development', projects: ['*'], expiresAt: null, createdAt: T0, prefix: 'x', ...extra,
});

/** The fixture plus a project `shop`, an environment `staging` and tokens scoped every which way. */
const NAMES = ['only-other', 'other-and-shop', 'shop-only', 'admin-other', 'admin-staging', 'client-staging', 'full-admin'];

function withTokens(): () => State {
  const tokens = [
    token('only-other', { projects: ['other'] }),
    token('other-and-shop', { projects: ['other', 'shop'], environment: 'production' }),
    token('shop-only', { projects: ['shop'] }),
    token('admin-other', { type: 'admin', projects: ['other'], environment: '*' }),
    token('admin-staging', { type: 'admin', projects: ['*'], environment: 'staging' }),
    token('client-staging', { projects: ['other'], environment: 'staging' }),
    token('full-admin', { type: 'admin', projects: ['*'], environment: '*' }),
  ];
  const base = runPure(t, () => ({
    ops: [
      { o: 'project.put', project: { id: 'shop', name: 'Shop', description: null, mode: 'open', defaultStickiness: 'default', createdAt: T0, updatedAt: null } },
      { o: 'env.put', environment: { name: 'staging', type: 'test', enabled: true, protected: false, sortOrder: 300 } },
      ...tokens.map((tk): Op => ({ o: 'token.put', token: tk })),
    ],
    events: [],
    result: null,
  })).after;
  return copiesOf(base);
}

t.test('deleting a project deletes the tokens of that project alone and takes it out of multi-project tokens', async (t) => {
  const { change, after } = runPure(t, deleteProject('other'), withTokens());
  t.notOk(after.projects.has('other'));
  for (const gone of ['only-other', 'admin-other', 'client-staging']) {
    t.notOk(after.apiTokens.has(H(gone)), `${gone} is deleted`);
    t.ok(after.revokedTokens.has(H(gone)), `${gone} is revoked, so INIT_*_API_TOKENS cannot bring it back`);
  }
  t.same(after.apiTokens.get(H('other-and-shop'))!.projects, ['shop'], 'a token of two projects keeps the other one');
  for (const kept of ['shop-only', 'admin-staging', 'full-admin']) t.ok(after.apiTokens.has(H(kept)), `${kept} is untouched`);
  t.ok(after.apiTokens.has('h1'), "the fixture's token of every project is untouched");
  t.same(change.events[0], { type: 'project-deleted', project: 'other', preData: change.events[0].preData });
  t.same(change.events.slice(1).map((e) => `${e.type} ${e.project}`).sort(), [
    'api-token-deleted other', 'api-token-deleted other', 'api-token-deleted other', 'api-token-updated shop',
  ], 'then one event per token: three deleted, one updated');
  const updated = change.events.find((e) => e.type === 'api-token-updated')!;
  t.match(updated, { data: { tokenName: 'name-other-and-shop', projects: ['shop'] }, preData: { projects: ['other', 'shop'] } });
  for (const e of change.events.filter((e) => e.type === 'api-token-deleted')) {
    t.equal(e.data, null);
    t.match(e.preData, { tokenName: String, projects: Array, id: /^[0-9a-f]{16}$/ });
    t.notOk('secret' in (e.preData as object) || 'hash' in (e.preData as object), 'the event carries neither the secret nor the stored hash');
    t.notOk(NAMES.some((n) => JSON.stringify(e).includes(H(n))), 'nor any full hash');
  }
});

t.test('deleting an environment deletes every token of that environment, admin ones included', async (t) => {
  const { change, after } = runPure(t, deleteEnvironment('staging'), withTokens());
  t.notOk(after.apiTokens.has(H('admin-staging')));
  t.notOk(after.apiTokens.has(H('client-staging')));
  t.ok(after.revokedTokens.has(H('admin-staging')) && after.revokedTokens.has(H('client-staging')));
  t.equal(after.apiTokens.size, 6, 'the other tokens stay');
  t.same(change.events.map((e) => [e.type, e.environment ?? null]), [
    ['environment-deleted', 'staging'],
    ['api-token-deleted', 'staging'],
    ['api-token-deleted', 'staging'],
  ]);
});

t.test('a token whose last project goes is deleted; a project no token holds deletes none', async (t) => {
  const { change, after } = runPure(t, deleteProject('shop'), copiesOf(runPure(t, deleteProject('other'), withTokens()).after));
  // After `other` went, `other-and-shop` holds only `shop`: now it goes too.
  t.notOk(after.apiTokens.has(H('other-and-shop')));
  t.notOk(after.apiTokens.has(H('shop-only')));
  t.same(change.events.map((e) => e.type), ['project-deleted', 'api-token-deleted', 'api-token-deleted']);
  const none = runPure(t, (s) => ({ ops: [{ o: 'project.put', project: { ...s.projects.get('other')!, id: 'empty' } }], events: [], result: null })).after;
  t.same(runPure(t, deleteProject('empty'), copiesOf(none)).change.events.map((e) => e.type), ['project-deleted']);
});

t.test('several projects and environments at once (an import that drops them): each token gets one op set and one event', async (t) => {
  const { change, after } = runPure(t, (s, env) => ({ ...tokensWithout(s, { projects: ['other', 'shop'], environments: ['staging'] }, env.now), result: null }), withTokens());
  for (const name of NAMES.filter((n) => n !== 'full-admin')) t.notOk(after.apiTokens.has(H(name)), `${name} is deleted`);
  t.ok(after.apiTokens.has(H('full-admin')) && after.apiTokens.has('h1'), 'tokens of every project and environment stay');
  t.equal(change.events.length, 6);
  t.ok(change.events.every((e) => e.type === 'api-token-deleted'), 'a token losing both its projects is deleted, not updated');
});
