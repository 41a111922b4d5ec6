// The change-request gate over HTTP against a real server: with change requests on in production
// of a project, every door that changes production (switches, strategies, their order and a copy, the
// environment's variants, release plans (applying, removing, milestones, progressions, resuming)
// and safeguards (the flag's and the plan's), the features import, and what reaches
// production from no environment: archiving, dependencies, a project segment and a shared one
// used there) refuses an Editor with 403 naming the rule and SKIP_CHANGE_REQUEST, and nothing is
// written; the same door into development (or reaching only development) goes through; an
// Admin, who may skip, goes through in production. Table-driven: a door added later that is not
// gated shows up here only if added to the table, but the gate reads the route's scope, so it is
// gated the day its scope names production.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { STRONG, signInAs, withSession } from '../../helpers/people.js';
import { client, serve } from '../../helpers/server.js';

const ADMIN = '*:*.change-request-gate-admin';
const F = '/api/admin/projects/default/features';
const VARIANT = { name: 'blue', weight: 1000, weightType: 'variable', stickiness: 'default' };
const CONSTRAINT = { contextName: 'userId', operator: 'IN', values: ['1'] };
const SAFEGUARD = {
  impactMetric: { metricName: 'errors', timeRange: 'hour', aggregationMode: 'count', labelSelectors: { appName: ['shop'] } },
  triggerCondition: { operator: '>', threshold: 5 },
};

type Call = [method: string, path: string, body?: unknown];
interface Fixture {
  flag: string;
  /** The flag's own strategy in each environment. */
  strategy: Record<string, string>;
  /** A segment used by a strategy in the target environment only, and the shared one. */
  segment?: number;
  templateId: string;
  /** The flag's release plan in the target environment (its first milestone progressing to the second, with a safeguard). */
  plan?: { id: string; milestones: string[]; safeguard: string };
}
interface Door {
  name: string;
  /** Where the flag is on before the call: the target environment only for doors that reach it through the flag being on. */
  onIn: 'both' | 'target' | 'none';
  segment?: 'project' | 'shared';
  dependency?: boolean;
  plan?: boolean;
  call: (env: string, f: Fixture) => Call;
}

const DOORS: Door[] = [
  { name: 'switch on', onIn: 'none', call: (e, f) => ['POST', `${F}/${f.flag}/environments/${e}/on`] },
  { name: 'switch off', onIn: 'both', call: (e, f) => ['POST', `${F}/${f.flag}/environments/${e}/off`] },
  { name: 'add a strategy', onIn: 'both', call: (e, f) => ['POST', `${F}/${f.flag}/environments/${e}/strategies`, { name: 'default' }] },
  {
    name: 'update a strategy', onIn: 'both',
    call: (e, f) => ['PUT', `${F}/${f.flag}/environments/${e}/strategies/${f.strategy[e]}`, { name: 'flexibleRollout', parameters: { rollout: '50', stickiness: 'default', groupId: f.flag } }],
  },
  { name: 'patch a strategy', onIn: 'both', call: (e, f) => ['PATCH', `${F}/${f.flag}/environments/${e}/strategies/${f.strategy[e]}`, [{ op: 'replace', path: '/title', value: 'patched' }]] },
  { name: 'delete a strategy', onIn: 'both', call: (e, f) => ['DELETE', `${F}/${f.flag}/environments/${e}/strategies/${f.strategy[e]}`] },
  { name: "copy another environment's set-up", onIn: 'both', call: (e, f) => ['POST', `${F}/${f.flag}/environments/${e}/copy`, { from: e === 'production' ? 'development' : 'production' }] },
  { name: 'reorder strategies', onIn: 'both', call: (e, f) => ['POST', `${F}/${f.flag}/environments/${e}/strategies/set-sort-order`, [{ id: f.strategy[e], sortOrder: 7 }]] },
  { name: "set the environment's variants", onIn: 'both', call: (e, f) => ['PUT', `${F}/${f.flag}/environments/${e}/variants`, [VARIANT]] },
  { name: "patch the environment's variants", onIn: 'both', call: (e, f) => ['PATCH', `${F}/${f.flag}/environments/${e}/variants`, [{ op: 'add', path: '/0', value: VARIANT }]] },
  { name: 'variants of several environments', onIn: 'both', call: (e, f) => ['PUT', `${F}/${f.flag}/variants-batch`, { environments: [e], variants: [VARIANT] }] },
  { name: 'apply a release plan', onIn: 'both', call: (e, f) => ['POST', `${F}/${f.flag}/environments/${e}/release-plans`, { templateId: f.templateId }] },
  { name: 'add a safeguard', onIn: 'both', call: (e, f) => ['PUT', `${F}/${f.flag}/environments/${e}/safeguards`, SAFEGUARD] },
  { name: 'remove a release plan', onIn: 'both', plan: true, call: (e, f) => ['DELETE', `${F}/${f.flag}/environments/${e}/release-plans/${f.plan!.id}`] },
  { name: 'start a milestone', onIn: 'both', plan: true, call: (e, f) => ['POST', `${F}/${f.flag}/environments/${e}/release-plans/${f.plan!.id}/milestones/${f.plan!.milestones[2]}/start`] },
  {
    name: 'set a progression', onIn: 'both', plan: true,
    call: (e, f) => ['PUT', `${F}/${f.flag}/environments/${e}/progressions/${f.plan!.milestones[1]}`, { targetMilestone: f.plan!.milestones[2], transitionCondition: { intervalMinutes: 5 } }],
  },
  { name: 'remove a progression', onIn: 'both', plan: true, call: (e, f) => ['DELETE', `${F}/${f.flag}/environments/${e}/progressions/${f.plan!.milestones[0]}`] },
  { name: 'resume a plan', onIn: 'both', plan: true, call: (e, f) => ['POST', `${F}/${f.flag}/environments/${e}/progressions/${f.plan!.id}/resume`] },
  { name: "add a safeguard to a plan", onIn: 'both', plan: true, call: (e, f) => ['PUT', `${F}/${f.flag}/environments/${e}/release-plans/${f.plan!.id}/safeguards`, SAFEGUARD] },
  { name: "remove a plan's safeguard", onIn: 'both', plan: true, call: (e, f) => ['DELETE', `${F}/${f.flag}/environments/${e}/release-plans/${f.plan!.id}/safeguards/${f.plan!.safeguard}`] },
  {
    name: 'features import', onIn: 'both',
    call: (e, f) => ['POST', '/api/admin/features-batch/import', { project: 'default', environment: e, data: { features: [{ name: f.flag, project: 'default', description: 'imported' }] } }],
  },
  { name: 'archive a flag on there', onIn: 'target', call: (_e, f) => ['DELETE', `${F}/${f.flag}`] },
  { name: 'add a dependency to a flag on there', onIn: 'target', call: (_e, f) => ['POST', `${F}/${f.flag}/dependencies`, { feature: `${f.flag}-parent` }] },
  { name: 'remove the dependencies of a flag on there', onIn: 'target', dependency: true, call: (_e, f) => ['DELETE', `${F}/${f.flag}/dependencies`] },
  {
    name: 'change a project segment used there', onIn: 'none', segment: 'project',
    call: (_e, f) => ['PUT', `/api/admin/segments/${f.segment}`, { name: `${f.flag}-seg`, project: 'default', constraints: [CONSTRAINT] }],
  },
  {
    name: 'change a shared segment used there', onIn: 'none', segment: 'shared',
    call: (_e, f) => ['PUT', `/api/admin/segments/${f.segment}`, { name: `${f.flag}-seg`, constraints: [CONSTRAINT] }],
  },
];

function walBytes(dir: string): number {
  return fs.readdirSync(dir).filter((f) => f.startsWith('wal-')).reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0);
}

t.test('with change requests on in production: every door refuses a direct change there, and changes nothing; development stays direct; an Admin skips', async (t) => {
  const { srv, api, ok } = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, UNLEASH_DEFAULT_ADMIN_PASSWORD: STRONG }, authorization: ADMIN });
  await ok('POST', '/api/admin/user-admin', { username: 'editor', password: STRONG, rootRole: 'Editor' });
  const editor = withSession(srv.url, await signInAs(srv.url, 'editor', STRONG));
  const adminPerson = withSession(srv.url, await signInAs(srv.url, 'admin', STRONG));
  const templateId = (await ok('GET', '/api/admin/release-plan-templates'))[0].id;
  t.equal((await api('PUT', '/api/admin/projects/default/environments/production/change-requests/config', { changeRequestsEnabled: true, requiredApprovals: 1 })).status, 204);

  /** A flag of its own for one door and one run, set up by the admin token (which may skip). */
  let n = 0;
  const fixture = async (door: Door, target: string): Promise<Fixture> => {
    const flag = `door-${++n}`;
    await ok('POST', F, { name: flag });
    const strategy: Record<string, string> = {};
    for (const e of ['development', 'production']) strategy[e] = (await ok('POST', `${F}/${flag}/environments/${e}/strategies`, { name: 'default' })).id;
    const on = door.onIn === 'both' ? ['development', 'production'] : door.onIn === 'target' ? [target] : [];
    for (const e of on) await ok('POST', `${F}/${flag}/environments/${e}/on`);
    if (door.dependency || door.name.includes('dependency')) await ok('POST', F, { name: `${flag}-parent` });
    if (door.dependency) await ok('POST', `${F}/${flag}/dependencies`, { feature: `${flag}-parent` });
    let segment: number | undefined;
    if (door.segment) {
      segment = (await ok('POST', '/api/admin/segments', { name: `${flag}-seg`, constraints: [], ...(door.segment === 'project' ? { project: 'default' } : {}) })).id;
      await ok('POST', `${F}/${flag}/environments/${target}/strategies`, { name: 'default', segments: [segment] });
    }
    let plan: Fixture['plan'];
    if (door.plan) {
      const P = `${F}/${flag}/environments/${target}`;
      const made = await ok('POST', `${P}/release-plans`, { templateId });
      const milestones = made.milestones.map((m: { id: string }) => m.id);
      await ok('PUT', `${P}/progressions/${milestones[0]}`, { targetMilestone: milestones[1], transitionCondition: { intervalMinutes: 60 } });
      await ok('PUT', `${P}/release-plans/${made.id}/safeguards`, SAFEGUARD);
      plan = { id: made.id, milestones, safeguard: (await ok('GET', `${P}/release-plans/${made.id}/safeguards`))[0].id };
    }
    return { flag, strategy, segment, templateId, plan };
  };

  for (const door of DOORS) {
    t.test(door.name, async (t) => {
      // Refused in production, with nothing written.
      const f = await fixture(door, 'production');
      const [method, url, body] = door.call('production', f);
      const wal = walBytes(srv.dataDir);
      const events = (await ok('GET', '/api/admin/events')).totalEvents;
      const flagBefore = await ok('GET', `${F}/${f.flag}`);
      const res = await editor(method, url, body);
      t.equal(res.status, 403, `refused (got ${res.status} ${res.text.slice(0, 200)})`);
      t.match(res.json, {
        id: String, name: 'NoAccessError',
        message: /^You need permission=SKIP_CHANGE_REQUEST to perform this action on environment=production in project=default: change requests are required in production of project default \(1 approval\)/,
      }, 'naming the rule and the skip permission');
      t.equal(walBytes(srv.dataDir), wal, 'not one byte written to the log');
      t.equal((await ok('GET', '/api/admin/events')).totalEvents, events, 'no event');
      t.same(await ok('GET', `${F}/${f.flag}`), flagBefore, 'the flag is as it was');

      // The same door into development (or reaching only development): direct.
      const d = await fixture(door, 'development');
      const [dm, du, db] = door.call('development', d);
      const dev = await editor(dm, du, db);
      t.ok(dev.status >= 200 && dev.status < 300, `development is direct (got ${dev.status} ${dev.text.slice(0, 200)})`);

      // An Admin may skip: the change goes through in production.
      const s = await fixture(door, 'production');
      const [sm, su, sb] = door.call('production', s);
      const skip = await adminPerson(sm, su, sb);
      t.ok(skip.status >= 200 && skip.status < 300, `an Admin skips (got ${skip.status} ${skip.text.slice(0, 200)})`);
    });
  }

  t.test('what does not change production stays direct in a protected project', async (t) => {
    const f = await fixture(DOORS[1], 'production');
    t.equal((await editor('PATCH', `${F}/${f.flag}`, [{ op: 'replace', path: '/description', value: 'metadata only' }])).status, 200, "a flag's metadata");
    t.equal((await editor('POST', F, { name: 'brand-new' })).status, 201, 'a new flag (off everywhere)');
    t.equal((await editor('POST', `/api/admin/features/${f.flag}/tags`, { type: 'simple', value: 'checkout' })).status, 201, 'a tag');
    const check = { project: 'default', environment: 'production', data: { features: [{ name: f.flag, project: 'default' }] } };
    const review = await editor('POST', '/api/admin/features-batch/validate', check);
    t.equal(review.status, 200, "an import's validation (a dry run)");
    t.match(review.json.permissions, [{ message: /^You need permission=SKIP_CHANGE_REQUEST .*change requests are required in production of project default/, affectedItems: [f.flag] }], 'which says the import would be refused');
    t.same((await adminPerson('POST', '/api/admin/features-batch/validate', check)).json.permissions, [], 'and says nothing to an Admin');
    t.same((await editor('POST', '/api/admin/features-batch/validate', { ...check, environment: 'development' })).json.permissions, [], 'nor about development');
    t.equal((await editor('PUT', '/api/admin/projects/default', { name: 'Default' })).status, 200, "the project's settings");
  });

  t.test('an admin token is an Admin\'s delegate: within its limits it skips', async (t) => {
    const f = await fixture(DOORS[1], 'production');
    t.equal((await api('POST', `${F}/${f.flag}/environments/production/off`)).status, 200, 'the unlimited token');
    const made = await ok('POST', '/api/admin/api-tokens', { tokenName: 'prod-only', type: 'admin', projects: ['default'], environment: 'production' });
    const limited = client(srv.url, { authorization: made.secret });
    t.equal((await limited('POST', `${F}/${f.flag}/environments/production/on`)).status, 200, 'a token of default and production');
  });

  t.test('turned off again, production is direct for the Editor', async (t) => {
    t.equal((await api('PUT', '/api/admin/projects/default/environments/production/change-requests/config', { changeRequestsEnabled: false })).status, 204);
    const f = await fixture(DOORS[1], 'production');
    t.equal((await editor('POST', `${F}/${f.flag}/environments/production/off`)).status, 200);
  });
});
