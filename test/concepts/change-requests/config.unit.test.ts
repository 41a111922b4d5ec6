// Change requests' configuration as pure functions: the lookup (off and one approval where never
// set), the command behind the PUT (bounds, the count kept, an event with before and after), and
// the rules a new project starts with from the server's default.
import t from 'tap';
import { changeRequestConfig, changeRequestRule, defaultRules, protectedEnvironments, setChangeRequestRule } from '../../../src/concepts/change-requests/config.js';
import { createProject } from '../../../src/concepts/projects/logic.js';
import { runFailing, runPure } from '../../core/engine/pure.js';
import { fixtureState } from '../../core/state/fixture.js';

t.test('changeRequestRule: what was set, else off with one approval', async (t) => {
  const s = fixtureState();
  t.same(changeRequestRule(s, 'default', 'production'), { enabled: true, requiredApprovals: 2 });
  t.same(changeRequestRule(s, 'default', 'development'), { enabled: false, requiredApprovals: 1 });
  t.same(changeRequestRule(s, 'nope', 'production'), { enabled: false, requiredApprovals: 1 });
  t.same(protectedEnvironments(s, 'default'), ['production']);
  t.same(changeRequestConfig(s, 'other').map((c) => [c.environment, c.changeRequestEnabled, c.requiredApprovals]), [['development', false, 1], ['production', true, 1]]);
});

t.test('setChangeRequestRule: 1 to 10; 0 only while turning off; a count left out or 0 is kept', async (t) => {
  const { change, after } = runPure(t, setChangeRequestRule('default', 'development', { changeRequestsEnabled: true, requiredApprovals: 10 }));
  t.same(changeRequestRule(after, 'default', 'development'), { enabled: true, requiredApprovals: 10 });
  t.match(change.events, [{ type: 'change-request-configuration-updated', project: 'default', environment: 'development', data: { changeRequestsEnabled: true, requiredApprovals: 10 }, preData: { changeRequestsEnabled: false, requiredApprovals: 1 } }]);
  const off = runPure(t, setChangeRequestRule('default', 'production', { changeRequestsEnabled: false, requiredApprovals: 0 }));
  t.same(changeRequestRule(off.after, 'default', 'production'), { enabled: false, requiredApprovals: 2 }, 'off with 0: the count stays');
  const kept = runPure(t, setChangeRequestRule('default', 'production', { changeRequestsEnabled: true }));
  t.same(changeRequestRule(kept.after, 'default', 'production'), { enabled: true, requiredApprovals: 2 });
  for (const n of [0, 11, 1.5, -1]) runFailing(t, setChangeRequestRule('default', 'production', { changeRequestsEnabled: true, requiredApprovals: n }), 'ValidationError');
  runFailing(t, setChangeRequestRule('default', 'production', { changeRequestsEnabled: false, requiredApprovals: 11 }), 'ValidationError');
  runFailing(t, setChangeRequestRule('nope', 'production', { changeRequestsEnabled: true }), 'NotFoundError');
  runFailing(t, setChangeRequestRule('default', 'nope', { changeRequestsEnabled: true }), 'NotFoundError');
});

t.test('a new project starts with the default rules: by name or by type, none by default', async (t) => {
  const s = fixtureState();
  t.same(defaultRules(s, 'web', { defaultEnvironments: [], defaultApprovals: 1 }), { ops: [], events: [] }, 'nothing by default');
  t.same(defaultRules(s, 'web', { defaultEnvironments: ['type:production'], defaultApprovals: 3 }).ops,
    [{ o: 'changeRule.put', rule: { project: 'web', environment: 'production', enabled: true, requiredApprovals: 3 } }]);
  t.same(defaultRules(s, 'web', { defaultEnvironments: ['development', 'type:nothing-of-this-type'], defaultApprovals: 1 }).ops.map((o: any) => o.rule.environment), ['development']);
  const { change, after } = runPure(t, createProject({ id: 'web', name: 'Web' }, { defaultEnvironments: ['production'], defaultApprovals: 2 }));
  t.same(changeRequestRule(after, 'web', 'production'), { enabled: true, requiredApprovals: 2 });
  t.same(change.events.map((e) => e.type), ['project-created', 'change-request-configuration-updated']);
});
