// Constraint normalization: Unleash's operator families and their value rules (unleash-behavior.md §10).
import t, { type Test } from 'tap';
import {
  DATE_OPERATORS, importedConstraint, isCidrOrIp, normalizeConstraint, normalizeConstraints, NUM_OPERATORS, OPERATORS, SEMVER_OPERATORS, STRING_OPERATORS, type ConstraintInput,
} from '../../../src/concepts/constraints/constraints.js';
import { ValidationError } from '../../../src/core/errors.js';
import { deepFreeze } from '../../core/state/fixture.js';

function rejects(t: Test, c: ConstraintInput, path: string, what: string) {
  try {
    normalizeConstraint(c, 'constraints[0]');
    t.fail(`${what}: expected a ValidationError`);
  } catch (err) {
    t.type(err, ValidationError, what);
    t.equal((err as ValidationError).details?.[0]?.path, path, `${what}: names ${path}`);
  }
}

t.test('the operator set is Unleash\'s, REGEX and IN_CIDR included', async (t) => {
  t.same([...OPERATORS].sort(), [
    'DATE_AFTER', 'DATE_BEFORE', 'IN', 'IN_CIDR', 'NOT_IN', 'NUM_EQ', 'NUM_GT', 'NUM_GTE', 'NUM_LT', 'NUM_LTE', 'REGEX',
    'SEMVER_EQ', 'SEMVER_GT', 'SEMVER_GTE', 'SEMVER_LT', 'SEMVER_LTE', 'STR_CONTAINS', 'STR_ENDS_WITH', 'STR_STARTS_WITH',
  ]);
});

t.test('an unknown operator is refused even without the schema in front', async (t) => {
  rejects(t, { contextName: 'x', operator: 'LIKE', values: ['a'] }, 'constraints[0].operator', 'LIKE');
  rejects(t, { contextName: 'x', operator: 'in', values: ['a'] }, 'constraints[0].operator', 'lower-case in');
});

t.test('string operators need at least one value and keep the list; flags default to false', async (t) => {
  for (const op of STRING_OPERATORS) {
    const c = normalizeConstraint({ contextName: 'userId', operator: op, values: ['a', 'b'] }, 'c');
    t.same(c, { contextName: 'userId', operator: op, values: ['a', 'b'], caseInsensitive: false, inverted: false }, op);
    rejects(t, { contextName: 'userId', operator: op, values: [] }, 'constraints[0].values', `${op} with no values`);
    rejects(t, { contextName: 'userId', operator: op }, 'constraints[0].values', `${op} without values`);
  }
  const inv = normalizeConstraint({ contextName: 'u', operator: 'NOT_IN', values: ['x'], inverted: true, caseInsensitive: true }, 'c');
  t.equal(inv.inverted, true);
  t.equal(inv.caseInsensitive, true);
});

t.test('NUM operators need a numeric value', async (t) => {
  for (const op of NUM_OPERATORS) {
    const c = normalizeConstraint({ contextName: 'age', operator: op, value: '18.5' }, 'c');
    t.equal(c.value, '18.5', op);
    t.same(c.values, [], `${op}: single-value operators carry no values list`);
    rejects(t, { contextName: 'age', operator: op, value: 'eighteen' }, 'constraints[0].value', `${op} with a word`);
    rejects(t, { contextName: 'age', operator: op, value: ' ' }, 'constraints[0].value', `${op} with a blank`);
    rejects(t, { contextName: 'age', operator: op, value: '' }, 'constraints[0].value', `${op} with an empty value`);
    rejects(t, { contextName: 'age', operator: op }, 'constraints[0].value', `${op} without a value`);
    rejects(t, { contextName: 'age', operator: op, value: 'Infinity' }, 'constraints[0].value', `${op} with Infinity`);
  }
});

t.test('a single entry of values stands in for value (older clients send it that way)', async (t) => {
  const c = normalizeConstraint({ contextName: 'age', operator: 'NUM_GT', values: ['3'] }, 'c');
  t.equal(c.value, '3');
  rejects(t, { contextName: 'age', operator: 'NUM_GT', values: ['3', '4'] }, 'constraints[0].value', 'two values and no value');
});

t.test('DATE operators need an RFC 3339 date', async (t) => {
  for (const op of DATE_OPERATORS) {
    t.equal(normalizeConstraint({ contextName: 'currentTime', operator: op, value: '2026-05-01T10:00:00.000Z' }, 'c').value, '2026-05-01T10:00:00.000Z', op);
    t.ok(normalizeConstraint({ contextName: 'currentTime', operator: op, value: '2026-05-01T10:00:00+02:00' }, 'c'), `${op} with an offset`);
    rejects(t, { contextName: 'currentTime', operator: op, value: 'tomorrow' }, 'constraints[0].value', `${op} with a word`);
    rejects(t, { contextName: 'currentTime', operator: op, value: '2026-13-45T00:00:00Z' }, 'constraints[0].value', `${op} with month 13`);
    rejects(t, { contextName: 'currentTime', operator: op, value: '1700000000' }, 'constraints[0].value', `${op} with epoch seconds`);
  }
});

t.test('SEMVER operators need a semantic version', async (t) => {
  for (const op of SEMVER_OPERATORS) {
    t.ok(normalizeConstraint({ contextName: 'version', operator: op, value: '1.2.3' }, 'c'), `${op} 1.2.3`);
    t.ok(normalizeConstraint({ contextName: 'version', operator: op, value: '1.2.3-beta.1+build.5' }, 'c'), `${op} with pre-release and build`);
    for (const bad of ['1.2', 'v1.2.3', '01.2.3', '1.2.3-', 'latest']) {
      rejects(t, { contextName: 'version', operator: op, value: bad }, 'constraints[0].value', `${op} ${bad}`);
    }
  }
});

t.test('REGEX needs a valid pattern and cannot be inverted', async (t) => {
  t.equal(normalizeConstraint({ contextName: 'email', operator: 'REGEX', value: '^.+@example\\.com$' }, 'c').value, '^.+@example\\.com$');
  rejects(t, { contextName: 'email', operator: 'REGEX', value: '(unclosed' }, 'constraints[0].value', 'broken pattern');
  rejects(t, { contextName: 'email', operator: 'REGEX', value: '^a', inverted: true }, 'constraints[0].inverted', 'inverted REGEX');
  t.equal(normalizeConstraint({ contextName: 'email', operator: 'REGEX', value: '^a', inverted: false }, 'c').inverted, false);
});

t.test('normalizeConstraints names the failing item by index and does not touch its input', async (t) => {
  const input = deepFreeze([
    { contextName: 'a', operator: 'IN', values: ['1'] },
    { contextName: 'b', operator: 'NUM_EQ', value: 'x' },
  ]);
  try {
    normalizeConstraints(input, 'constraints');
    t.fail('expected a ValidationError');
  } catch (err) {
    t.equal((err as ValidationError).details?.[0]?.path, 'constraints[1].value');
  }
  const ok = normalizeConstraints([input[0]], 'constraints');
  t.not(ok[0].values, input[0].values, 'values is copied, not shared');
  t.same(normalizeConstraints(undefined, 'constraints'), []);
});

t.test('IN_CIDR takes IPv4 and IPv6 addresses and CIDR ranges, and nothing else', async (t) => {
  for (const good of ['10.0.0.0/8', '192.168.1.7', '0.0.0.0/0', '2001:db8::/32', '::1', '::/0', '10.1.2.3/32']) t.ok(isCidrOrIp(good), good);
  for (const bad of ['127.invalid', '10.0.0.0/33', '::/129', '10.0.0.0/', '/8', '10.0.0.0/8/8', '10.0.0.0/-1', '10.0.0.0/ 8', 'bad::cidr', '']) t.notOk(isCidrOrIp(bad), bad);
});

t.test('an imported constraint is kept as given, whatever its operator or values', async (t) => {
  t.same(importedConstraint({ contextName: 'x', operator: 'NOT_A_VALID_OPERATOR', value: 'v' }), { contextName: 'x', operator: 'NOT_A_VALID_OPERATOR', values: [], caseInsensitive: false, inverted: false, value: 'v' });
  t.same(importedConstraint({ contextName: 'x', operator: 'IN', values: [], inverted: true }), { contextName: 'x', operator: 'IN', values: [], caseInsensitive: false, inverted: true });
});
