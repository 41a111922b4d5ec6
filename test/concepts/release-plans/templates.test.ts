// Release templates and plans against a real server, with people of each role: an Editor makes
// and changes templates (milestones with constraints, segments, variants and {{featureName}}), a
// project Member applies them where they may change flags and nowhere else, a Viewer reads; bad
// input is a 400 with an error body and leaves nothing behind; a segment a template uses cannot be
// deleted; an archived template cannot be applied; and after a restart the built-in template is
// still there once, the plan still served.
import t from 'tap';
import { signInAs, STRONG } from '../../helpers/people.js';
import { client, serve, spawnServer } from '../../helpers/server.js';

const ADMIN = '*:*.plans-templates-admin';
const CLIENT = '*:development.plans-templates-client';
const T = '/api/admin/release-plan-templates';
const ENV = 'development';
const plansOf = (project: string, flag: string) => `/api/admin/projects/${project}/features/${flag}/environments/${ENV}/release-plans`;

t.test('templates for Editors, plans for whoever may change the flag, bad input refused whole', async (t) => {
  const env = { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT, UNLEASH_DEFAULT_ADMIN_PASSWORD: STRONG, SIGN_IN_LIMIT_PER_ADDRESS: '1000' };
  const { srv, api, ok } = await serve(t, { authorization: ADMIN, env });
  for (const id of ['alpha', 'beta']) await ok('POST', '/api/admin/projects', { id, name: id });
  await ok('POST', '/api/admin/user-admin', { username: 'member', password: STRONG, rootRole: 'Viewer', projects: [{ project: 'alpha', role: 'Member' }] });
  await ok('POST', '/api/admin/user-admin', { username: 'editor', password: STRONG, rootRole: 'Editor' });
  const as = async (name: string) => client(srv.url, { cookie: `fanion-session=${await signInAs(srv.url, name, STRONG)}` });
  const [member, editor] = [await as('member'), await as('editor')];
  for (const [project, flag] of [['alpha', 'a-flag'], ['beta', 'b-flag']]) {
    await ok('POST', `/api/admin/projects/${project}/features`, { name: flag });
    await ok('POST', `/api/admin/projects/${project}/features/${flag}/environments/${ENV}/on`);
  }
  const nordics = await ok('POST', '/api/admin/segments', { name: 'nordics', constraints: [{ contextName: 'country', operator: 'IN', values: ['NO', 'SE'] }] });
  const betaOnly = await ok('POST', '/api/admin/segments', { name: 'beta-testers', project: 'beta', constraints: [] });

  const body = {
    name: 'Careful rollout',
    description: 'internal first',
    milestones: [
      {
        name: 'Internal',
        strategies: [{
          strategyName: 'flexibleRollout', parameters: { rollout: 10, groupId: '{{featureName}}-internal' }, segments: [nordics.id],
          constraints: [{ contextName: 'appName', operator: 'IN', values: ['web'] }], variants: [{ name: 'blue', weight: 1000, weightType: 'variable' }],
        }],
      },
      { name: 'Everyone', strategies: [{ strategyName: 'default' }] },
    ],
  };
  const templateCount = async () => (await ok('GET', T)).length;
  const refused = async (what: string, res: { status: number; json: any }, status = 403) => {
    t.equal(res.status, status, what);
    t.match(res.json, { id: String, name: String, message: String }, `${what}: an error body`);
  };

  await refused('a project Member cannot make a template', await member('POST', T, body));
  const created = await editor('POST', T, body);
  t.equal(created.status, 201, 'an Editor makes one');
  const tpl = created.json;
  t.same(tpl.milestones.map((m: any) => m.name), ['Internal', 'Everyone'], 'its milestones in order');
  t.match(tpl.milestones[0].strategies[0], {
    strategyName: 'flexibleRollout', parameters: { rollout: '10', groupId: '{{featureName}}-internal', stickiness: 'default' }, segments: [nordics.id],
    constraints: [{ contextName: 'appName', operator: 'IN', values: ['web'] }], variants: [{ name: 'blue', weight: 1000 }],
  }, 'its strategy is kept as given, with the rollout defaults');
  t.same((await member('GET', `${T}/${tpl.id}`)).json, tpl, 'anyone may read it');
  t.same((await member('GET', `${T}/${tpl.id}/milestones/${tpl.milestones[1].id}`)).json, tpl.milestones[1], 'and its milestones');

  const count = await templateCount();
  await refused('an unknown strategy type', await editor('POST', T, { name: 'x', milestones: [{ name: 'a', strategies: [{ strategyName: 'nope' }] }] }), 400);
  await refused('a rollout over 100', await editor('POST', T, { name: 'x', milestones: [{ name: 'a', strategies: [{ strategyName: 'flexibleRollout', parameters: { rollout: 150 } }] }] }), 400);
  await refused('two milestones of one name', await editor('POST', T, { name: 'x', milestones: [{ name: 'a' }, { name: 'a' }] }), 400);
  await refused('more than 20 milestones', await editor('POST', T, { name: 'x', milestones: Array.from({ length: 21 }, (_, i) => ({ name: `m${i}` })) }), 400);
  await refused('an unknown segment', await editor('POST', T, { name: 'x', milestones: [{ name: 'a', strategies: [{ strategyName: 'default', segments: [999] }] }] }), 400);
  await refused('a taken name', await editor('POST', T, { ...body }), 400);
  t.equal(await templateCount(), count, 'none of them made a template');

  const renamed = await editor('PUT', `${T}/${tpl.id}`, { ...body, name: 'Careful', milestones: [...tpl.milestones, { name: 'Last', strategies: [{ strategyName: 'default' }] }] });
  t.equal(renamed.status, 200, 'an Editor changes it');
  t.same(renamed.json.milestones.slice(0, 2).map((m: any) => m.id), tpl.milestones.map((m: any) => m.id), 'milestones given back keep their ids');

  await refused('a Member cannot apply it in a project where they are no Member', await member('POST', plansOf('beta', 'b-flag'), { templateId: tpl.id }));
  const plan = await member('POST', plansOf('alpha', 'a-flag'), { templateId: tpl.id });
  t.equal(plan.status, 200, 'a Member applies it in their project');
  t.equal(plan.json.milestones[0].strategies[0].parameters.groupId, 'a-flag-internal', '{{featureName}} replaced');
  await refused('a second plan on the same flag environment', await member('POST', plansOf('alpha', 'a-flag'), { templateId: tpl.id }), 400);
  t.same((await ok('GET', plansOf('alpha', 'a-flag'))).map((p: any) => p.id), [plan.json.id], 'the first plan alone is there');

  const served = (await api('GET', '/api/client/features', undefined, { authorization: CLIENT })).json.features.find((f: any) => f.name === 'a-flag');
  t.match(served.strategies[0], { name: 'flexibleRollout', parameters: { rollout: '10', groupId: 'a-flag-internal' }, variants: [{ name: 'blue' }] }, 'SDKs get the milestone\'s strategy');
  t.same(served.strategies[0].constraints.map((c: any) => c.contextName), ['appName', 'country'], 'with its constraints and its segment\'s');

  await refused('deleting a segment a template uses', await api('DELETE', `/api/admin/segments/${nordics.id}`));

  await refused('a Member cannot archive a template', await member('POST', `${T}/archive/${tpl.id}`));
  t.equal((await editor('POST', `${T}/archive/${tpl.id}`)).status, 200, 'an Editor archives it');
  t.ok((await ok('GET', `${T}/${tpl.id}`)).archivedAt, 'it says so');
  await ok('DELETE', `${plansOf('alpha', 'a-flag')}/${plan.json.id}`);
  await refused('an archived template cannot be applied', await api('POST', plansOf('alpha', 'a-flag'), { templateId: tpl.id }), 400);
  await refused('nor changed', await editor('PUT', `${T}/${tpl.id}`, body), 400);

  const scoped = await ok('POST', T, { name: 'Beta testers', milestones: [{ name: 'a', strategies: [{ strategyName: 'default', segments: [betaOnly.id] }] }] });
  const elsewhere = await api('POST', plansOf('alpha', 'a-flag'), { templateId: scoped.id });
  await refused('a template whose segment belongs to another project', elsewhere, 400);
  t.match(elsewhere.json.message, /belongs to project "beta"/, 'the refusal says why');
  t.same(await ok('GET', plansOf('alpha', 'a-flag')), [], 'and no plan was made');
  const builtin = (await ok('GET', T)).find((x: any) => x.name === 'Gradual rollout');
  const again = await ok('POST', plansOf('alpha', 'a-flag'), { templateId: builtin.id });
  t.equal((await editor('DELETE', `${T}/${tpl.id}`)).status, 204, 'an Editor deletes it');
  t.equal((await api('GET', `${T}/${tpl.id}`)).status, 404, 'then it is gone');

  const types = (await ok('GET', '/api/admin/events?limit=100')).events.map((e: any) => e.type);
  for (const type of ['release-plan-template-created', 'release-plan-template-updated', 'release-plan-template-archived', 'release-plan-template-deleted']) {
    t.ok(types.includes(type), `${type} is in the event log`);
  }

  // A restart replays the log: the built-in template is there once, the plan still served.
  await srv.stop();
  const back = await spawnServer({ dataDir: srv.dataDir, env });
  t.teardown(() => back.stop());
  const api2 = client(back.url, { authorization: ADMIN });
  t.equal((await api2('GET', T)).json.filter((x: any) => x.name === 'Gradual rollout').length, 1, 'after a restart: one built-in template');
  t.same((await api2('GET', plansOf('alpha', 'a-flag'))).json.map((p: any) => p.id), [again.id], 'the plan is still there');
  const servedAgain = (await api2('GET', '/api/client/features', undefined, { authorization: CLIENT })).json.features.find((f: any) => f.name === 'a-flag');
  t.equal(servedAgain.strategies[0].parameters.rollout, '25', 'and served');
});
