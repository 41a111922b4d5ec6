// A template's milestones and their strategies changed one at a time over HTTP, against a real
// server: each change keeps the rest of the template as it was, is checked and bounded as a whole
// template is (20 milestones, 30 strategies each), records release-plan-template-updated, and
// survives a restart; bad input is a 400 with an error body and leaves the template unchanged; an
// unknown template, milestone or strategy is a 404; an archived template cannot be changed; a
// project Member (no Editor) may not change templates.
import t from 'tap';
import { signInAs, STRONG } from '../../helpers/people.js';
import { client, serve, spawnServer } from '../../helpers/server.js';

const ADMIN = '*:*.plans-milestones-admin';
const T = '/api/admin/release-plan-templates';

t.test('milestones and milestone strategies, one at a time: checked, bounded, recorded, durable', async (t) => {
  const env = { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, UNLEASH_DEFAULT_ADMIN_PASSWORD: STRONG, SIGN_IN_LIMIT_PER_ADDRESS: '1000' };
  const { srv, ok } = await serve(t, { authorization: ADMIN, env });
  await ok('POST', '/api/admin/projects', { id: 'alpha', name: 'alpha' });
  await ok('POST', '/api/admin/user-admin', { username: 'member', password: STRONG, rootRole: 'Viewer', projects: [{ project: 'alpha', role: 'Member' }] });
  await ok('POST', '/api/admin/user-admin', { username: 'editor', password: STRONG, rootRole: 'Editor' });
  const as = async (name: string) => client(srv.url, { cookie: `fanion-session=${await signInAs(srv.url, name, STRONG)}` });
  const [member, editor] = [await as('member'), await as('editor')];
  const refused = async (what: string, res: { status: number; json: any }, status: number) => {
    t.equal(res.status, status, `${what}: ${status}`);
    t.match(res.json, { id: String, name: String, message: String }, `${what}: an error body`);
  };

  const tpl = await ok('POST', T, { name: 'Steps', milestones: [{ name: 'One', strategies: [{ strategyName: 'default' }] }] });
  const M = `${T}/${tpl.id}/milestones`;

  const two = await editor('POST', M, { name: 'Two', strategies: [{ strategyName: 'flexibleRollout', parameters: { rollout: 50 } }] });
  t.equal(two.status, 201, 'an Editor adds a milestone');
  t.match(two.json, { name: 'Two', sortOrder: 1, releasePlanDefinitionId: tpl.id, strategies: [{ strategyName: 'flexibleRollout', parameters: { rollout: '50', groupId: '{{featureName}}' } }] },
    'last, with its strategy checked and given the rollout defaults');
  let now = await ok('GET', `${T}/${tpl.id}`);
  t.same(now.milestones.map((m: any) => m.name), ['One', 'Two'], 'the template lists it after the first');
  t.same(now.milestones[0], tpl.milestones[0], 'the first milestone is untouched');

  const first = await editor('PUT', `${M}/${two.json.id}`, { name: 'Half', sortOrder: -1 });
  t.equal(first.status, 200, 'an Editor renames and moves it');
  t.same(first.json.strategies, two.json.strategies, 'without strategies in the body, its strategies stay (ids included)');
  now = await ok('GET', `${T}/${tpl.id}`);
  t.same(now.milestones.map((m: any) => m.name), ['Half', 'One'], 'ordered by sortOrder');

  const S = `${M}/${tpl.milestones[0].id}/strategies`;
  const added = await editor('POST', S, { strategyName: 'flexibleRollout', title: 'ten', parameters: { rollout: 10 }, constraints: [{ contextName: 'appName', operator: 'IN', values: ['web'] }] });
  t.equal(added.status, 201, 'an Editor adds a strategy to a milestone');
  t.match(added.json, { milestoneId: tpl.milestones[0].id, sortOrder: 1, title: 'ten', strategyName: 'flexibleRollout', constraints: [{ contextName: 'appName', values: ['web'] }] });
  const changed = await editor('PUT', `${S}/${added.json.id}`, { strategyName: 'flexibleRollout', parameters: { rollout: 20 } });
  t.equal(changed.status, 200, 'and replaces it');
  t.match(changed.json, { id: added.json.id, sortOrder: 1, title: null, parameters: { rollout: '20' }, constraints: [] }, 'same id and place, the new content');
  t.equal((await editor('DELETE', `${S}/${tpl.milestones[0].strategies[0].id}`)).status, 204, 'and removes another');
  now = await ok('GET', `${T}/${tpl.id}`);
  t.same(now.milestones[1].strategies.map((s: any) => s.id), [added.json.id], 'the milestone holds the replaced strategy alone');

  // Bad input: a 400 with an error body, the template as it was.
  const before = await ok('GET', `${T}/${tpl.id}`);
  await refused('a milestone without a name', await editor('POST', M, { strategies: [] }), 400);
  await refused('a blank name', await editor('POST', M, { name: '  ' }), 400);
  await refused('a name taken in the template', await editor('POST', M, { name: 'One' }), 400);
  await refused('renaming to a taken name', await editor('PUT', `${M}/${two.json.id}`, { name: 'One' }), 400);
  await refused('a body that is no object', await editor('POST', M, 'not json'), 400);
  await refused('an unknown strategy type', await editor('POST', S, { strategyName: 'nope' }), 400);
  await refused('a rollout over 100', await editor('POST', S, { strategyName: 'flexibleRollout', parameters: { rollout: 101 } }), 400);
  await refused('an unknown segment', await editor('PUT', `${S}/${added.json.id}`, { strategyName: 'default', segments: [4242] }), 400);
  await refused('a bad constraint', await editor('POST', S, { strategyName: 'default', constraints: [{ contextName: 'appName', operator: 'NOPE', values: [] }] }), 400);
  await refused('a milestone of 31 strategies', await editor('POST', M, { name: 'Many', strategies: Array.from({ length: 31 }, () => ({ strategyName: 'default' })) }), 400);
  t.same(await ok('GET', `${T}/${tpl.id}`), before, 'none of them changed the template');

  // Unknown things: 404.
  await refused('an unknown template', await editor('POST', `${T}/no-such-template/milestones`, { name: 'x' }), 404);
  await refused('an unknown milestone', await editor('PUT', `${M}/no-such-milestone`, { name: 'x' }), 404);
  await refused('a strategy of an unknown milestone', await editor('POST', `${M}/no-such-milestone/strategies`, { strategyName: 'default' }), 404);
  await refused('an unknown strategy', await editor('PUT', `${S}/no-such-strategy`, { strategyName: 'default' }), 404);
  await refused('removing an unknown strategy', await editor('DELETE', `${S}/no-such-strategy`), 404);
  await refused('removing an unknown milestone', await editor('DELETE', `${M}/no-such-milestone`), 404);

  // The bounds: 20 milestones, 30 strategies in one.
  for (let i = (await ok('GET', M)).length; i < 20; i++) await ok('POST', M, { name: `m${i}` });
  await refused('a 21st milestone', await editor('POST', M, { name: 'm20' }), 400);
  for (let i = 1; i < 30; i++) await ok('POST', S, { strategyName: 'default' });
  t.equal((await ok('GET', `${M}/${tpl.milestones[0].id}`)).strategies.length, 30, '30 strategies in one milestone');
  await refused('a 31st strategy', await editor('POST', S, { strategyName: 'default' }), 400);
  t.equal((await editor('DELETE', `${M}/${two.json.id}`)).status, 204, 'an Editor removes a milestone');
  t.equal((await ok('GET', M)).length, 19, 'then 19 are left');

  await refused('a project Member cannot add a milestone', await member('POST', M, { name: 'x' }), 403);
  await refused('nor a strategy', await member('POST', S, { strategyName: 'default' }), 403);
  await refused('nor remove one', await member('DELETE', `${S}/${added.json.id}`), 403);

  const updates = (await ok('POST', '/api/admin/events/search', { type: 'release-plan-template-updated', limit: 100 })).events;
  // 5 changes of one milestone or strategy, 18 milestones and 29 strategies up to the bounds, 1 removal.
  t.equal(updates.length, 5 + 18 + 29 + 1, 'each change recorded release-plan-template-updated, the refused ones nothing');
  const last = updates.find((e: any) => e.preData.milestones.length === 20);
  t.match(last, { data: { id: tpl.id }, preData: { id: tpl.id } }, 'the removal of a milestone: the template after and before');
  t.same([last.data.milestones.length, last.data.milestones.some((m: any) => m.name === 'Half')], [19, false], 'the milestone gone from its data');

  const kept = await ok('GET', `${T}/${tpl.id}`);
  await ok('POST', `${T}/archive/${tpl.id}`);
  await refused('an archived template takes no new milestone', await editor('POST', M, { name: 'late' }), 400);
  await refused('nor a strategy change', await editor('PUT', `${S}/${added.json.id}`, { strategyName: 'default' }), 400);

  await srv.stop();
  const back = await spawnServer({ dataDir: srv.dataDir, env });
  t.teardown(() => back.stop());
  const again = (await client(back.url, { authorization: ADMIN })('GET', `${T}/${tpl.id}`)).json;
  t.same({ ...again, archivedAt: null }, kept, 'after a restart, the template is as the changes left it');
});
