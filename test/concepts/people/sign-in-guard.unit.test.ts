// The sign-in limits as a unit: addresses, people and made-up names kept apart, and bounded.
import t from 'tap';
import { TooManyRequestsError } from '../../../src/core/errors.js';
import { SignInGuard } from '../../../src/concepts/people/sign-in-guard.js';

const refused = (f: () => void) => {
  try {
    f();
    return false;
  } catch (err) {
    return err instanceof TooManyRequestsError;
  }
};

t.test("a person's lockout outlives any number of made-up names and addresses; those stay bounded", async (t) => {
  const now = 0;
  const guard = new SignInGuard({ perAddress: 10, perAccount: 5, entries: 100 }, () => now);
  for (let i = 0; i < 5; i++) guard.attempt(`198.51.100.${i}`, { person: 7 });
  t.ok(refused(() => guard.attempt('203.0.113.1', { person: 7 })), 'locked after five failures');
  for (let i = 0; i < 10_050; i++) guard.attempt(`10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`, { name: `junk-${i}@example.com` });
  t.ok(refused(() => guard.attempt('203.0.113.2', { person: 7 })), 'still locked after 10,050 attempts at made-up names from as many addresses');
  t.same(guard.sizes(), { addresses: 100, people: 1, names: 100 }, 'addresses and names within their bound, the person kept');
  guard.succeeded(7);
  t.notOk(refused(() => guard.attempt('203.0.113.3', { person: 7 })), 'a success forgives');
});

t.test('a name that is nobody\'s is limited like a person, without regard to case', async (t) => {
  const guard = new SignInGuard({ perAddress: 100, perAccount: 5, entries: 100 }, () => 0);
  for (let i = 0; i < 5; i++) guard.attempt('192.0.2.1', { name: i % 2 ? 'Nobody@Example.com' : ' nobody@example.com' });
  t.ok(refused(() => guard.attempt('192.0.2.1', { name: 'NOBODY@example.com' })));
  t.notOk(refused(() => guard.attempt('192.0.2.1', { person: 1 })), 'another account is not affected');
});
