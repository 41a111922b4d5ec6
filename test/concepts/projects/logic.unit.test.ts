// Project commands as pure functions: deterministic, never touching their (frozen) input.
import t from 'tap';
import { createProject, deleteProject, updateProject } from '../../../src/concepts/projects/logic.js';
import { runFailing, runPure } from '../../core/engine/pure.js';
import { copiesOf } from '../../core/state/fixture.js';

const NOW = '2026-02-02T02:02:02.000Z';

t.test('createProject: defaults for mode and stickiness, createdAt from the clock, project-created', async (t) => {
  const { change, after } = runPure(t, createProject({ id: 'web', name: 'Web' }));
  t.same(after.projects.get('web'), { id: 'web', name: 'Web', description: null, mode: 'open', defaultStickiness: 'default', createdAt: NOW, updatedAt: null });
  t.same(change.events.map((e) => [e.type, e.project]), [['project-created', 'web']]);
  runFailing(t, createProject({ id: 'other', name: 'x' }), 'NameExistsError');
  runFailing(t, createProject({ id: 'a/b', name: 'x' }), 'ValidationError');
});

t.test('updateProject: keeps left-out fields, stamps updatedAt, data and preData', async (t) => {
  const { change, after } = runPure(t, updateProject('other', { name: 'Renamed', description: 'now described' }));
  t.same(after.projects.get('other'), { id: 'other', name: 'Renamed', description: 'now described', mode: 'open', defaultStickiness: 'userId', createdAt: '2026-01-01T00:00:00.000Z', updatedAt: NOW });
  t.match(change.events, [{ type: 'project-updated', data: { name: 'Renamed' }, preData: { name: 'Other' } }]);
  runFailing(t, updateProject('nope', { name: 'x' }), 'NotFoundError');
  runFailing(t, updateProject('other', { id: 'else', name: 'x' }), 'ValidationError');
});

t.test('deleteProject: refuses default and projects with flags; takes its segments along', async (t) => {
  runFailing(t, deleteProject('default'), 'NoAccessError');
  runFailing(t, deleteProject('nope'), 'NotFoundError');
  const withSegment = runPure(t, (s, env) => {
    const seg = { id: 9, name: 'other-seg', description: null, project: 'other', constraints: [], createdAt: env.now, createdBy: 'x' };
    return { ops: [{ o: 'segment.put', segment: seg }], events: [], result: null };
  }).after;
  const { change, after } = runPure(t, deleteProject('other'), copiesOf(withSegment));
  t.same(change.events.map((e) => e.type), ['segment-deleted', 'project-deleted']);
  t.notOk(after.projects.has('other'));
  t.notOk(after.segments.has(9));
  t.ok(after.segments.has(1), 'global segments stay');
  const flagInOther = runPure(t, (s) => ({
    ops: [{ o: 'feature.put', feature: { ...s.features.get('gone')!, project: 'other' } }], events: [], result: null,
  })).after;
  runFailing(t, deleteProject('other'), 'NoAccessError', copiesOf(flagInOther));
});
