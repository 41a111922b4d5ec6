// Commands over several flags as pure functions: one change for all the flags or an error before
// anything is built; a tag new to the server made once; a parent archived only with its children;
// a favourite on the person's record, twice being nothing to do.
import t from 'tap';
import { archiveMany, setEnvironmentEnabledMany, setFavorite, updateTagsMany } from '../../../src/concepts/features/bulk.js';
import { runFailing, runPure } from '../../core/engine/pure.js';

t.test('setEnvironmentEnabledMany: each flag switched, once each; an unknown flag fails the whole', async (t) => {
  const { change, after } = runPure(t, setEnvironmentEnabledMany('default', ['alpha', 'beta', 'beta'], 'development', true));
  t.same(change.events.filter((e) => e.type === 'feature-environment-enabled').map((e) => e.featureName), ['beta'], 'alpha was on already');
  t.equal(after.featureEnvs.get('beta')!.get('development')!.enabled, true);
  runFailing(t, setEnvironmentEnabledMany('default', ['alpha', 'nope'], 'development', true), 'NotFoundError');
  runFailing(t, setEnvironmentEnabledMany('default', ['gone'], 'development', true), 'NotFoundError');
  runFailing(t, setEnvironmentEnabledMany('other', ['alpha'], 'development', true), 'NotFoundError');
});

t.test('archiveMany: a parent goes with its children, not without', async (t) => {
  runFailing(t, archiveMany('default', ['alpha']), 'NoAccessError');
  const { change, after } = runPure(t, archiveMany('default', ['alpha', 'beta']));
  t.same(change.events.map((e) => [e.type, e.featureName]), [['feature-archived', 'alpha'], ['feature-archived', 'beta']]);
  t.ok(after.features.get('alpha')!.archived && after.features.get('beta')!.archived);
  t.same(after.features.get('beta')!.dependencies.map((d) => d.feature), ['alpha'], 'its dependency kept, as a single archive keeps it');
});

t.test('updateTagsMany: a tag new to the server put and recorded once', async (t) => {
  const { change, after } = runPure(t, updateTagsMany('default', ['alpha', 'beta'], [{ type: 'simple', value: 'brand-new' }], [{ type: 'simple', value: 'x' }]));
  t.equal(change.ops.filter((o) => o.o === 'tag.put').length, 1);
  t.equal(change.events.filter((e) => e.type === 'tag-created').length, 1);
  t.same(change.events.filter((e) => e.type === 'feature-tagged').map((e) => e.featureName), ['alpha', 'beta']);
  t.same(change.events.filter((e) => e.type === 'feature-untagged').map((e) => e.featureName), ['alpha', 'beta']);
  t.same(after.featureTags.get('beta')!.map((x) => `${x.type}:${x.value}`), ['simple:brand-new']);
  runFailing(t, updateTagsMany('default', ['alpha', 'nope'], [{ type: 'simple', value: 'y1' }], []), 'NotFoundError');
});

t.test('setFavorite: on the person, once; unknown flag or person fails', async (t) => {
  const { change, after } = runPure(t, setFavorite(1, 'default', 'alpha', true));
  t.same(change.events.map((e) => e.type), ['feature-favorited']);
  t.same(after.users.get(1)!.favorites, ['alpha']);
  t.same(runPure(t, setFavorite(1, 'default', 'alpha', false)).change.ops, [], 'unstarring what is not starred changes nothing');
  runFailing(t, setFavorite(1, 'default', 'gone', true), 'NotFoundError');
  runFailing(t, setFavorite(99, 'default', 'alpha', true), 'NotFoundError');
});
