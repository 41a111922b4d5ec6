// "Connect an SDK"'s snippets (ui/src/sdk-snippets.ts) and its "connected" rule (ui/src/connect-sdk.ts),
// bundled as the console bundles them and run here without a browser: every SDK's snippet carries
// the real flag name, this server's address on the path that SDK asks (the client API or the
// Frontend API), the token or a placeholder naming its kind, and the SDK's own package names; the
// JavaScript ones and the Python one parse. The Node and browser snippets are run as copied in
// test/ui/connect-sdk.test.ts.
import { execFileSync } from 'node:child_process';
import { transform } from 'esbuild';
import t from 'tap';
import { uiModule } from '../helpers/ui-module.js';

interface SdkChoice { id: string; label: string; kind: 'client' | 'frontend'; reports?: false }
interface Snippets {
  SDKS: SdkChoice[];
  snippet(id: string, input: { origin: string; flag: string; environment: string; token: string | null; appName: string }): string;
  placeholder(kind: string, environment: string): string;
}
interface SeenApp { appName: string; instances: { instanceId: string; environment: string; connectionId: string | null; sdkVersion: string | null }[] }
interface Connect {
  seenKeys(apps: SeenApp[]): Set<string>;
  newlyConnected(before: Set<string>, apps: SeenApp[], environment: string): { appName: string; sdkVersion: string | null } | null;
}

const ORIGIN = 'https://flags.example.com:8443';
const input = (token: string | null) => ({ origin: `${ORIGIN}/`, flag: 'checkout.new-flow_2', environment: 'staging', token, appName: 'shop' });

/** Each SDK's own package, import or coordinates, as its README names them. */
const PACKAGES: Record<string, RegExp[]> = {
  node: [/npm install unleash-client\n/, /from 'unleash-client'/, /initialize\(/, /customHeaders: \{ Authorization:/],
  java: [/io\.getunleash:unleash-client-java/, /import io\.getunleash\.DefaultUnleash;/, /UnleashConfig\.builder\(\)/, /\.unleashAPI\(/, /\.apiKey\(/],
  go: [/go get github\.com\/Unleash\/unleash-client-go\/v4/, /"github\.com\/Unleash\/unleash-client-go\/v4"/, /unleash\.WithCustomHeaders\(http\.Header\{"Authorization"/],
  python: [/pip install UnleashClient/, /from UnleashClient import UnleashClient/, /initialize_client\(\)/],
  dotnet: [/dotnet add package Unleash\.Client/, /using Unleash;/, /new UnleashSettings/, /CustomHttpHeaders/],
  ruby: [/gem install unleash/, /require 'unleash'/, /Unleash::Client\.new\(/, /custom_http_headers:/],
  php: [/composer require unleash\/client/, /use Unleash\\Client\\UnleashBuilder;/, /->withHeader\('Authorization', /],
  browser: [/npm install unleash-proxy-client/, /from 'unleash-proxy-client'/, /clientKey:/],
  react: [/npm install @unleash\/proxy-client-react unleash-proxy-client/, /from '@unleash\/proxy-client-react'/, /<FlagProvider config=\{config\}>/, /useFlag\(/],
  ios: [/unleash-proxy-client-swift/, /import UnleashProxyClientSwift/, /clientKey:/],
  android: [/io\.getunleash:unleash-android:/, /import io\.getunleash\.android\.DefaultUnleash/, /\.proxyUrl\(/, /\.clientKey\(/],
  'openfeature-server': [/@openfeature\/server-sdk @openfeature\/ofrep-provider/, /new OFREPProvider\(/],
  'openfeature-web': [/@openfeature\/web-sdk @openfeature\/ofrep-web-provider/, /new OFREPWebProvider\(/],
};

t.test('every SDK: the real flag name, this server on the right path, the token of the right kind', async (t) => {
  const s = await uiModule<Snippets>('sdk-snippets.ts');
  t.same(s.SDKS.map((x) => x.id).sort(), Object.keys(PACKAGES).sort(), 'the ten most used SDKs and OpenFeature, each checked here');
  t.same(s.SDKS.filter((x) => x.kind === 'frontend').map((x) => x.id), ['browser', 'react', 'ios', 'android', 'openfeature-web'], 'browser and mobile SDKs use a frontend token');
  t.same(s.SDKS.filter((x) => x.reports === false).map((x) => x.id), ['openfeature-server', 'openfeature-web'], 'OFREP providers never announce themselves: the panel does not wait for them');
  for (const sdk of s.SDKS) {
    const token = sdk.kind === 'client' ? 'default:staging.c0ffee' : 'default:staging.f00d';
    const code = s.snippet(sdk.id, input(token));
    t.ok(code.includes("'checkout.new-flow_2'") || code.includes('"checkout.new-flow_2"'), `${sdk.id}: asks for the flag by its name, as a string`);
    t.ok(code.includes(token), `${sdk.id}: holds the token`);
    for (const p of PACKAGES[sdk.id]) t.match(code, p, `${sdk.id}: ${p}`);
    if (sdk.id.startsWith('openfeature')) {
      t.match(code, new RegExp(`baseUrl: '${ORIGIN}'`), `${sdk.id}: OFREP's base is the server itself`);
      t.match(code, /'Bearer default:staging\./, `${sdk.id}: a bearer token`);
    } else if (sdk.kind === 'frontend') {
      t.ok(code.includes(`${ORIGIN}/api/frontend"`) || code.includes(`${ORIGIN}/api/frontend'`), `${sdk.id}: the Frontend API`);
    } else {
      t.match(code, new RegExp(`['"]${ORIGIN}/api/?['"]`), `${sdk.id}: the client API`);
      t.notMatch(code, /\/api\/frontend/, `${sdk.id}: not the Frontend API`);
    }
    const missing = s.snippet(sdk.id, input(null));
    t.ok(missing.includes(`<${sdk.kind} token for staging>`), `${sdk.id}: without a token, a placeholder saying which kind and where`);
    t.equal(s.placeholder(sdk.kind, 'staging'), `<${sdk.kind} token for staging>`);
  }
  t.throws(() => s.snippet('cobol', input('x')), /No SDK cobol/);
});

t.test('the JavaScript snippets parse as modules (JSX for React), the Python one as Python', async (t) => {
  const s = await uiModule<Snippets>('sdk-snippets.ts');
  // A token with a quote and a backslash stays one string literal.
  const odd = "x'y\\z";
  for (const id of ['node', 'browser', 'react', 'openfeature-server', 'openfeature-web']) {
    const code = s.snippet(id, input(odd));
    await t.resolves(transform(code, { loader: id === 'react' ? 'jsx' : 'js', format: 'esm' }), `${id} parses`);
    const string = `'${id.startsWith('openfeature') ? 'Bearer ' : ''}${odd.replace(/[\\']/g, '\\$&')}'`;
    t.ok(code.includes(string), `${id}: the token quoted as ${string}`);
  }
  let python: string | null = null;
  try {
    python = execFileSync('python3', ['--version'], { encoding: 'utf8' });
  } catch {
    t.comment('no python3 here: the Python snippet is not parsed');
  }
  if (python) {
    const code = s.snippet('python', input(odd));
    t.doesNotThrow(() => execFileSync('python3', ['-c', 'import ast, sys; ast.parse(sys.stdin.read())'], { input: code }), 'the Python snippet parses');
  }
});

t.test('"connected": an instance the server did not list before, in the chosen environment', async (t) => {
  const c = await uiModule<Connect>('connect-sdk.ts');
  const inst = (instanceId: string, environment = 'development', connectionId: string | null = 'c1', sdkVersion: string | null = 'unleash-client-node:6.12.1') => ({ instanceId, environment, connectionId, sdkVersion });
  const before = c.seenKeys([{ appName: 'billing', instances: [inst('b-1'), inst('b-2', 'production')] }]);
  t.equal(c.newlyConnected(before, [{ appName: 'billing', instances: [inst('b-1'), inst('b-2', 'production')] }], 'development'), null, 'the same instances: nothing new');
  t.equal(c.newlyConnected(before, [{ appName: 'web', instances: [inst('w-1', 'production')] }], 'development'), null, 'a new one in another environment does not count');
  t.same(c.newlyConnected(before, [{ appName: 'billing', instances: [inst('b-1')] }, { appName: 'web', instances: [inst('browser', 'development', 'c9', null)] }], 'development'),
    { appName: 'web', sdkVersion: null }, 'a new application');
  t.same(c.newlyConnected(before, [{ appName: 'billing', instances: [inst('b-1', 'development', 'c2', 'unleash-client-node:6.13.0')] }], 'development'),
    { appName: 'billing', sdkVersion: 'unleash-client-node:6.13.0' }, 'a known application restarted: a new connection');
});
