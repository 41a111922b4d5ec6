// Hostile sign-ins against a real server: guessing from one address, guessing one account from
// many addresses, telling unknown accounts from wrong passwords by the answer or its time, and a
// flood of sign-ins aimed at the password hasher (and, through the thread pool, the disk).
import t, { type Test } from 'tap';
import { signInAs, STRONG, withSession } from '../../helpers/people.js';
import { client, spawnServer, tempDataDir } from '../../helpers/server.js';

const AUTH = { AUTH_TYPE: 'api-token', UNLEASH_DEFAULT_ADMIN_PASSWORD: STRONG, TRUST_PROXY: 'true' };
const login = (base: string, username: string, password: string, from: string) =>
  client(base)('POST', '/auth/simple/login', { username, password }, { 'x-forwarded-for': from });

type Case = [what: string, username: string, password: string];

/** Each case `rounds` times, in turn, from `from`: each must be refused (401). Median times, and the distinct refusals. */
async function timeSignIns(t: Test, base: string, cases: Case[], rounds: number, from: string) {
  const times = new Map<string, number[]>(cases.map(([what]) => [what, []]));
  const bodies = new Set<string>();
  for (let round = 0; round < rounds; round++) {
    for (const [what, user, password] of cases) {
      const started = performance.now();
      const res = await login(base, user, password, from);
      times.get(what)!.push(performance.now() - started);
      t.equal(res.status, 401, `${what}: 401`);
      bodies.add(JSON.stringify({ name: res.json.name, message: res.json.message }));
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  return { medians: new Map([...times].map(([what, xs]) => [what, median(xs)])), bodies };
}

/** Every case's median within a factor of two of `base`'s: generous for a busy machine, far from the gaps these tests guard against. */
function sameTimes(t: Test, medians: Map<string, number>, base: string) {
  const b = medians.get(base)!;
  for (const [what, m] of medians) {
    t.comment(`measured: ${what}: median ${m.toFixed(1)} ms`);
    t.ok(m > b * 0.5 && m < b / 0.5, `${what} takes as long as ${base === 'wrong password' ? 'a wrong password' : 'an unknown account'} (${m.toFixed(1)} vs ${b.toFixed(1)} ms)`);
  }
}

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
  const cases: Case[] = [
    ['wrong password', 'admin', 'not the password at all'],
    ['unknown account', 'nobody@example.com', 'not the password at all'],
    ['deactivated account, right password', 'gone@example.com', STRONG],
    ['invited, no password yet', 'invited@example.com', 'not the password at all'],
  ];
  const { medians, bodies } = await timeSignIns(t, srv.url, cases, 12, '192.0.2.1');
  t.equal(bodies.size, 1, 'the same name and message for all four');
  // An unknown account answered without hashing takes a fraction of a millisecond against tens.
  sameTimes(t, medians, 'wrong password');
});

t.test('a flood of sign-ins: at most PASSWORD_HASH_CONCURRENCY hash, PASSWORD_HASH_QUEUE wait (and one more per address), the rest get 429 at once; writes go on', async (t) => {
  const srv = await spawnServer({
    env: {
      ...AUTH, PASSWORD_SCRYPT_LOG_N: '14', SIGN_IN_LIMIT_PER_ADDRESS: '10000', SIGN_IN_LIMIT_PER_ACCOUNT: '10000',
      PASSWORD_HASH_CONCURRENCY: '2', PASSWORD_HASH_QUEUE: '4', WAL_SYNC: 'always',
    },
  });
  t.teardown(() => srv.stop());
  const admin = withSession(srv.url, await signInAs(srv.url, 'admin', STRONG));
  // Forty at once from four addresses, ten each.
  const flood = Array.from({ length: 40 }, (_, i) => login(srv.url, `flood-${i}@example.com`, 'wrong password here', `192.0.2.${(i % 4) + 2}`));
  await new Promise((r) => setTimeout(r, 50));
  const started = performance.now();
  const write = await admin('POST', '/api/admin/projects/default/features', { name: 'written-during-the-flood' });
  const writeMs = performance.now() - started;
  const answers = await Promise.all(flood);
  const refused = answers.filter((r) => r.status === 429);
  const checked = answers.filter((r) => r.status === 401);
  t.equal(write.status, 201, 'a durable write (fdatasync, on the same thread pool) went through during the flood');
  t.comment(`flood of 40: ${checked.length} checked (401), ${refused.length} refused (429); a flag written meanwhile in ${writeMs.toFixed(0)} ms`);
  t.ok(checked.length >= 6 && checked.length <= 2 + 4 + 4, 'the hashes that fit were checked: two running, four waiting, at most one more per address');
  t.ok(refused.length >= 30, 'the rest were refused at once');
  t.ok(refused.every((r) => r.headers.get('retry-after') === '1' && r.json.name === 'TooManyRequestsError'), '429 TooManyRequestsError, Retry-After: 1');
  t.equal((await client(srv.url)('GET', '/health')).status, 200);
});

t.test('TRUST_PROXY: only the entry the proxy wrote is the address; what the client wrote to its left is not', async (t) => {
  const srv = await spawnServer({ env: AUTH });
  t.teardown(() => srv.stop());
  // The client sends its own X-Forwarded-For with a new made-up address each time; the proxy
  // (TRUST_PROXY=true: one) appends the address it saw, always the same.
  const statuses: number[] = [];
  for (let i = 0; i < 30; i++) statuses.push((await login(srv.url, `guess-${i}@example.com`, 'wrong password here', `10.1.2.${i}, 198.51.100.77`)).status);
  t.comment(`measured: 30 attempts with 30 made-up left-most addresses: ${statuses.filter((s) => s === 401).length} × 401, ${statuses.filter((s) => s === 429).length} × 429`);
  t.same(statuses, [...Array(10).fill(401), ...Array(20).fill(429)], 'ten answered, then the address the proxy saw is over its limit');
  t.equal((await login(srv.url, 'admin', STRONG, '203.0.113.1, 198.51.100.78')).status, 200, 'another address the proxy saw is not affected');

  const two = await spawnServer({ env: { ...AUTH, TRUST_PROXY: '2' } });
  t.teardown(() => two.stop());
  // Two proxies: the outer one appended the client's address, the inner one the outer one's.
  for (let i = 0; i < 10; i++) await login(two.url, `guess-${i}@example.com`, 'wrong password here', `10.1.2.${i}, 198.51.100.77, 172.16.0.1`);
  t.equal((await login(two.url, 'admin', STRONG, '10.9.9.9, 198.51.100.77, 172.16.0.2')).status, 429, 'TRUST_PROXY=2: the second entry from the right counts');
  t.equal((await login(two.url, 'admin', STRONG, '198.51.100.77, 198.51.100.79, 172.16.0.1')).status, 200, 'and only it');
});

t.test('a locked account stays locked whatever the traffic at made-up names', async (t) => {
  const srv = await spawnServer({ env: { ...AUTH, SIGN_IN_LIMITER_ENTRIES: '50' } });
  t.teardown(() => srv.stop());
  const admin = withSession(srv.url, await signInAs(srv.url, 'admin', STRONG, { 'x-forwarded-for': '192.0.2.1' }));
  await admin('POST', '/api/admin/user-admin', { email: 'victim@example.com', rootRole: 'Viewer', password: STRONG });
  for (let i = 0; i < 5; i++) await login(srv.url, 'victim@example.com', `wrong password ${i}`, `198.51.100.${i + 1}`);
  t.equal((await login(srv.url, 'victim@example.com', 'wrong password 5', '198.51.100.6')).status, 429, 'locked after five failures');
  // Six times as many made-up names as the limiter remembers, each from an address of its own.
  let n = 0;
  const junk = async () => {
    for (let i = n++; i < 300; i = n++) await login(srv.url, `junk-${i}@example.com`, 'wrong password here', `10.${i >> 8}.${i & 255}.1`);
  };
  await Promise.all(Array.from({ length: 8 }, junk));
  const after: number[] = [];
  for (let i = 0; i < 5; i++) after.push((await login(srv.url, 'victim@example.com', i === 4 ? STRONG : `another guess ${i}`, `203.0.113.${i + 1}`)).status);
  t.comment(`measured: after 300 attempts at made-up names (SIGN_IN_LIMITER_ENTRIES=50), the locked account answered ${after.join(', ')}`);
  t.same(after, Array(5).fill(429), 'still locked: no more guesses, not even the right password');
});

t.test('one lockout per person, whether the attempts give their email or their username', async (t) => {
  const srv = await spawnServer({ env: AUTH });
  t.teardown(() => srv.stop());
  const admin = withSession(srv.url, await signInAs(srv.url, 'admin', STRONG, { 'x-forwarded-for': '192.0.2.1' }));
  await admin('POST', '/api/admin/user-admin', { email: 'both@example.com', username: 'both', rootRole: 'Viewer', password: STRONG });
  const statuses: number[] = [];
  for (let i = 0; i < 8; i++) statuses.push((await login(srv.url, i % 2 ? 'both' : 'Both@example.com', `wrong password ${i}`, `198.51.100.${i + 1}`)).status);
  t.comment(`measured: 8 failures alternating email and username: ${statuses.join(', ')}`);
  t.same(statuses, [...Array(5).fill(401), ...Array(3).fill(429)], 'five failures in all, then 429 by either name');
  t.equal((await login(srv.url, 'both', STRONG, '198.51.100.20')).status, 429, 'the right password too, while locked');
});

t.test('during a flood of wrong sign-ins from many addresses, a person with the right password from their own address signs in', async (t) => {
  const srv = await spawnServer({
    env: { ...AUTH, PASSWORD_HASH_CONCURRENCY: '2', PASSWORD_HASH_QUEUE: '4' },
  });
  t.teardown(() => srv.stop());
  let stop = false;
  let n = 0;
  const answered = new Map<number, number>();
  // 60 connections, each sending one wrong sign-in after another, each from a new address.
  const flood = async () => {
    while (!stop) {
      const i = n++;
      const res = await login(srv.url, `flood-${i}@example.com`, 'wrong password here', `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
      answered.set(res.status, (answered.get(res.status) ?? 0) + 1);
    }
  };
  const floods = Array.from({ length: 60 }, flood);
  await new Promise((r) => setTimeout(r, 300));
  const mine: number[] = [];
  const waits: number[] = [];
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    mine.push((await login(srv.url, 'admin', STRONG, '192.0.2.200')).status);
    waits.push(Math.round(performance.now() - started));
  }
  stop = true;
  await Promise.all(floods);
  t.comment(`measured: the admin's 3 sign-ins during the flood: ${mine.join(', ')} (${waits.join(', ')} ms); the flood's ${n} attempts: ${[...answered].map(([s, c]) => `${c} × ${s}`).join(', ')}`);
  // Each waited its turn behind at most one attempt per flooding address (60), not refused.
  t.same(mine, Array(3).fill(200), 'every sign-in with the right password went through');
});

t.test('with a raised PASSWORD_SCRYPT_LOG_N and hashes made before it, a wrong password and an unknown account still take as long', async (t) => {
  const dataDir = tempDataDir();
  const cheap = await spawnServer({ dataDir, env: { ...AUTH, PASSWORD_SCRYPT_LOG_N: '10' } });
  const admin = withSession(cheap.url, await signInAs(cheap.url, 'admin', STRONG, { 'x-forwarded-for': '192.0.2.1' }));
  const off = (await admin('POST', '/api/admin/user-admin', { email: 'gone@example.com', rootRole: 'Viewer', password: STRONG })).json;
  await admin('PUT', `/api/admin/user-admin/${off.id}`, { active: false });
  await cheap.stop();
  // Raised: hashes made from now on cost 8 times as much; the two existing ones keep theirs until their person signs in.
  const srv = await spawnServer({ dataDir, env: { ...AUTH, PASSWORD_SCRYPT_LOG_N: '13', SIGN_IN_LIMIT_PER_ADDRESS: '10000', SIGN_IN_LIMIT_PER_ACCOUNT: '10000' } });
  t.teardown(() => srv.stop());
  const cases: Case[] = [
    ['wrong password', 'admin', 'not the password at all'],
    ['unknown account', 'nobody@example.com', 'not the password at all'],
    ['deactivated account, right password', 'gone@example.com', STRONG],
  ];
  const { medians } = await timeSignIns(t, srv.url, cases, 9, '192.0.2.2');
  // Before, the old hash answered in about an eighth of the time.
  sameTimes(t, medians, 'unknown account');
});
