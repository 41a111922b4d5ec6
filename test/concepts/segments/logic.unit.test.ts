// Segment commands as pure functions.
import t from 'tap';
import { createSegment, deleteSegment, updateSegment } from '../../../src/concepts/segments/logic.js';
import { runFailing, runPure } from '../../core/engine/pure.js';
import { copiesOf } from '../../core/state/fixture.js';

const c = (values: string[]) => ({ contextName: 'userId', operator: 'IN', values });

t.test('createSegment: id from the counter, createdBy the actor, constraints normalized', async (t) => {
  const { change, after } = runPure(t, createSegment({ name: 'new', project: 'other', constraints: [c(['1'])] }));
  t.same(after.segments.get(2), {
    id: 2, name: 'new', description: null, project: 'other', createdAt: '2026-02-02T02:02:02.000Z', createdBy: 'tester',
    constraints: [{ contextName: 'userId', operator: 'IN', values: ['1'], caseInsensitive: false, inverted: false }],
  });
  t.equal(after.nextSegmentId, 3);
  t.match(change.events, [{ type: 'segment-created', project: 'other', data: { id: 2 } }]);
  runFailing(t, createSegment({ name: 'seg', constraints: [] }), 'NameExistsError');
  runFailing(t, createSegment({ name: 'x', project: 'nope', constraints: [] }), 'ValidationError');
  runFailing(t, createSegment({ name: 'x', constraints: [{ contextName: 'n', operator: 'NUM_GT', value: 'ten' }] }), 'ValidationError');
});

t.test('updateSegment: replaces; a used segment moves only to its users\' project', async (t) => {
  const { change, after } = runPure(t, updateSegment('1', { name: 'renamed', constraints: [c(['9'])] }));
  t.equal(after.segments.get(1)!.name, 'renamed');
  t.match(change.events, [{ type: 'segment-updated', data: { name: 'renamed' }, preData: { name: 'seg' } }]);
  runFailing(t, updateSegment('1', { name: 'seg', project: 'other', constraints: [] }), 'ValidationError');
  t.equal(runPure(t, updateSegment('1', { name: 'seg', project: 'default', constraints: [] })).after.segments.get(1)!.project, 'default');
  runFailing(t, updateSegment('7', { name: 'x', constraints: [] }), 'NotFoundError');
  runFailing(t, updateSegment('1x', { name: 'x', constraints: [] }), 'NotFoundError');
});

t.test('deleteSegment: refused while a strategy uses it', async (t) => {
  runFailing(t, deleteSegment('1'), 'NoAccessError');
  const unused = runPure(t, (s) => ({ ops: [{ o: 'strategy.put', strategy: { ...s.strategies.get('s2')!, segments: [] } }], events: [], result: null })).after;
  const { change, after } = runPure(t, deleteSegment('1'), copiesOf(unused));
  t.notOk(after.segments.has(1));
  t.match(change.events, [{ type: 'segment-deleted', preData: { id: 1 } }]);
});
