// The one permission check (src/core/access/permissions.ts), pure: admin tokens by their limits, people
// by root role, project roles and environment limits; and the list GET /api/admin/user gives the
// console agrees with it on every permission, scope and grant.
import t from 'tap';
import type { AdminScope } from '../../../src/core/access/access.js';
import { EVERYTHING, listedAllows, mayApply, mayApprove, maySkip, PERMISSIONS, permissionsOf, refusal, type Grant } from '../../../src/core/access/permissions.js';
import type { ProjectBinding, RootRole } from '../../../src/core/state/types.js';

const tok = (projects: string[], environment: string): Grant => ({ kind: 'token', projects, environment });
const person = (role: RootRole, projects: ProjectBinding[] = [], environments: string[] | null = null): Grant => ({ kind: 'person', role, projects, environments });

t.test('admin tokens: limited by project and environment; a route without a project needs an unlimited token', async (t) => {
  const full = tok(['*'], '*');
  const proj = tok(['a', 'b'], '*');
  const env = tok(['*'], 'production');
  const both = tok(['a'], 'development');
  const P = 'UPDATE_FEATURE';
  t.equal(refusal(full, P, {}), null);
  t.equal(refusal(full, P, { project: 'z', environment: 'x' }), null);
  t.match(refusal(proj, P, {}), /this token is limited to projects=a,b/);
  t.equal(refusal(proj, P, { project: 'b', environment: 'x' }), null);
  t.match(refusal(proj, P, { project: 'c' }), /projects=a,b and environment=\*/);
  t.equal(refusal(env, P, { project: 'c' }), null, 'project-level routes do not touch one environment');
  t.equal(refusal(env, P, { project: 'c', environment: 'production' }), null);
  t.match(refusal(env, P, { project: 'c', environment: 'development' }), /environment=production/);
  t.match(refusal(env, P, { environment: 'production' }), /./, 'a route without a project is global');
  t.equal(refusal(both, P, { project: 'a', environment: 'development' }), null);
  t.match(refusal(both, P, { project: 'a', environment: 'production' }), /project=a and environment=development/);
  t.equal(refusal(both, P, { visibleOnly: true }), null, 'a listing that shows only what the caller sees takes any admin caller');
});

t.test('people: root roles', async (t) => {
  const admin = person('Admin');
  const editor = person('Editor');
  const viewer = person('Viewer');
  for (const p of PERMISSIONS) t.equal(refusal(admin, p, {}), null, `an Admin may ${p}`);
  for (const g of [admin, editor, viewer]) t.equal(refusal(g, 'READ', { project: 'x', environment: 'production' }), null, 'every person reads everything');
  t.equal(refusal(editor, 'UPDATE_FEATURE_ENVIRONMENT', { project: 'any', environment: 'production' }), null, 'an Editor switches flags in every project');
  t.equal(refusal(editor, 'CREATE_SEGMENT', {}), null);
  t.equal(refusal(editor, 'CREATE_PROJECT', {}), null);
  t.equal(refusal(editor, 'DELETE_PROJECT', { project: 'any' }), null);
  for (const p of ['ADMIN', 'CREATE_ENVIRONMENT', 'UPDATE_ENVIRONMENT', 'DELETE_ENVIRONMENT']) {
    t.match(refusal(editor, p, {}), /only an Admin may, and your root role is Editor/, `an Editor may not ${p}`);
  }
  t.match(refusal(viewer, 'UPDATE_FEATURE', { project: 'default' }), /your root role is Viewer and you have no role in project=default/);
  t.match(refusal(viewer, 'CREATE_TAG_TYPE', {}), /your root role is Viewer/);
});

t.test('people: project roles add to the root role in their project only', async (t) => {
  const member = person('Viewer', [{ project: 'alpha', role: 'Member' }]);
  const owner = person('Viewer', [{ project: 'alpha', role: 'Owner' }]);
  const reader = person('Viewer', [{ project: 'alpha', role: 'Viewer' }]);
  t.equal(refusal(member, 'UPDATE_FEATURE_ENVIRONMENT', { project: 'alpha', environment: 'production' }), null);
  t.equal(refusal(member, 'CREATE_FEATURE', { project: 'alpha' }), null);
  t.match(refusal(member, 'CREATE_FEATURE', { project: 'beta' }), /no role in project=beta/);
  t.match(refusal(member, 'UPDATE_PROJECT', { project: 'alpha' }), /you are a Member of project=alpha, and your root role is Viewer/);
  t.equal(refusal(owner, 'UPDATE_PROJECT', { project: 'alpha' }), null);
  t.equal(refusal(owner, 'DELETE_PROJECT', { project: 'alpha' }), null);
  t.match(refusal(owner, 'CREATE_PROJECT', {}), /your root role is Viewer/, 'owning a project does not let one create others');
  t.match(refusal(member, 'CREATE_SEGMENT', {}), /your root role is Viewer/, 'a shared segment is not the project\'s');
  t.match(refusal(reader, 'UPDATE_FEATURE', { project: 'alpha' }), /you are a Viewer of project=alpha/);
});

t.test('people: an environment limit', async (t) => {
  const dev = person('Editor', [], ['development']);
  t.equal(refusal(dev, 'UPDATE_FEATURE_ENVIRONMENT', { project: 'p', environment: 'development' }), null);
  t.match(refusal(dev, 'UPDATE_FEATURE_ENVIRONMENT', { project: 'p', environment: 'production' }), /you may change only environment development/);
  t.match(refusal(dev, 'UPDATE_FEATURE', { project: 'p', environment: 'production' }), /only environment development/, 'a features import into production');
  t.equal(refusal(dev, 'UPDATE_FEATURE', { project: 'p' }), null, "a flag's metadata belongs to no environment");
  t.match(refusal(dev, 'CREATE_SEGMENT', {}), /acts on the whole server/);
  t.equal(refusal(dev, 'READ', { project: 'p', environment: 'production' }), null, 'reading is never limited');
  t.match(refusal(person('Editor', [], []), 'UPDATE_FEATURE', { project: 'p' }), /\(none\)/, 'limited to no environment (all deleted): changes nothing');
});

t.test('an environment limit covers where a change takes effect (`reaches`), for people and admin tokens alike', async (t) => {
  const dev = person('Editor', [], ['development']);
  const member = person('Viewer', [{ project: 'p', role: 'Member' }], ['development', 'staging']);
  const token = tok(['*'], 'development');
  for (const [name, g] of [['Editor', dev], ['Member', member], ['token', token]] as const) {
    t.equal(refusal(g, 'UPDATE_SEGMENT', { project: 'p', reaches: [] }), null, `${name}: a change that reaches no environment`);
    t.equal(refusal(g, 'UPDATE_SEGMENT', { project: 'p', reaches: ['development'] }), null, `${name}: one that reaches only its own`);
    t.match(refusal(g, 'UPDATE_SEGMENT', { project: 'p', reaches: ['development', 'production'] }), /this change takes effect in production$/, `${name}: one that reaches production`);
  }
  t.equal(refusal(member, 'DELETE_FEATURE', { project: 'p', reaches: ['staging', 'development'] }), null, 'every environment of the limit');
  t.equal(refusal(person('Editor'), 'DELETE_FEATURE', { project: 'p', reaches: ['production'] }), null, 'no limit, no question');
  t.equal(refusal(tok(['p'], '*'), 'DELETE_FEATURE', { project: 'p', reaches: ['production'] }), null, 'a token of every environment');
});

t.test('a project named in the body (inSomeProject): before the body, the permission in some project is enough', async (t) => {
  t.equal(refusal(person('Viewer', [{ project: 'p', role: 'Member' }]), 'CREATE_SEGMENT', { inSomeProject: true }), null, 'a Member of some project');
  t.equal(refusal(person('Editor'), 'CREATE_SEGMENT', { inSomeProject: true }), null);
  t.match(refusal(person('Viewer', [{ project: 'p', role: 'Viewer' }]), 'CREATE_SEGMENT', { inSomeProject: true }), /no project role of yours gives it/);
  t.match(refusal(person('Viewer'), 'CREATE_SEGMENT', { inSomeProject: true }), /your root role is Viewer/);
  t.equal(refusal(tok(['p'], 'development'), 'CREATE_SEGMENT', { inSomeProject: true }), null, 'any admin token; its project is checked in the body');
});

t.test('GET /api/admin/user lists exactly what refusal allows, for every grant, permission and scope', async (t) => {
  const grants: [string, Grant][] = [
    ['unlimited token', tok(['*'], '*')],
    ['token of two projects', tok(['alpha', 'beta'], '*')],
    ['token of one environment', tok(['*'], 'development')],
    ['token of a project and an environment', tok(['alpha'], 'production')],
    ['Admin', person('Admin')],
    ['Editor', person('Editor')],
    ['Viewer', person('Viewer')],
    ['Owner of alpha', person('Viewer', [{ project: 'alpha', role: 'Owner' }])],
    ['Member of alpha, Viewer of beta', person('Viewer', [{ project: 'alpha', role: 'Member' }, { project: 'beta', role: 'Viewer' }])],
    ['Editor limited to development', person('Editor', [], ['development'])],
    ['Member of alpha limited to development and staging', person('Viewer', [{ project: 'alpha', role: 'Member' }], ['development', 'staging'])],
    ['Editor limited to nothing', person('Editor', [], [])],
    ['AUTH_TYPE=none', EVERYTHING],
  ];
  const scopes: AdminScope[] = [{}];
  for (const project of ['alpha', 'beta', 'gamma']) {
    scopes.push({ project });
    for (const environment of ['development', 'production', 'staging']) scopes.push({ project, environment });
  }
  let checked = 0;
  for (const [name, grant] of grants) {
    const listed = permissionsOf(grant);
    const disagreements: string[] = [];
    for (const permission of PERMISSIONS.filter((p) => p !== 'READ')) {
      for (const scope of scopes) {
        checked++;
        const allowed = refusal(grant, permission, scope) === null;
        if (allowed !== listedAllows(listed, permission, scope.project, scope.environment)) disagreements.push(`${permission} ${JSON.stringify(scope)}: refusal says ${allowed}`);
      }
    }
    t.same(disagreements, [], name);
  }
  t.ok(checked > 3000, `${checked} checks`);
});

t.test('change requests: Owners, Editors and Admins approve and apply; only Admins (and admin tokens within their limits) skip; no token approves', async (t) => {
  const where = { project: 'alpha', environment: 'production' };
  const owner = person('Viewer', [{ project: 'alpha', role: 'Owner' }]);
  const member = person('Viewer', [{ project: 'alpha', role: 'Member' }]);
  const cases: [string, Grant, { approve: boolean; apply: boolean; skip: boolean }][] = [
    ['Admin', person('Admin'), { approve: true, apply: true, skip: true }],
    ['Editor', person('Editor'), { approve: true, apply: true, skip: false }],
    ['Owner of alpha', owner, { approve: true, apply: true, skip: false }],
    ['Member of alpha', member, { approve: false, apply: false, skip: false }],
    ['Viewer', person('Viewer'), { approve: false, apply: false, skip: false }],
    ['Editor limited to development', person('Editor', [], ['development']), { approve: false, apply: false, skip: false }],
    ['unlimited admin token', tok(['*'], '*'), { approve: false, apply: true, skip: true }],
    ['token of alpha and production', tok(['alpha'], 'production'), { approve: false, apply: true, skip: true }],
    ['token of development', tok(['*'], 'development'), { approve: false, apply: false, skip: false }],
    ['AUTH_TYPE=none', EVERYTHING, { approve: true, apply: true, skip: true }],
  ];
  for (const [name, g, want] of cases) {
    t.same({ approve: mayApprove(g, 'alpha', 'production'), apply: mayApply(g, 'alpha', 'production'), skip: maySkip(g, 'alpha', 'production') }, want, name);
  }
  t.match(refusal(tok(['*'], '*'), 'APPROVE_CHANGE_REQUEST', where), /an API token cannot approve/);
  t.match(refusal(person('Editor'), 'SKIP_CHANGE_REQUEST', where), /only an Admin may, and your root role is Editor/);
  t.equal(mayApprove(owner, 'beta', 'production'), false, "an Owner reviews only their project's requests");
  t.equal(mayApprove(person('Editor', [], ['development']), 'alpha', 'development'), true, 'within an environment limit, yes');
  t.same(permissionsOf(person('Admin')).map((e) => e.permission), ['ADMIN', 'APPROVE_CHANGE_REQUEST'], 'an Admin lists approving by itself, since ADMIN does not imply it');
  t.ok(listedAllows(permissionsOf(person('Editor')), 'APPLY_CHANGE_REQUEST', 'alpha', 'production'), "an Editor's list shows applying");
  t.notOk(listedAllows(permissionsOf(tok(['*'], '*')), 'APPROVE_CHANGE_REQUEST', 'alpha', 'production'), "a token's ADMIN does not show approving");
});
