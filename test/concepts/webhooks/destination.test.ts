// Where webhooks may go (the pure core and the resolver's check; destination-policy.test.ts drives
// a real server): every spelling of an internal address is refused by default, private ranges by
// a setting, named hosts and ranges by the allow lists, and a name by every address it resolves to.
import type { LookupAddress } from 'node:dns';
import t from 'tap';
import { destinationPolicy, guardedLookup, hostOf, refusal, RefusedDestination, urlRefusal } from '../../../src/concepts/webhooks/destination.js';
import { ConfigError, loadConfig } from '../../../src/core/config.js';

const policy = (env: Record<string, string> = {}) => destinationPolicy(loadConfig(env).webhooks);
const DEFAULT = policy();

t.test('by default only public addresses may be reached', async (t) => {
  const refused: [string, RegExp][] = [
    ['127.0.0.1', /loopback/], ['127.255.0.9', /loopback/], ['::1', /loopback/], ['::ffff:127.0.0.1', /loopback/], ['64:ff9b::7f00:1', /loopback/],
    ['169.254.169.254', /link-local/], ['fe80::1', /link-local/], ['::ffff:169.254.169.254', /link-local/],
    ['10.0.0.1', /private/], ['172.16.5.4', /private/], ['192.168.1.1', /private/], ['100.64.0.1', /private/], ['fd00::1', /private/], ['::ffff:10.1.2.3', /private/],
    ['0.0.0.0', /unspecified/], ['::', /unspecified/], ['224.0.0.1', /multicast/], ['ff02::1', /multicast/],
    ['255.255.255.255', /special-purpose|broadcast/], ['240.0.0.1', /special-purpose/], ['192.0.2.1', /special-purpose/], ['2002:7f00:1::', /special-purpose/],
    ['not-an-ip', /not an IP address/],
  ];
  for (const [ip, why] of refused) t.match(refusal(ip, DEFAULT), why, `${ip} is refused`);
  for (const ip of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) t.equal(refusal(ip, DEFAULT), null, `${ip} may be reached`);
});

t.test('the settings open private ranges, named ranges and named hosts, and nothing else', async (t) => {
  const priv = policy({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  for (const ip of ['10.0.0.1', '192.168.1.1', 'fd00::1', '100.64.0.1']) t.equal(refusal(ip, priv), null, `${ip}: private is allowed`);
  for (const ip of ['127.0.0.1', '169.254.169.254', '::1']) t.not(refusal(ip, priv), null, `${ip}: loopback and link-local are not private`);
  const ranges = policy({ WEBHOOK_ALLOW_RANGES: '127.0.0.1/32, 10.20.0.0/16, fd12::/16' });
  t.equal(refusal('127.0.0.1', ranges), null);
  t.equal(refusal('::ffff:127.0.0.1', ranges), null, 'an IPv4-mapped address answers for its IPv4 address');
  t.not(refusal('127.0.0.2', ranges), null, 'only the range');
  t.equal(refusal('10.20.9.9', ranges), null);
  t.not(refusal('10.21.0.1', ranges), null);
  t.equal(refusal('fd12::5', ranges), null);
  t.throws(() => loadConfig({ WEBHOOK_ALLOW_RANGES: '10.0.0.0/33' }), new ConfigError('WEBHOOK_ALLOW_RANGES must list addresses or CIDR ranges such as 10.1.2.0/24 or fd00::/8, got "10.0.0.0/33"'));
  t.throws(() => loadConfig({ WEBHOOK_ALLOW_HOSTS: 'http://hooks.internal' }), /WEBHOOK_ALLOW_HOSTS must list host names/);
  t.throws(() => loadConfig({ WEBHOOK_ALLOW_HOSTS: '*.internal' }), /WEBHOOK_ALLOW_HOSTS must list host names/);
  t.throws(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'yes' }), /WEBHOOK_ALLOW_PRIVATE must be true or false/);
  t.same([...policy({ WEBHOOK_ALLOW_HOSTS: 'Hooks.Internal., localhost' }).allowHosts], ['hooks.internal', 'localhost'], 'host names as URLs spell them');
});

t.test('a URL is refused for credentials, or for a literal address in any spelling; names wait for the lookup', async (t) => {
  const cases: [string, RegExp | null][] = [
    ['http://127.0.0.1:4242/api/admin/projects', /^127\.0\.0\.1 is a loopback address, which webhooks may not reach/],
    ['http://2130706433/', /^127\.0\.0\.1 is a loopback/],
    ['http://0x7f.1/', /^127\.0\.0\.1 is a loopback/],
    ['http://0177.0.0.1/', /^127\.0\.0\.1 is a loopback/],
    ['http://[::1]:8080/', /^::1 is a loopback/],
    ['http://[::ffff:7f00:1]/', /loopback/],
    ['http://169.254.169.254/latest/meta-data/', /link-local/],
    ['http://10.0.0.1/', /private/],
    ['https://user:pass@hooks.example.com/', /must not carry credentials/],
    ['https://token@hooks.example.com/', /must not carry credentials/],
    ['https://hooks.example.com/fanion', null],
    ['http://localhost:9/', null],
    ['http://8.8.8.8/', null],
  ];
  for (const [url, why] of cases) {
    const got = urlRefusal(new URL(url), DEFAULT);
    if (why === null) t.equal(got, null, `${url} passes (for now)`);
    else t.match(got, why, `${url}: ${got}`);
  }
  t.equal(urlRefusal(new URL('http://127.0.0.1/'), policy({ WEBHOOK_ALLOW_HOSTS: '127.0.0.1' })), null, 'a literal named in WEBHOOK_ALLOW_HOSTS');
  t.equal(hostOf(new URL('http://LOCALHOST./')), 'localhost');
  t.equal(hostOf(new URL('http://[::1]/')), '::1');
});

const lookup = (p: typeof DEFAULT, host: string, all: boolean) => new Promise<{ err: Error | null; address: string | LookupAddress[] }>((resolve) => {
  guardedLookup(p)(host, { all }, (err, address) => resolve({ err, address }));
});

t.test('a name is refused when it resolves to an address the policy refuses, however it is asked', async (t) => {
  for (const all of [false, true]) {
    const { err } = await lookup(DEFAULT, 'localhost', all);
    t.ok(err instanceof RefusedDestination, `localhost (all: ${all}) is refused: ${err?.message}`);
    t.match(err?.message, /^localhost resolves to (127\.0\.0\.1|::1), a loopback address$/);
  }
  const open = policy({ WEBHOOK_ALLOW_RANGES: '127.0.0.0/8,::1' });
  const one = await lookup(open, 'localhost', false);
  t.equal(one.err, null);
  t.match(one.address, /^(127\.0\.0\.1|::1)$/, 'one address when one is asked for');
  const all = await lookup(open, 'localhost', true);
  t.ok(Array.isArray(all.address) && all.address.length >= 1, 'every address when all are asked for');
  const missing = await lookup(DEFAULT, 'no-such-host.invalid', false);
  t.ok(missing.err && !(missing.err instanceof RefusedDestination), 'a name that does not resolve fails as the resolver says');
});
