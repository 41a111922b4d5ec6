// Environment variant commands as pure functions.
import t from 'tap';
import { setEnvironmentVariants } from '../../../src/concepts/variants/logic.js';
import { runFailing, runPure } from '../../core/engine/pure.js';

t.test('setEnvironmentVariants: normalized once, put in each environment, one event each', async (t) => {
  const { change, after } = runPure(t, setEnvironmentVariants('default', 'alpha', ['development', 'production'], [{ name: 'b' }, { name: 'a' }]));
  const expected = [
    { name: 'a', weight: 500, weightType: 'variable', stickiness: 'default', overrides: [] },
    { name: 'b', weight: 500, weightType: 'variable', stickiness: 'default', overrides: [] },
  ];
  t.same(after.featureEnvs.get('alpha')!.get('development')!.variants, expected);
  t.same(after.featureEnvs.get('alpha')!.get('production')!.variants, expected);
  t.equal(after.featureEnvs.get('alpha')!.get('development')!.enabled, true, 'the rest of the configuration is kept');
  t.same(change.events.map((e) => [e.type, e.environment]), [
    ['feature-environment-variants-updated', 'development'], ['feature-environment-variants-updated', 'production'],
  ]);
  t.same(change.events[0].preData, { variants: [] });
});

t.test('setEnvironmentVariants: any unknown environment, flag or bad weight fails the whole change', async (t) => {
  runFailing(t, setEnvironmentVariants('default', 'alpha', ['development', 'staging'], [{ name: 'a' }]), 'NotFoundError');
  runFailing(t, setEnvironmentVariants('default', 'beta', ['production'], [{ name: 'a' }]), 'NotFoundError');
  runFailing(t, setEnvironmentVariants('default', 'gone', ['development'], [{ name: 'a' }]), 'NotFoundError');
  runFailing(t, setEnvironmentVariants('other', 'alpha', ['development'], [{ name: 'a' }]), 'NotFoundError');
  runFailing(t, setEnvironmentVariants('default', 'alpha', ['development'], [{ name: 'a', weightType: 'fix', weight: 10 }]), 'ValidationError');
});
