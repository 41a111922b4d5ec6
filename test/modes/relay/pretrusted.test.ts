// PRETRUSTED_TOKENS (Unleash Edge's setting): frontend tokens, or `<alias>@<token>`, a relay serves
// without asking its upstream, which here refuses them; the upstream is never asked about them,
// and revalidation does not drop them.
import t from 'tap';
import { countingProxy, startRelay, startUpstream, UP_CLIENT, waitReady } from '../../helpers/relay.js';

const P = '/api/admin/projects';
// Neither exists upstream.
const TRUSTED = 'default:development.pretrusted-only-on-the-relay';
const ALIAS = 'legacy-proxy-key';
const ALIASED = `${ALIAS}@default:development.another-token-the-upstream-never-made`;

t.test('pre-trusted frontend tokens and aliases are served by a relay whose upstream refuses them', async (t) => {
  const { srv: up, ok } = await startUpstream(t);
  await ok('POST', `${P}/default/features`, { name: 'on-flag' });
  await ok('POST', `${P}/default/features/on-flag/environments/development/strategies`, { name: 'default' });
  await ok('POST', `${P}/default/features/on-flag/environments/development/on`);
  const upstreamSays = await fetch(`${up.url}/api/frontend`, { headers: { authorization: TRUSTED } });
  t.equal(upstreamSays.status, 401, 'the upstream itself refuses the token');

  const proxy = await countingProxy(t, up.url);
  const relay = await startRelay(t, proxy.url, { tokens: [UP_CLIENT], env: { PRETRUSTED_TOKENS: `${TRUSTED},${ALIASED}`, TOKEN_REVALIDATION_INTERVAL_SECONDS: '0.5' } });
  await waitReady(relay.url);
  const validatesBefore = proxy.counts.get('/edge/validate') ?? 0;
  const front = async (token: string) => {
    const res = await fetch(`${relay.url}/api/frontend`, { headers: { authorization: token } });
    return { status: res.status, names: res.status === 200 ? ((await res.json()) as { toggles: { name: string }[] }).toggles.map((x) => x.name) : [] };
  };
  t.same(await front(TRUSTED), { status: 200, names: ['on-flag'] }, 'the pre-trusted token: 200 with the enabled flags of its scope');
  t.same(await front(ALIAS), { status: 200, names: ['on-flag'] }, 'the alias: 200, with the scope of the token after the @');
  t.equal((await front('default:development.not-pretrusted')).status, 401, 'a token neither pre-trusted nor granted upstream: 401');
  const alias = ALIASED.slice(ALIAS.length + 1);
  t.equal((await front(alias)).status, 401, 'the token behind an alias is not itself trusted');
  t.equal((await fetch(`${relay.url}/api/client/features`, { headers: { authorization: TRUSTED } })).status, 403, 'a pre-trusted token is a frontend token: 403 on the client API');

  const listed = (await (await fetch(`${relay.url}/internal-backstage/tokens`, { headers: { authorization: UP_CLIENT } })).json()) as { tokens: { token: string; type?: string; status: string }[] };
  t.same(listed.tokens.map((x) => [x.type, x.status]).sort(), [['client', 'validated'], ['frontend', 'trusted'], ['frontend', 'trusted']], '/internal-backstage/tokens: the upstream\'s token validated, the pre-trusted ones trusted');
  t.notOk(JSON.stringify(listed).includes('pretrusted-only-on-the-relay') || JSON.stringify(listed).includes(ALIAS), 'without their secrets or aliases');

  // Revalidation (every 0.5 s) runs a few times: the pre-trusted tokens stay.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  t.same(await front(TRUSTED), { status: 200, names: ['on-flag'] }, 'still served after revalidations');
  const validations = proxy.counts.get('/edge/validate') ?? 0;
  t.ok(validations > validatesBefore, `revalidation ran (${validations - validatesBefore} /edge/validate since ready)`);
  t.equal(proxy.counts.get('/api/frontend') ?? 0, 0, 'the upstream\'s Frontend API was never asked');
});

t.test('a PRETRUSTED_TOKENS entry without a scope is refused at start', async (t) => {
  const { spawnServer } = await import('../../helpers/server.js');
  const s = await spawnServer({ expectExit: true, env: { AUTH_TYPE: 'api-token', UPSTREAM_URL: 'http://127.0.0.1:1', TOKENS: UP_CLIENT, PRETRUSTED_TOKENS: 'alias@no-scope' } });
  t.not(await s.stop(), 0, 'it exits');
  t.match(s.output(), /PRETRUSTED_TOKENS must list frontend tokens/, 'naming the setting');
});
