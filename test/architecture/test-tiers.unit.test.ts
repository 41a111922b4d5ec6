// The fast tier (`npm run test:unit`) is every `*.unit.test.ts` file, and only those: tests that
// start no process, open no socket, drive no browser and need no PostgreSQL. This file keeps the
// naming honest in both directions by reading the imports of every test file and of the test/
// modules it uses (helpers, fixtures), transitively:
//   - a unit test may not reach a module that does such I/O (a helper that spawns Fanion, a
//     browser, a database, a relay; node:child_process, node:net, node:http, ...);
//   - a test file that reaches none is a unit test and must be named so, or be listed in NOT_UNIT
//     with the reason, so the fast tier does not quietly lose tests as new ones are added.
// `import type` brings no code and is ignored. What src/ modules do when called is not visible
// here: test/helpers/unit-guard.ts refuses processes, sockets and lookups at run time in unit files.
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import t from 'tap';
import { ROOT } from '../helpers/paths.js';

const TEST = path.join(ROOT, 'test');

// Modules a unit test may not reach: they exist to start processes, servers, browsers or
// connections (the libraries here are the SDKs, browser and database drivers the other tests use).
const IO_BUILTINS = ['child_process', 'cluster', 'net', 'http', 'https', 'http2', 'tls', 'dgram', 'dns'];
const IO_PACKAGES = ['playwright-core', 'pg', 'esbuild', 'unleash-client', 'unleash-proxy-client', '@unleash/proxy', 'oidc-provider', '@openfeature/ofrep-provider', '@openfeature/ofrep-web-provider', 'autocannon'];
// src/ modules whose point is to listen or to run the program; other src/ modules are pure or take
// their I/O as parameters, and are not followed.
const IO_SOURCES = ['src/entry/server.ts', 'src/entry/main.ts', 'src/entry/cli.ts'];

// Test files that reach none of the above yet are not unit tests, and why.
const NOT_UNIT: Record<string, string> = {
  'test/concepts/webhooks/destination.test.ts': 'asks the system resolver for localhost and for a .invalid name',
};

function files(dir: string, ending = '.ts'): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? files(p, ending) : e.name.endsWith(ending) ? [p] : [];
  });
}

const rel = (file: string) => path.relative(ROOT, file);

/** The modules a file imports for their code: `import type` and `import { type A }` left out. */
function valueImports(text: string): string[] {
  const specs: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\s+([^'";]*?)\s*from\s*['"]([^'"]+)['"]/g)) {
    const clause = m[1].trim();
    const names = /^\{([^}]*)\}$/.exec(clause)?.[1].split(',').map((s) => s.trim()).filter(Boolean);
    const typeOnly = /^type\s/.test(clause) || (names !== undefined && names.length > 0 && names.every((n) => n.startsWith('type ')));
    if (!typeOnly) specs.push(m[2]);
  }
  for (const m of text.matchAll(/(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g)) specs.push(m[1]);
  for (const m of text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) specs.push(m[1]);
  return specs;
}

/** What `spec`, imported from `from`, is: a test/ module to follow, or I/O (a name), or neither. */
function classify(from: string, spec: string): { follow: string } | { io: string } | null {
  if (spec.startsWith('.')) {
    const target = path.resolve(path.dirname(from), spec.replace(/\.js$/, '.ts'));
    if (target.startsWith(TEST + path.sep)) return { follow: target };
    return IO_SOURCES.includes(rel(target)) ? { io: rel(target) } : null;
  }
  const bare = spec.replace(/^node:/, '');
  const top = bare.split('/')[0];
  if (builtinModules.includes(top)) return IO_BUILTINS.includes(top) ? { io: `node:${top}` } : null;
  const pkg = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : top;
  return IO_PACKAGES.includes(pkg) ? { io: pkg } : null;
}

/** The first way `file` reaches I/O, as an import chain ending in the module, or null. */
function ioPath(file: string, seen = new Set<string>()): string[] | null {
  if (seen.has(file)) return null;
  seen.add(file);
  for (const spec of valueImports(fs.readFileSync(file, 'utf8'))) {
    const what = classify(file, spec);
    if (what === null) continue;
    if ('io' in what) return [rel(file), what.io];
    const further = ioPath(what.follow, seen);
    if (further) return [rel(file), ...further];
  }
  return null;
}

const tests = files(TEST).filter((f) => f.endsWith('.test.ts'));
const units = tests.filter((f) => f.endsWith('.unit.test.ts'));

t.test('no unit test reaches a process, a socket, a browser or a database', async (t) => {
  t.ok(units.length >= 40, `${units.length} unit test files of ${tests.length}`);
  const wrong = units.map((f) => ioPath(f)).filter((p) => p !== null).map((p) => p.join(' -> '));
  t.same(wrong, [], 'each of these is not a unit test: rename it to <name>.test.ts, or take the I/O out');
});

t.test('a test that reaches no I/O is a unit test, or says why not', async (t) => {
  const others = tests.filter((f) => !f.endsWith('.unit.test.ts'));
  const pure = others.filter((f) => ioPath(f) === null).map(rel);
  t.same(pure.filter((f) => !(f in NOT_UNIT)), [], 'rename these to <name>.unit.test.ts (or list them in NOT_UNIT with the reason)');
  t.same(Object.keys(NOT_UNIT).filter((f) => !pure.includes(f)), [], 'every NOT_UNIT entry is a test file that would otherwise be taken for one');
  t.comment(`${others.length - pure.length} test files reach I/O; ${pure.length} listed in NOT_UNIT`);
});

t.test('the check sees I/O through helpers and ignores what only brings types', async (t) => {
  const file = (p: string) => path.join(TEST, p);
  t.same(ioPath(file('helpers/relay.ts'))?.slice(-1), ['node:http'], 'a helper that starts a relay');
  t.same(ioPath(file('helpers/server.ts'))?.slice(-1), ['node:child_process'], 'the helper that spawns Fanion');
  t.same(ioPath(file('helpers/in-process-server.ts'))?.slice(-1), ['node:child_process'], 'the in-process server (its compositions reach a process spawn before the HTTP server)');
  t.same(ioPath(file('helpers/browser.ts'))?.slice(-1), ['playwright-core']);
  t.same(ioPath(file('helpers/postgres.ts'))?.slice(-1), ['node:child_process']);
  t.same(ioPath(file('helpers/ui-module.ts'))?.slice(-1), ['esbuild'], 'esbuild runs its own process');
  t.same(ioPath(file('helpers/bounded.ts')), ['test/helpers/bounded.ts', 'test/helpers/server.ts', 'node:child_process'], 'through another helper');
  t.equal(ioPath(file('helpers/paths.ts')), null);
  t.same(valueImports(`import type { IncomingMessage } from 'node:http';\nimport { type LookupAddress } from 'node:dns';`), []);
  t.same(valueImports(`import {\n  spawn,\n  type ChildProcess,\n} from 'node:child_process';\nimport 'node:net';\nawait import('yaml');`), ['node:child_process', 'node:net', 'yaml']);
});

t.test('every compiled test file comes from a test in test/, so none runs twice or after its removal', async (t) => {
  // tsc never deletes an output: a renamed test's old .js stays in dist/ and tap would run it too.
  const compiled = files(path.join(ROOT, 'dist/test'), '.test.js');
  t.ok(compiled.length >= tests.length, `${compiled.length} compiled test files`);
  const stale = compiled.map((f) => rel(f).replace(/^dist\//, '').replace(/\.js$/, '.ts')).filter((f) => !fs.existsSync(path.join(ROOT, f)));
  t.same(stale, [], 'these outputs have no source any more: remove dist/ and compile again');
});

t.test('npm run test:unit runs the unit files under the run-time guard; npm test runs every file once', async (t) => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  t.match(pkg.scripts['test:unit'], /tap .*'dist\/test\/\*\*\/\*\.unit\.test\.js'/);
  t.same(pkg.tap.include, ['dist/test/**/*.test.js'], 'the whole suite includes the unit files');
  t.ok((pkg.tap['node-arg'] as string[]).includes('--import=./dist/test/helpers/unit-guard.js'), 'every test process loads the guard');
});
