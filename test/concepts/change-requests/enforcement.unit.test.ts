// The change-request gate as a pure function of the state, the route, the scope and the caller:
// which places a scope reaches, which routes are doors, and who gets through.
import t from 'tap';
import type { AdminCaller } from '../../../src/core/access/access.js';
import type { Grant } from '../../../src/core/access/permissions.js';
import { isDirectChange, placesOf, protectedPlaces, refuseDirectChange } from '../../../src/concepts/change-requests/enforcement.js';
import type { RouteDef } from '../../../src/http/route.js';
import { fixtureState } from '../../core/state/fixture.js';

const route = (method: RouteDef['method'], permission: string, extra: Partial<RouteDef> = {}): RouteDef => ({ method, path: '/x', summary: '', tag: '', permission, handler: () => undefined, ...extra });
const as = (grant: Grant) => (): AdminCaller => ({ actor: { name: 'x', userId: null }, grant, via: 'session' });
const editor: Grant = { kind: 'person', role: 'Editor', projects: [], environments: null };

t.test('placesOf: the path\'s environment, what it reaches, and a shared segment\'s places', async (t) => {
  t.same(placesOf({ project: 'p', environment: 'production', reaches: ['production', 'development'] }), [{ project: 'p', environment: 'production' }, { project: 'p', environment: 'development' }]);
  t.same(placesOf({ project: 'p' }), [], 'metadata reaches nothing');
  t.same(placesOf({ places: [{ project: 'a', environment: 'production' }] }), [{ project: 'a', environment: 'production' }]);
  t.same(placesOf({}), []);
});

t.test('isDirectChange: changes only, not reads, project settings, reviews or dry runs', async (t) => {
  t.ok(isDirectChange(route('POST', 'UPDATE_FEATURE_ENVIRONMENT')));
  t.ok(isDirectChange(route('PATCH', 'UPDATE_FEATURE_STRATEGY')));
  t.notOk(isDirectChange(route('GET', 'READ')));
  t.notOk(isDirectChange(route('POST', 'READ')), 'a POST that reads (an export, an event search)');
  t.notOk(isDirectChange(route('PUT', 'UPDATE_PROJECT')), "the project's settings, its change request rules included");
  t.notOk(isDirectChange(route('PUT', 'APPROVE_CHANGE_REQUEST')));
  t.notOk(isDirectChange(route('POST', 'UPDATE_FEATURE', { directChange: false })), 'a dry run');
});

t.test('refuseDirectChange: a 403 naming the rule where change requests are on, unless the caller may skip; the caller is asked only then', async (t) => {
  const s = fixtureState();
  const on = route('POST', 'UPDATE_FEATURE_ENVIRONMENT');
  t.same(protectedPlaces(s, { project: 'default', environment: 'production' }), [{ project: 'default', environment: 'production' }]);
  t.throws(() => refuseDirectChange(s, on, { project: 'default', environment: 'production' }, as(editor)), {
    name: 'NoAccessError', message: /^You need permission=SKIP_CHANGE_REQUEST to perform this action on environment=production in project=default: change requests are required in production of project default \(2 approvals\)/,
  });
  t.throws(() => refuseDirectChange(s, on, { project: 'default', reaches: ['development', 'production'] }, as(editor)), { name: 'NoAccessError' }, 'reaching production from no environment');
  t.throws(() => refuseDirectChange(s, on, { places: [{ project: 'other', environment: 'production' }] }, as(editor)), { name: 'NoAccessError' }, "a shared segment used in other's production");
  let asked = 0;
  const counted = () => (asked++, as(editor)());
  refuseDirectChange(s, on, { project: 'default', environment: 'development' }, counted);
  refuseDirectChange(s, on, { project: 'web', environment: 'production' }, counted);
  refuseDirectChange(s, route('GET', 'READ'), { project: 'default', environment: 'production' }, counted);
  t.equal(asked, 0, 'development, an unprotected project and a read pass without asking who calls');
  t.doesNotThrow(() => refuseDirectChange(s, on, { project: 'default', environment: 'production' }, as({ kind: 'person', role: 'Admin', projects: [], environments: null })), 'an Admin skips');
  t.doesNotThrow(() => refuseDirectChange(s, on, { project: 'default', environment: 'production' }, as({ kind: 'token', projects: ['default'], environment: 'production' })), 'a token within its limits skips');
});
