// Unleash's variant weight rules, as normalizeVariants applies them (unleash-behavior.md §10).
import t, { type Test } from 'tap';
import { ValidationError } from '../../../src/core/errors.js';
import { normalizeVariants, TOTAL_WEIGHT, type VariantInput } from '../../../src/concepts/variants/weights.js';
import { deepFreeze } from '../../core/state/fixture.js';

const weights = (vs: { name: string; weight: number }[]) => Object.fromEntries(vs.map((v) => [v.name, v.weight]));

function rejects(t: Test, input: VariantInput[], field: RegExp, allowOverrides = false) {
  try {
    normalizeVariants(input, 'variants', allowOverrides);
    t.fail('expected a ValidationError');
  } catch (err) {
    t.type(err, ValidationError);
    t.match((err as ValidationError).details?.[0]?.path ?? '', field);
  }
}

t.test('variable variants share 1000 evenly', async (t) => {
  const out = normalizeVariants([{ name: 'a' }, { name: 'b' }], 'variants', false);
  t.same(weights(out), { a: 500, b: 500 });
  t.same(out.map((v) => v.weightType), ['variable', 'variable']);
});

t.test('the remainder goes +1 to the first variable variants in input order, then the list is sorted by name', async (t) => {
  const out = normalizeVariants([{ name: 'c' }, { name: 'a' }, { name: 'b' }], 'variants', false);
  t.same(out.map((v) => v.name), ['a', 'b', 'c']);
  // 1000 / 3 = 333 rest 1: "c" came first in the input, so it gets the +1.
  t.same(weights(out), { a: 333, b: 333, c: 334 });
  const seven = normalizeVariants(['g', 'f', 'e', 'd', 'c', 'b', 'a'].map((name) => ({ name })), 'variants', false);
  // 1000 / 7 = 142 rest 6: the first six in input order (g..b) get 143, "a" (last) gets 142.
  t.same(weights(seven), { a: 142, b: 143, c: 143, d: 143, e: 143, f: 143, g: 143 });
  t.equal(seven.reduce((s, v) => s + v.weight, 0), TOTAL_WEIGHT);
});

t.test('fix variants keep their weight; the rest of 1000 is split among variable ones', async (t) => {
  const out = normalizeVariants(
    [{ name: 'x', weight: 5 }, { name: 'fixed', weight: 200, weightType: 'fix' }, { name: 'y', weight: 999 }, { name: 'z', weightType: 'variable' }],
    'variants', false,
  );
  // (1000 - 200) / 3 = 266 rest 2 → x and y (first two variable ones in input order) get 267; input weights of variable ones are ignored.
  t.same(weights(out), { fixed: 200, x: 267, y: 267, z: 266 });
  t.same(out.map((v) => v.name), ['fixed', 'x', 'y', 'z']);
  t.equal(out.find((v) => v.name === 'fixed')!.weightType, 'fix');
});

t.test('fix weights may take all 1000, leaving 0 to the variable ones', async (t) => {
  const out = normalizeVariants([{ name: 'f', weight: 1000, weightType: 'fix' }, { name: 'v' }], 'variants', false);
  t.same(weights(out), { f: 1000, v: 0 });
});

t.test('no variable variant is a ValidationError', async (t) => {
  rejects(t, [{ name: 'f', weight: 500, weightType: 'fix' }, { name: 'g', weight: 500, weightType: 'fix' }], /^variants$/);
});

t.test('fix weights adding up to more than 1000 is a ValidationError', async (t) => {
  rejects(t, [{ name: 'f', weight: 600, weightType: 'fix' }, { name: 'g', weight: 401, weightType: 'fix' }, { name: 'v' }], /^variants$/);
});

t.test('a fix variant without a weight is a ValidationError', async (t) => {
  rejects(t, [{ name: 'f', weightType: 'fix' }, { name: 'v' }], /^variants$/);
});

t.test('names must be URL friendly and unique', async (t) => {
  rejects(t, [{ name: 'a b' }], /^variants\[0\]\.name$/);
  rejects(t, [{ name: 'a' }, { name: 'a' }], /^variants\[1\]\.name$/);
  rejects(t, [{ name: '' }], /^variants\[0\]\.name$/);
});

t.test('payloads: json must parse, number must be a number', async (t) => {
  rejects(t, [{ name: 'a', payload: { type: 'json', value: '{nope' } }], /payload\.value$/);
  rejects(t, [{ name: 'a', payload: { type: 'number', value: 'ten' } }], /payload\.value$/);
  rejects(t, [{ name: 'a', payload: { type: 'number', value: ' ' } }], /payload\.value$/);
  const ok = normalizeVariants([{ name: 'a', payload: { type: 'json', value: '{"k":1}' } }], 'variants', false);
  t.same(ok[0].payload, { type: 'json', value: '{"k":1}' });
});

t.test('overrides: refused on strategy variants, kept (and defaulted) on environment variants', async (t) => {
  rejects(t, [{ name: 'a', overrides: [{ contextName: 'userId', values: ['1'] }] }], /overrides$/, false);
  const env = normalizeVariants([{ name: 'a', overrides: [{ contextName: 'userId', values: ['1'] }] }, { name: 'b' }], 'variants', true);
  t.same(env.map((v) => v.overrides), [[{ contextName: 'userId', values: ['1'] }], []]);
  const strat = normalizeVariants([{ name: 'a' }], 'variants', false);
  t.notOk('overrides' in strat[0], 'strategy variants carry no overrides field');
});

t.test('stickiness defaults to "default"; an empty list stays empty', async (t) => {
  t.equal(normalizeVariants([{ name: 'a' }], 'variants', false)[0].stickiness, 'default');
  t.equal(normalizeVariants([{ name: 'a', stickiness: 'userId' }], 'variants', false)[0].stickiness, 'userId');
  t.same(normalizeVariants([], 'variants', false), []);
});

t.test('the input is not mutated and the output shares no objects with it', async (t) => {
  const input = deepFreeze([
    { name: 'b', payload: { type: 'string', value: 'x' }, overrides: [{ contextName: 'c', values: ['1'] }] },
    { name: 'a', weight: 100, weightType: 'fix' as const },
  ]);
  const out = normalizeVariants(input as VariantInput[], 'variants', true);
  t.same(out.map((v) => v.name), ['a', 'b']);
  t.not(out[1].payload, input[0].payload);
  t.not(out[1].overrides![0].values, input[0].overrides![0].values);
});
