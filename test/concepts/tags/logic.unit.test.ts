// Tag commands as pure functions, including the cascades of deleting tags and tag types.
import t from 'tap';
import { tagKey } from '../../../src/core/state/state.js';
import { createTag, createTagType, deleteTag, deleteTagType, tagFeature, untagFeature, updateFeatureTags, updateTagType } from '../../../src/concepts/tags/logic.js';
import { runFailing, runPure } from '../../core/engine/pure.js';

t.test('tag types: create, update, delete with cascade to tags and flags', async (t) => {
  t.same(runPure(t, createTagType({ name: 'area' })).after.tagTypes.get('area'), { name: 'area', description: '', icon: null });
  runFailing(t, createTagType({ name: 'team' }), 'NameExistsError');
  const upd = runPure(t, updateTagType('team', { icon: 'i' }));
  t.same(upd.after.tagTypes.get('team'), { name: 'team', description: 'owning team', icon: 'i' });
  runFailing(t, updateTagType('nope', {}), 'NotFoundError');
  const { change, after } = runPure(t, deleteTagType('team'));
  t.notOk(after.tagTypes.has('team'));
  t.notOk(after.tags.has('team:core'));
  t.same(after.featureTags.get('alpha'), [{ type: 'simple', value: 'x' }]);
  t.same(change.events.map((e) => e.type), ['tag-type-deleted']);
});

t.test('tags: value trimmed and 2–50 long, type must exist; delete untags every flag', async (t) => {
  t.ok(runPure(t, createTag({ type: 'team', value: ' ops ' })).after.tags.has('team:ops'));
  runFailing(t, createTag({ type: 'team', value: 'core' }), 'NameExistsError');
  runFailing(t, createTag({ type: 'nope', value: 'core' }), 'ValidationError');
  runFailing(t, createTag({ type: 'team', value: ' a ' }), 'ValidationError');
  const { change, after } = runPure(t, deleteTag('simple', 'x'));
  t.notOk(after.tags.has('simple:x'));
  t.same(after.featureTags.get('alpha'), [{ type: 'team', value: 'core' }]);
  t.notOk(after.featureTags.has('beta'));
  t.same(change.events.map((e) => e.type), ['tag-deleted']);
  runFailing(t, deleteTag('simple', 'nope'), 'NotFoundError');
});

t.test('flag tags: tagging creates a missing tag; re-tagging is a no-op; untag needs the tag', async (t) => {
  const { change, after } = runPure(t, tagFeature('beta', { type: 'team', value: 'new' }));
  t.same(change.events.map((e) => e.type), ['tag-created', 'feature-tagged']);
  t.ok(after.featureTags.get('beta')!.some((x) => tagKey(x) === 'team:new'));
  const again = runPure(t, tagFeature('alpha', { type: 'team', value: 'core' }));
  t.same(again.change, { ops: [], events: [], result: { type: 'team', value: 'core' } });
  t.same(runPure(t, tagFeature('gone', { type: 'team', value: 'core' })).change.events.map((e) => e.type), ['feature-tagged'], 'archived flags can be tagged');
  runFailing(t, tagFeature('nope', { type: 'team', value: 'core' }), 'NotFoundError');
  const un = runPure(t, untagFeature('alpha', 'team', 'core'));
  t.same(un.after.featureTags.get('alpha'), [{ type: 'simple', value: 'x' }]);
  t.match(un.change.events, [{ type: 'feature-untagged', featureName: 'alpha', preData: { type: 'team', value: 'core' } }]);
  runFailing(t, untagFeature('beta', 'team', 'core'), 'NotFoundError');
});

t.test('updateFeatureTags: (current ∪ added) − removed, events only for real changes', async (t) => {
  const { change, after } = runPure(t, updateFeatureTags('alpha', [{ type: 'team', value: 'core' }, { type: 'team', value: 'edge' }], [{ type: 'simple', value: 'x' }]));
  t.same(after.featureTags.get('alpha'), [{ type: 'team', value: 'core' }, { type: 'team', value: 'edge' }]);
  t.same(change.events.map((e) => e.type), ['tag-created', 'feature-tagged', 'feature-untagged']);
  t.same(change.result, [{ type: 'team', value: 'core' }, { type: 'team', value: 'edge' }]);
  t.same(runPure(t, updateFeatureTags('alpha', [], [{ type: 'team', value: 'none' }])).change.ops, [], 'removing what is not there changes nothing');
  runFailing(t, updateFeatureTags('alpha', [{ type: 'team', value: 'edge' }], [{ type: 'team', value: 'edge' }]), 'ValidationError');
  runFailing(t, updateFeatureTags('nope', [], []), 'NotFoundError');
});
