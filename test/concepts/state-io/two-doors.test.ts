// Two doors, two rules (docs/decisions/0008-two-doors.md), against a real server: what comes in
// as data is stored and served as given; what a person writes through the admin API is checked,
// with messages in words. And names as the decisions file gives them, end to end.
import t from 'tap';
import { InMemStorageProvider, Unleash, UnleashEvents } from 'unleash-client';
import { client, serve } from '../../helpers/server.js';

const ADMIN = '*:*.doors-admin';
const CLIENT = '*:development.doors-client';
const H = '/api/admin';
const P = `${H}/projects/default/features`;

async function start(t: { teardown(fn: () => unknown): void }) {
  const opened = await serve(t, { env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT }, authorization: ADMIN });
  return { ...opened, sdkApi: client(opened.srv.url, { authorization: CLIENT }) };
}

t.test('the import stores what SDKs are specified to evaluate, as given, and serves it to SDKs', async (t) => {
  const { api, sdkApi, ok } = await start(t);
  const constraints = [
    { contextName: 'userId', operator: 'IN', values: [] },
    { contextName: 'userId', operator: 'NOT_A_VALID_OPERATOR', value: 'x' },
    { contextName: 'userId', operator: 'REGEX', value: '(regex' },
    { contextName: 'version', operator: 'SEMVER_EQ', value: 'v2.0.0' },
    { contextName: 'remoteAddress', operator: 'IN_CIDR', values: ['127.invalid', '10.0.0.0/8'] },
  ];
  const doc = {
    version: 1,
    features: [
      { name: 'child', dependencies: [{ feature: 'no-such-flag' }] },
      { name: 'loop-a', dependencies: [{ feature: 'loop-b' }] },
      { name: 'loop-b', dependencies: [{ feature: 'loop-a' }] },
      { name: 'odd', dependencies: [] },
    ],
    featureEnvironments: [{ featureName: 'odd', environment: 'development', enabled: true }],
    featureStrategies: [{ featureName: 'odd', environment: 'development', strategyName: 'default', constraints }],
    segments: [{ id: 7, name: '  Beta users  ', constraints: [{ contextName: 'userId', operator: 'NOT_IN', values: [] }] }],
  };
  const res = await api('POST', `${H}/state/import`, doc);
  t.equal(res.status, 202, `accepted: ${res.text}`);

  const served = await sdkApi('GET', '/api/client/features');
  const odd = served.json.features.find((f: any) => f.name === 'odd');
  t.same(odd.strategies[0].constraints, constraints.map((c) => ({ values: [], caseInsensitive: false, inverted: false, ...c })), 'constraints reach SDKs as given');
  const child = served.json.features.find((f: any) => f.name === 'child');
  t.same(child.dependencies, [{ feature: 'no-such-flag', enabled: true, variants: [] }], 'a dependency on a missing flag is served');

  const exported = await ok('GET', `${H}/state/export`);
  t.same(exported.features.find((f: any) => f.name === 'loop-a').dependencies, [{ feature: 'loop-b', enabled: true, variants: [] }], 'a cycle is kept');
  t.equal(exported.segments.find((s: any) => s.id === 7).name, 'Beta users', 'a segment name is any text, trimmed');

  // What still cannot be stored or addressed is refused, naming the item.
  const slash = await api('POST', `${H}/state/import`, { version: 1, features: [{ name: 'a/b' }] });
  t.equal(slash.status, 400);
  t.match(slash.json.message, /features\[0\]\.name.*no "\/"/);
  const huge = await api('POST', `${H}/state/import`, { version: 1, features: [{ name: 'x'.repeat(101) }] });
  t.equal(huge.status, 400, 'a 101-character flag name is refused');
  const blank = await api('POST', `${H}/state/import`, { version: 1, segments: [{ id: 9, name: '   ' }] });
  t.equal(blank.status, 400, 'a blank segment name is refused');
  t.match(blank.json.message, /segments\[0\]\.name/);
});

t.test('the admin API stays strict and says what is allowed, in words', async (t) => {
  const { api, ok } = await start(t);
  await ok('POST', P, { name: 'strict' });
  const S = `${P}/strict/environments/development/strategies`;
  const post = (c: unknown) => api('POST', S, { name: 'default', constraints: [c] });

  const unknown = await post({ contextName: 'userId', operator: 'NOT_A_VALID_OPERATOR', value: 'x' });
  t.equal(unknown.status, 400);
  t.match(unknown.json.message, /operator" must be one of "IN", "NOT_IN", .*"REGEX", "IN_CIDR"/, 'lists the operators');
  t.match((await post({ contextName: 'userId', operator: 'IN', values: [] })).json.message, /needs at least one value/);
  t.match((await post({ contextName: 'v', operator: 'SEMVER_EQ', value: 'v2.0.0' })).json.message, /semantic version/);
  t.match((await post({ contextName: 'u', operator: 'REGEX', value: '(regex' })).json.message, /not a valid regular expression/);
  t.equal((await post({ contextName: 'u', operator: 'REGEX', value: '^(?i)abc$' })).status, 200, "RE2's inline flags are a valid pattern, as in Unleash");

  t.equal((await post({ contextName: 'remoteAddress', operator: 'IN_CIDR', values: ['10.0.0.0/8', '192.168.1.7', '2001:db8::/32', '::1'] })).status, 200, 'IN_CIDR takes addresses and ranges');
  for (const bad of ['127.invalid', '10.0.0.0/33', '2001:db8::/129', '10.0.0.0/', 'bad::cidr']) {
    const res = await post({ contextName: 'remoteAddress', operator: 'IN_CIDR', values: ['10.0.0.0/8', bad] });
    t.equal(res.status, 400, `IN_CIDR refuses ${bad}`);
    t.match(res.json.message, /IPv4 or IPv6 addresses or CIDR ranges/);
  }

  const spaced = await api('POST', P, { name: 'two words' });
  t.equal(spaced.status, 400);
  t.match(spaced.json.message, /"name" must be 1 to 100 characters with no whitespace, no control character and no "\/"/, 'the flag name rule in words');
  t.notMatch(spaced.json.message, /\^\[/, 'no regular expression in the message');
  const project = await api('POST', `${H}/projects`, { id: 'two words', name: 'x' });
  t.match(project.json.message, /letters, digits and - _ \. ! ~ \* ' \( \)/, 'the URL-friendly rule in words');

  const notAPatch = await api('PATCH', `${P}/strict`, { op: 'replace', path: '/description', value: 'x' });
  t.equal(notAPatch.status, 400);
  t.match(notAPatch.json.message, /a JSON Patch array/);

  const dangling = await api('POST', `${P}/strict/dependencies`, { feature: 'no-such-flag' });
  t.equal(dangling.status, 400, 'a person cannot add a dependency on a missing flag');
});

t.test('Unicode flag names and spaced segment names work end to end', async (t) => {
  const { srv, api, sdkApi, ok } = await start(t);
  const names = ['Feature.UTF-8.Hellø_Wørld', 'Feature.UTF-8.😊_φriend_你好_🌍', '50%off?#&+', 'zwj-👩‍💻'];
  for (const name of names) {
    const path = `${P}/${encodeURIComponent(name)}`;
    t.equal((await api('POST', P, { name })).status, 201, `created ${name}`);
    t.equal((await ok('GET', path)).name, name, 'addressed percent-encoded');
    await ok('PATCH', path, [{ op: 'replace', path: '/description', value: 'd' }]);
    await ok('POST', `${path}/environments/development/strategies`, { name: 'default' });
    await ok('POST', `${path}/environments/development/on`);
    const events = await ok('GET', `${H}/events/${encodeURIComponent(name)}`);
    t.ok(events.events.length >= 3, 'its events are found by name');
    const searched = await ok('POST', `${H}/events/search`, { feature: name });
    t.ok(searched.events.every((e: any) => e.featureName === name) && searched.events.length >= 3, 'event search by name');
  }
  const served = (await sdkApi('GET', '/api/client/features')).json.features.map((f: any) => f.name);
  t.same(served.filter((n: string) => names.includes(n)).sort(), [...names].sort(), 'the client API serves them');
  const one = await sdkApi('GET', `/api/client/features/${encodeURIComponent(names[1])}`);
  t.equal(one.status, 200, 'a single flag by name on the client API');
  const exported = await ok('GET', `${H}/state/export`);
  t.same(exported.features.map((f: any) => f.name).filter((n: string) => names.includes(n)).sort(), [...names].sort(), 'the export has them');

  const sdk = new Unleash({
    url: `${srv.url}/api/`, appName: 'doors', customHeaders: { Authorization: CLIENT }, disableMetrics: true,
    refreshInterval: 60_000, storageProvider: new InMemStorageProvider(), skipInstanceCountWarning: true,
  });
  t.teardown(() => sdk.destroy());
  await new Promise((resolve) => sdk.once(UnleashEvents.Synchronized, resolve));
  for (const name of names) t.equal(sdk.isEnabled(name), true, `the Node SDK sees ${name} on`);

  for (const bad of ['a b', 'tab\there', 'a/b', '.', '..', 'nul\u0000', 'x'.repeat(101), '\ud800lone']) {
    t.equal((await api('POST', P, { name: bad })).status, 400, `refused: ${JSON.stringify(bad)}`);
  }

  const seg = await api('POST', `${H}/segments`, { name: '  Beta users  ', constraints: [] });
  t.equal(seg.status, 201, `a segment named with a space: ${seg.text}`);
  t.equal(seg.json.name, 'Beta users', 'stored trimmed');
  const twin = await api('POST', `${H}/segments`, { name: 'Beta users', constraints: [] });
  t.equal(twin.status, 409, 'segment names stay unique');
  t.equal((await api('POST', `${H}/segments`, { name: '   ', constraints: [] })).status, 400, 'blank is refused');
});
