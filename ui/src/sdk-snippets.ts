// The code that connects each common SDK to this server, filled in with the real server address,
// flag name and token. Loaded only when "Connect an SDK" opens (a chunk of its own, imported by
// connect-sdk.ts), so the console's first load does not carry the text of a dozen SDKs. Imports
// nothing: the build makes it a file of its own, with nothing shared with the main bundle.
//
// Server-side SDKs fetch every flag definition and evaluate locally, from `<server>/api/` with a
// client token; browser and mobile SDKs ask the Frontend API (`<server>/api/frontend`) with a
// frontend token. Package, import and call names are those of each SDK's own README.

/** The token kind an SDK needs. */
export type TokenKind = 'client' | 'frontend';

export interface SdkChoice {
  id: string;
  label: string;
  kind: TokenKind;
  /** False: it never announces itself (an OFREP provider only asks), so no application shows when it connects. */
  reports?: false;
}

/** What a snippet is filled with. `token` null: none at hand, a placeholder naming the kind says what to put there. */
export interface SnippetInput {
  origin: string;
  flag: string;
  environment: string;
  token: string | null;
  appName: string;
}

/** A double-quoted string literal (Java, Go, C#, Swift, Kotlin: JSON's escapes hold in each). */
const q = (s: string) => JSON.stringify(s);
/** A single-quoted one (JavaScript, Python, Ruby, PHP: each reads \\ and \' in it). */
const sq = (s: string) => `'${s.replace(/[\\']/g, '\\$&')}'`;

type Build = (v: { api: string; frontend: string; flag: string; token: string; app: string }) => string;

const SNIPPETS: (SdkChoice & { code: Build })[] = [
  {
    id: 'node', label: 'Node.js', kind: 'client', code: (v) => `// npm install unleash-client
import { initialize } from 'unleash-client';

const unleash = initialize({
  url: ${sq(v.api)},
  appName: ${sq(v.app)},
  customHeaders: { Authorization: ${sq(v.token)} },
});

unleash.on('synchronized', () => {
  const on = unleash.isEnabled(${sq(v.flag)}, { userId: 'u42' });
  console.log(${sq(`${v.flag} is`)}, on ? 'on' : 'off');
});`,
  },
  {
    id: 'java', label: 'Java', kind: 'client', code: (v) => `// Maven: io.getunleash:unleash-client-java
import io.getunleash.DefaultUnleash;
import io.getunleash.Unleash;
import io.getunleash.UnleashContext;
import io.getunleash.util.UnleashConfig;

UnleashConfig config = UnleashConfig.builder()
    .appName(${q(v.app)})
    .instanceId(java.util.UUID.randomUUID().toString())
    .unleashAPI(${q(v.api)})
    .apiKey(${q(v.token)})
    .synchronousFetchOnInitialisation(true)
    .build();
Unleash unleash = new DefaultUnleash(config);

UnleashContext context = UnleashContext.builder().userId("u42").build();
System.out.println(${q(`${v.flag} is `)} + (unleash.isEnabled(${q(v.flag)}, context) ? "on" : "off"));`,
  },
  {
    id: 'go', label: 'Go', kind: 'client', code: (v) => `// go get github.com/Unleash/unleash-client-go/v4
package main

import (
	"fmt"
	"net/http"

	"github.com/Unleash/unleash-client-go/v4"
	"github.com/Unleash/unleash-client-go/v4/context"
)

func main() {
	unleash.Initialize(
		unleash.WithAppName(${q(v.app)}),
		unleash.WithUrl(${q(v.api)}),
		unleash.WithCustomHeaders(http.Header{"Authorization": {${q(v.token)}}}),
	)
	unleash.WaitForReady()
	on := unleash.IsEnabled(${q(v.flag)}, unleash.WithContext(context.Context{UserId: "u42"}))
	fmt.Println(${q(`${v.flag} is on:`)}, on)
	select {} // keep running: the SDK refreshes and reports in the background
}`,
  },
  {
    id: 'python', label: 'Python', kind: 'client', code: (v) => `# pip install UnleashClient
from UnleashClient import UnleashClient

client = UnleashClient(
    url=${sq(v.api.replace(/\/$/, ''))},
    app_name=${sq(v.app)},
    custom_headers={'Authorization': ${sq(v.token)}},
)
client.initialize_client()

print(${sq(`${v.flag} is on:`)}, client.is_enabled(${sq(v.flag)}, {'userId': 'u42'}))`,
  },
  {
    id: 'dotnet', label: '.NET', kind: 'client', code: (v) => `// dotnet add package Unleash.Client
using Unleash;
using Unleash.ClientFactory;

var settings = new UnleashSettings
{
    AppName = ${q(v.app)},
    UnleashApi = new Uri(${q(v.api)}),
    CustomHttpHeaders = new Dictionary<string, string> { { "Authorization", ${q(v.token)} } },
};
var unleash = await new UnleashClientFactory().CreateClientAsync(settings, synchronousInitialization: true);

var on = unleash.IsEnabled(${q(v.flag)}, new UnleashContext { UserId = "u42" });
Console.WriteLine($${q(`${v.flag} is on: {on}`)});`,
  },
  {
    id: 'ruby', label: 'Ruby', kind: 'client', code: (v) => `# gem install unleash
require 'unleash'

unleash = Unleash::Client.new(
  url: ${sq(v.api.replace(/\/$/, ''))},
  app_name: ${sq(v.app)},
  custom_http_headers: { 'Authorization' => ${sq(v.token)} }
)

context = Unleash::Context.new(user_id: 'u42')
puts unleash.is_enabled?(${sq(v.flag)}, context) ? ${sq(`${v.flag} is on`)} : ${sq(`${v.flag} is off`)}`,
  },
  {
    id: 'php', label: 'PHP', kind: 'client', code: (v) => `<?php
// composer require unleash/client guzzlehttp/guzzle symfony/cache
use Unleash\\Client\\Configuration\\UnleashContext;
use Unleash\\Client\\UnleashBuilder;

$unleash = UnleashBuilder::create()
    ->withAppName(${sq(v.app)})
    ->withAppUrl(${sq(v.api.replace(/\/$/, ''))})
    ->withInstanceId(gethostname())
    ->withHeader('Authorization', ${sq(v.token)})
    ->build();

$context = new UnleashContext(currentUserId: 'u42');
echo ${sq(`${v.flag} is `)} . ($unleash->isEnabled(${sq(v.flag)}, $context) ? 'on' : 'off') . PHP_EOL;`,
  },
  {
    id: 'browser', label: 'Browser (JavaScript)', kind: 'frontend', code: (v) => `// npm install unleash-proxy-client
import { UnleashClient } from 'unleash-proxy-client';

const unleash = new UnleashClient({
  url: ${sq(v.frontend)},
  clientKey: ${sq(v.token)},
  appName: ${sq(v.app)},
  context: { userId: 'u42' },
});
await unleash.start();
console.log(${sq(`${v.flag} is`)}, unleash.isEnabled(${sq(v.flag)}) ? 'on' : 'off');`,
  },
  {
    id: 'react', label: 'React', kind: 'frontend', code: (v) => `// npm install @unleash/proxy-client-react unleash-proxy-client
import { FlagProvider, useFlag } from '@unleash/proxy-client-react';

const config = {
  url: ${sq(v.frontend)},
  clientKey: ${sq(v.token)},
  appName: ${sq(v.app)},
  context: { userId: 'u42' },
};

function Banner() {
  const on = useFlag(${sq(v.flag)});
  return on ? <p>{${sq(`${v.flag} is on`)}}</p> : null;
}

export function App() {
  return (
    <FlagProvider config={config}>
      <Banner />
    </FlagProvider>
  );
}`,
  },
  {
    id: 'ios', label: 'iOS (Swift)', kind: 'frontend', code: (v) => `// Swift Package Manager: https://github.com/Unleash/unleash-proxy-client-swift
import UnleashProxyClientSwift

let unleash = UnleashProxyClientSwift.UnleashClient(
    unleashUrl: ${q(v.frontend)},
    clientKey: ${q(v.token)},
    refreshInterval: 15,
    appName: ${q(v.app)},
    context: ["userId": "u42"]
)
unleash.start()
unleash.subscribe(.ready) {
    print(${q(`${v.flag} is on:`)}, unleash.isEnabled(name: ${q(v.flag)}))
}`,
  },
  {
    id: 'android', label: 'Android (Kotlin)', kind: 'frontend', code: (v) => `// Gradle: implementation("io.getunleash:unleash-android:<version>")
import io.getunleash.android.DefaultUnleash
import io.getunleash.android.UnleashConfig

val unleash = DefaultUnleash(
    androidContext = applicationContext,
    unleashConfig = UnleashConfig.newBuilder(appName = ${q(v.app)})
        .proxyUrl(${q(v.frontend)})
        .clientKey(${q(v.token)})
        .build(),
)
unleash.start()

val on = unleash.isEnabled(${q(v.flag)})`,
  },
  {
    id: 'openfeature-server', reports: false, label: 'OpenFeature (server)', kind: 'client', code: (v) => `// npm install @openfeature/server-sdk @openfeature/ofrep-provider
import { OpenFeature } from '@openfeature/server-sdk';
import { OFREPProvider } from '@openfeature/ofrep-provider';

await OpenFeature.setProviderAndWait(new OFREPProvider({
  baseUrl: ${sq(v.api.replace(/\/api\/$/, ''))},
  headers: [['Authorization', ${sq(`Bearer ${v.token}`)}]],
}));
const flags = OpenFeature.getClient();
console.log(${sq(`${v.flag}:`)}, await flags.getBooleanValue(${sq(v.flag)}, false, { targetingKey: 'u42' }));`,
  },
  {
    id: 'openfeature-web', reports: false, label: 'OpenFeature (web)', kind: 'frontend', code: (v) => `// npm install @openfeature/web-sdk @openfeature/ofrep-web-provider
import { OpenFeature } from '@openfeature/web-sdk';
import { OFREPWebProvider } from '@openfeature/ofrep-web-provider';

await OpenFeature.setContext({ targetingKey: 'u42' });
await OpenFeature.setProviderAndWait(new OFREPWebProvider({
  baseUrl: ${sq(v.frontend.replace(/\/api\/frontend$/, ''))},
  headers: [['Authorization', ${sq(`Bearer ${v.token}`)}]],
}));
console.log(${sq(`${v.flag}:`)}, OpenFeature.getClient().getBooleanValue(${sq(v.flag)}, false));`,
  },
];

/** Every SDK offered, in the order shown. */
export const SDKS: SdkChoice[] = SNIPPETS.map(({ id, label, kind, reports }) => ({ id, label, kind, ...(reports === false ? { reports } : {}) }));

/** What stands for a token the person does not have: which kind, for which environment. */
export function placeholder(kind: TokenKind, environment: string): string {
  return `<${kind} token for ${environment}>`;
}

/** The snippet of SDK `id`, filled in; throws for an SDK not in SDKS. */
export function snippet(id: string, input: SnippetInput): string {
  const sdk = SNIPPETS.find((s) => s.id === id);
  if (!sdk) throw new Error(`No SDK ${id}`);
  const origin = input.origin.replace(/\/+$/, '');
  return sdk.code({
    api: `${origin}/api/`, frontend: `${origin}/api/frontend`, flag: input.flag, app: input.appName,
    token: input.token ?? placeholder(sdk.kind, input.environment),
  });
}
