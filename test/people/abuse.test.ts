// Hostile sign-ins against a real server: guessing from one address, guessing one account from
// many addresses, telling unknown accounts from wrong passwords by the answer or its time, and a
// flood of sign-ins aimed at the password hasher (and, through the thread pool, the disk).
import t from 'tap';
import { signInAs, STRONG, withSession } from '../helpers/people.js';
import { client, spawnServer } from '../helpers/server.js';

const AUTH = { AUTH_TYPE: 'api-token', UNLEASH_DEFAULT_ADMIN_PASSWORD: STRONG, TRUST_PROXY: 'true' };
const login = (base: string, username: string, password: string, from: string) =>
  client(base)('POST', '/auth/simple/login', { username, password }, { 'x-forwarded-for': from });

t.test('one address: SIGN_IN_LIMIT_PER_ADDRESS attempts a minute, then 429 with Retry-After, whatever the password', async (t) => {
  const srv = await spawnServer({ env: AUTH });
  t.teardown(() => srv.stop());
  const statuses: number[] = [];
  for (let i = 0; i < 10; i++) statuses.push((await login(srv.url, `guess-${i}@example.com`, 'wrong password here', '203.0.113.7')).status);
  t.same(statuses, Array(10).fill(401), 'ten attempts are answered');
  const started = Date.now();
  const limited = await login(srv.url, 'admin', STRONG, '203.0.113.7');
  t.equal(limited.status, 429, 'the eleventh is refused, even with the right password');
  t.equal(limited.json.name, 'TooManyRequestsError');
  const retry = Number(limited.headers.get('retry-after'));
  t.ok(retry >= 5 && retry <= 6, `Retry-After ${retry} s (a minute / 10 attempts)`);
  t.comment(`measured: 10 attempts answered 401 from one address, the 11th 429 with Retry-After: ${retry}`);
  t.equal((await login(srv.url, 'admin', STRONG, '203.0.113.8')).status, 200, 'another address is not affected');
  await new Promise((r) => setTimeout(r, retry * 1000 - (Date.now() - started) + 300));
  t.equal((await login(srv.url, 'admin', STRONG, '203.0.113.7')).status, 200, 'after Retry-After, one more attempt');
  t.equal((await login(srv.url, 'admin', STRONG, '203.0.113.7')).status, 429, 'and only one');
});

t.test('one account from many addresses: SIGN_IN_LIMIT_PER_ACCOUNT failures per 15 minutes; unknown accounts alike', async (t) => {
  const srv = await spawnServer({ env: AUTH });
  t.teardown(() => srv.stop());
  let n = 0;
  const from = () => `198.51.100.${++n}`;
  const admin = withSession(srv.url, await signInAs(srv.url, 'admin', STRONG, { 'x-forwarded-for': from() }));
  await admin('POST', '/api/admin/user-admin', { email: 'victim@example.com', rootRole: 'Viewer', password: STRONG });
  const tries = async (user: string) => {
    const out: number[] = [];
    for (let i = 0; i < 5; i++) out.push((await login(srv.url, user, `wrong password ${i}`, from())).status);
    return out;
  };
  t.same(await tries('victim@example.com'), Array(5).fill(401), 'five failures, each from a new address');
  const limited = await login(srv.url, 'Victim@Example.com', STRONG, from());
  t.equal(limited.status, 429, 'the sixth is refused, right password or not, however the name is spelled');
  const retry = Number(limited.headers.get('retry-after'));
  t.ok(retry >= 170 && retry <= 180, `Retry-After ${retry} s (15 minutes / 5 failures)`);
  t.comment(`measured: 5 failures at one account from 5 addresses answered 401, the 6th 429 with Retry-After: ${retry}`);
  t.same(await tries('nobody-here@example.com'), Array(5).fill(401), 'an unknown account gets the same answers…');
  t.equal((await login(srv.url, 'nobody-here@example.com', 'x', from())).status, 429, '…and the same limit: the limit says nothing about who exists');

  // A success forgets the account's failures: four mistakes and a success cost nothing later.
  await admin('POST', '/api/admin/user-admin', { email: 'clumsy@example.com', rootRole: 'Viewer', password: STRONG });
  for (let i = 0; i < 4; i++) await login(srv.url, 'clumsy@example.com', 'oops, not it', from());
  t.equal((await login(srv.url, 'clumsy@example.com', STRONG, from())).status, 200);
  t.same(await tries('clumsy@example.com'), Array(5).fill(401), 'five fresh failures allowed again after the success');
});

t.test('an unknown account, a wrong password, a deactivated account, an invited one: one answer, one timing', async (t) => {
  const srv = await spawnServer({
    env: { ...AUTH, PASSWORD_SCRYPT_LOG_N: '13', SIGN_IN_LIMIT_PER_ADDRESS: '10000', SIGN_IN_LIMIT_PER_ACCOUNT: '10000' },
  });
  t.teardown(() => srv.stop());
  const admin = withSession(srv.url, await signInAs(srv.url, 'admin', STRONG));
  const off = (await admin('POST', '/api/admin/user-admin', { email: 'gone@example.com', rootRole: 'Viewer', password: STRONG })).json;
  await admin('PUT', `/api/admin/user-admin/${off.id}`, { active: false });
  await admin('POST', '/api/admin/user-admin', { email: 'invited@example.com', rootRole: 'Viewer' });
  const cases: [string, string, string][] = [
    ['wrong password', 'admin', 'not the password at all'],
    ['unknown account', 'nobody@example.com', 'not the password at all'],
    ['deactivated account, right password', 'gone@example.com', STRONG],
    ['invited, no password yet', 'invited@example.com', 'not the password at all'],
  ];
  const times = new Map<string, number[]>(cases.map(([what]) => [what, []]));
  const bodies = new Set<string>();
  for (let round = 0; round < 12; round++) {
    for (const [what, user, password] of cases) {
      const started = performance.now();
      const res = await login(srv.url, user, password, '192.0.2.1');
      times.get(what)!.push(performance.now() - started);
      t.equal(res.status, 401, `${what}: 401`);
      bodies.add(JSON.stringify({ name: res.json.name, message: res.json.message }));
    }
  }
  t.equal(bodies.size, 1, 'the same name and message for all four');
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  const base = median(times.get('wrong password')!);
  for (const [what] of cases) {
    const m = median(times.get(what)!);
    t.comment(`${what}: median ${m.toFixed(1)} ms`);
    // An unknown account answered without hashing takes a fraction of a millisecond against tens.
    t.ok(m > base * 0.5 && m < base / 0.5, `${what} takes as long as a wrong password (${m.toFixed(1)} vs ${base.toFixed(1)} ms)`);
  }
});

t.test('a flood of sign-ins: at most PASSWORD_HASH_CONCURRENCY hash, PASSWORD_HASH_QUEUE wait, the rest get 429 at once; writes go on', async (t) => {
  const srv = await spawnServer({
    env: {
      ...AUTH, PASSWORD_SCRYPT_LOG_N: '14', SIGN_IN_LIMIT_PER_ADDRESS: '10000', SIGN_IN_LIMIT_PER_ACCOUNT: '10000',
      PASSWORD_HASH_CONCURRENCY: '2', PASSWORD_HASH_QUEUE: '4', WAL_SYNC: 'always',
    },
  });
  t.teardown(() => srv.stop());
  const admin = withSession(srv.url, await signInAs(srv.url, 'admin', STRONG));
  const flood = Array.from({ length: 40 }, (_, i) => login(srv.url, `flood-${i}@example.com`, 'wrong password here', `192.0.2.${i + 2}`));
  await new Promise((r) => setTimeout(r, 50));
  const started = performance.now();
  const write = await admin('POST', '/api/admin/projects/default/features', { name: 'written-during-the-flood' });
  const writeMs = performance.now() - started;
  const answers = await Promise.all(flood);
  const refused = answers.filter((r) => r.status === 429);
  const checked = answers.filter((r) => r.status === 401);
  t.equal(write.status, 201, 'a durable write (fdatasync, on the same thread pool) went through during the flood');
  t.comment(`flood of 40: ${checked.length} checked (401), ${refused.length} refused (429); a flag written meanwhile in ${writeMs.toFixed(0)} ms`);
  t.ok(checked.length >= 6, 'the hashes that fit were checked');
  t.ok(refused.length >= 20, 'the rest were refused at once');
  t.ok(refused.every((r) => r.headers.get('retry-after') === '1' && r.json.name === 'TooManyRequestsError'), '429 TooManyRequestsError, Retry-After: 1');
  t.equal((await client(srv.url)('GET', '/health')).status, 200);
});
