// The pure core of people: commands against a frozen state (any mutation throws), their ops and
// events, and what a single sign-on identity resolves to.
import t from 'tap';
import { resolveEvents, type Command } from '../../../src/core/engine/command.js';
import { applyRecord } from '../../../src/core/state/apply.js';
import { loadDump } from '../../../src/core/state/dump.js';
import { storeEvent } from '../../../src/core/state/events/stored.js';
import type { State } from '../../../src/core/state/state.js';
import {
  accessWithout, createPasswordLink, createPerson, deletePerson, openSession, recordPeopleSeen, ssoPerson, updatePerson, MAX_SESSIONS_PER_PERSON, type SsoIdentity,
} from '../../../src/concepts/people/logic.js';
import { roleFromClaim } from '../../../src/concepts/people/oidc.js';
import { deepFreeze, fixedEnv, fixtureState, snapshot, user } from '../../core/state/fixture.js';

const NOW = '2026-02-02T02:02:02.000Z';

function run<R>(s: State, cmd: Command<R>, now = NOW): { result: R; ops: string[]; events: { type: string; data: any; preData: any }[] } {
  const frozen = deepFreeze(loadDump(snapshot(s)));
  const change = cmd(frozen, fixedEnv(now));
  applyRecord(s, { lsn: 99, ops: structuredClone(change.ops), events: resolveEvents(s, fixedEnv(now), change.events).map(storeEvent) }, false);
  return { result: change.result, ops: change.ops.map((o) => o.o), events: change.events as any };
}

t.test('creating and changing people: unique logins without regard to case, roles checked, never a hash in an event', async (t) => {
  const s = fixtureState();
  const made = run(s, createPerson({ email: 'Ann@Example.com', name: 'Ann', rootRole: 2, projects: [{ project: 'other', role: 'member' }] }, '$scrypt$ln=10,r=8,p=3$c2FsdA$a2V5'));
  t.same(made.ops, ['user.put']);
  t.same({ role: made.result.rootRole, projects: made.result.projects }, { role: 'Editor', projects: [{ project: 'other', role: 'Member' }] });
  t.notOk(JSON.stringify(made.events).includes('scrypt'), 'the hash is in the op, not the event');
  t.throws(() => run(s, createPerson({ username: 'ann@example.COM', rootRole: 3 }, null)), /already signs in as/);
  t.throws(() => run(s, createPerson({ email: 'x@example.com', rootRole: 3, projects: [{ project: 'nope', role: 'Owner' }] }, null)), /project "nope" does not exist/);
  t.throws(() => run(s, createPerson({ email: 'x@example.com', rootRole: 3, environments: ['staging'] }, null)), /environment "staging" does not exist/);
  t.throws(() => run(s, createPerson({ name: 'No login', rootRole: 3 }, null)), /email or a username/);
  const unchanged = run(s, updatePerson(made.result.id, { name: 'Ann' }));
  t.same(unchanged.ops, [], 'a change that changes nothing writes nothing');
});

t.test('deactivating ends every session in the same change; the last active Admin stays', async (t) => {
  const s = fixtureState();
  run(s, updatePerson(1, { rootRole: 'Admin' }));
  const second = run(s, createPerson({ email: 'b@example.com', rootRole: 'Admin' }, null)).result;
  run(s, openSession(second.id, 'sess-b1', 'password', { maxAgeMs: 3600_000, idleMs: 600_000 }));
  run(s, openSession(second.id, 'sess-b2', 'oidc', { maxAgeMs: 3600_000, idleMs: 600_000 }));
  const off = run(s, updatePerson(second.id, { active: false }));
  t.same(off.ops.sort(), ['session.del', 'session.del', 'user.put']);
  t.same(off.events.map((e) => [e.type, e.preData.active, e.data.active]), [['user-updated', true, false]]);
  t.throws(() => run(s, updatePerson(1, { active: false })), /last active Admin/);
  t.throws(() => run(s, deletePerson(1)), /last active Admin/);
  const gone = run(s, deletePerson(second.id));
  t.same(gone.events.map((e) => e.type), ['user-deleted']);
});

t.test('a change of active, either way, ends the person\'s password links in the same change; other changes keep them', async (t) => {
  const s = fixtureState();
  const ed = run(s, createPerson({ email: 'ed@example.com', rootRole: 'Viewer' }, null)).result;
  run(s, createPasswordLink(ed.id, 'link-1', 'reset', 3600_000));
  t.same(run(s, updatePerson(ed.id, { name: 'Ed' })).ops, ['user.put'], 'a new name keeps the link');
  t.ok(s.passwordLinks.has('link-1'));
  t.same(run(s, updatePerson(ed.id, { active: false })).ops.sort(), ['passwordLink.del', 'user.put'], 'deactivation ends it');
  t.notOk(s.passwordLinks.has('link-1'));
  t.throws(() => run(s, createPasswordLink(ed.id, 'link-2', 'reset', 3600_000)), /deactivated/, 'no new link while deactivated');
  t.same(run(s, updatePerson(ed.id, { active: true })).ops, ['user.put'], 'reactivation finds none to bring back');
});

t.test('sessions: at most MAX_SESSIONS_PER_PERSON, ended ones forgotten, seenAt written only forward', async (t) => {
  const s = fixtureState();
  const limits = { maxAgeMs: 3600_000, idleMs: 600_000 };
  for (let i = 0; i < MAX_SESSIONS_PER_PERSON + 3; i++) run(s, openSession(1, `h${i}`, 'password', limits, null), new Date(Date.parse(NOW) + i * 1000).toISOString());
  const mine = [...s.sessions.values()].filter((x) => x.userId === 1);
  t.equal(mine.length, MAX_SESSIONS_PER_PERSON, 'the oldest were ended');
  t.notOk(s.sessions.has('h0'));
  const later = new Date(Date.parse(NOW) + 30 * 60_000).toISOString();
  const seen = run(s, recordPeopleSeen([{ hash: 'h22', at: later }], [], limits.idleMs), later);
  t.equal(seen.ops.filter((o) => o === 'session.del').length, MAX_SESSIONS_PER_PERSON - 1, 'every session idle for 10 minutes is forgotten');
  t.equal(s.sessions.get('h22')?.seenAt, later, 'the one used is kept, its use written');
  t.same(run(s, recordPeopleSeen([{ hash: 'h22', at: NOW }], [], limits.idleMs), later).ops, [], 'an older use writes nothing');
});

t.test('a deleted project or environment takes people\'s roles and limits there along', async (t) => {
  const s = fixtureState();
  run(s, updatePerson(1, { projects: [{ project: 'other', role: 'Owner' }], environments: ['development', 'production'] }));
  const gone = accessWithout(s, { projects: ['other'], environments: ['production'] }, NOW);
  const put = gone.ops.find((o) => o.o === 'user.put') as { user: { projects: unknown[]; environments: string[] } };
  t.same([put.user.projects, put.user.environments], [[], ['development']]);
  t.same(gone.events.filter((e) => e.type === 'user-updated').length, 1);
});

t.test('single sign-on: bound identity, vouched email, or a new person; a deactivated one refused', async (t) => {
  const s = fixtureState();
  const id = (over: Partial<SsoIdentity>): SsoIdentity => ({ issuer: 'https://idp', subject: 'sub-1', email: 'person1@example.com', username: null, emailVerified: true, name: 'P', ...over });
  const opts = { autoCreate: false, defaultRole: 'Viewer' as const };
  t.throws(() => run(s, ssoPerson(id({ emailVerified: false }), null, opts)), /no Fanion account/, 'an email the provider does not vouch for binds nothing');
  const bound = run(s, ssoPerson(id({}), null, opts));
  t.same([bound.result.id, bound.result.sso], [1, { issuer: 'https://idp', subject: 'sub-1' }], 'a vouched email binds the existing person');
  t.same(run(s, ssoPerson(id({ email: 'changed@example.com' }), null, opts)).result.id, 1, 'then the subject finds them, whatever the email');
  t.same(run(s, ssoPerson(id({}), null, opts)).ops, [], 'a sign-in that changes nothing writes nothing');
  const promoted = run(s, ssoPerson(id({}), 'Admin', opts));
  t.same(promoted.events.map((e) => [e.type, e.data.rootRole]), [['user-updated', 1]], 'a role from the claim follows the provider');
  t.throws(() => run(s, ssoPerson(id({ subject: 'sub-2', email: 'new@example.com' }), null, opts)), /ask an admin/);
  const created = run(s, ssoPerson(id({ subject: 'sub-2', email: 'new@example.com' }), null, { autoCreate: true, defaultRole: 'Editor' }));
  t.same([created.events[0].type, created.result.rootRole, created.result.passwordHash], ['user-created', 'Editor', null]);
  run(s, updatePerson(created.result.id, { active: false }));
  t.throws(() => run(s, ssoPerson(id({ subject: 'sub-2', email: 'new@example.com' }), null, opts)), /deactivated/);
  s.users.set(7, user(7, { email: null, username: 'taken' }));
  t.throws(() => run(s, ssoPerson(id({ subject: 'sub-3', email: null, username: 'taken' }), null, { autoCreate: true, defaultRole: 'Viewer' })), /already signs in/);
});

t.test('roleFromClaim: the highest mapped group wins; without a map the claim names the role', async (t) => {
  const map: [string, 'Admin' | 'Editor' | 'Viewer'][] = [['admins', 'Admin'], ['devs', 'Editor']];
  t.equal(roleFromClaim(['staff', 'devs'], map), 'Editor');
  t.equal(roleFromClaim(['devs', 'admins'], map), 'Admin');
  t.equal(roleFromClaim(['staff'], map), null);
  t.equal(roleFromClaim('admins', map), 'Admin', 'a single value');
  t.equal(roleFromClaim('editor', []), 'Editor');
  t.equal(roleFromClaim([1, { x: 1 }], []), null, 'values that are not strings say nothing');
});
