// What a limited admin token's event search costs: an in-process EventLog of EVENTS events
// (default 1,000,000) in 100 projects, searched through searchVisible (what the route calls) for
// an unlimited token, a person who is not an Admin, a token of one project, of 50 of the 100,
// and of one environment. In
// process, so the figures are the search alone, not HTTP or JSON.
//   npm run bench:events-visible            (EVENTS=200000 for a quick run)
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import type { AdminView } from '../src/core/access/access.js';
import { EventLog, type EventFilter } from '../src/core/state/events/event-log.js';
import { searchVisible } from '../src/concepts/events/search-visible.js';
import type { EventRecord } from '../src/core/state/types.js';

const EVENTS = Number(process.env.EVENTS ?? 1_000_000);
const PROJECTS = 100;
const FLAGS = 20_000;
const RUNS = 11;

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * The mix of bench/event-search.ts (strategy edits, on/off, metadata; 0.1 % of no project, half of
 * them about people and tokens), over 100 projects.
 */
function makeEvent(r: () => number, id: number): EventRecord {
  const flag = Math.floor(r() * FLAGS);
  const featureName = `flag-${flag}`;
  const project = `project-${flag % PROJECTS}`;
  const environment = r() < 0.5 ? 'development' : 'production';
  const strategy = () => ({
    name: 'flexibleRollout', featureName, sortOrder: 0, segments: [],
    constraints: r() < 0.5 ? [] : [{ contextName: 'country', operator: 'IN', values: ['NO', 'SE', 'DK'] }],
    parameters: { rollout: String(Math.floor(r() * 101)), stickiness: 'default', groupId: featureName },
  });
  const base = {
    id, createdAt: new Date(Date.UTC(2026, 0, 1) + id * 1000).toISOString(), createdBy: ['admin', 'alice@example.com', 'deploy-bot'][Math.floor(r() * 3)],
    createdByUserId: null, environment: null as string | null, project: project as string | null, featureName: featureName as string | null,
    data: null as unknown, preData: null as unknown, tags: null,
  };
  const x = r();
  if (x < 0.3) return { ...base, type: 'feature-strategy-add', environment, data: strategy() };
  if (x < 0.5) return { ...base, type: 'feature-strategy-update', environment, data: strategy(), preData: strategy() };
  if (x < 0.6) return { ...base, type: 'feature-strategy-remove', environment, preData: strategy() };
  if (x < 0.75) return { ...base, type: r() < 0.5 ? 'feature-environment-enabled' : 'feature-environment-disabled', environment };
  if (x < 0.9) return { ...base, type: 'feature-metadata-updated', data: { name: featureName, stale: true }, preData: { name: featureName, stale: false } };
  if (x < 0.999) return { ...base, type: 'feature-created', data: { name: featureName, project, description: `Flag ${flag} of the checkout team` } };
  if (x < 0.9995) return { ...base, type: 'segment-created', project: null, featureName: null, data: { name: `segment-${id}`, constraints: [] } };
  // Events only those who may list people and tokens see (ADMIN_ONLY_EVENT_TYPES).
  return { ...base, type: r() < 0.5 ? 'user-updated' : 'api-token-created', project: null, featureName: null, data: { email: `person-${id}@example.com`, rootRole: 'Editor' } };
}

/** Different spellings of one word, so no run is answered from the log's cache of recent scans. */
const spelling = (word: string, i: number) => [...word].map((c, k) => ((i >> k) & 1 ? c.toUpperCase() : c)).join('');

function main() {
  const started = performance.now();
  const log = new EventLog();
  const r = rng(1);
  for (let id = 1; id <= EVENTS; id++) log.append(makeEvent(r, id));
  console.log(`built ${EVENTS.toLocaleString('en')} events in ${((performance.now() - started) / 1000).toFixed(1)} s; heap ${Math.round(process.memoryUsage().heapUsed / 2 ** 20)} MB`);

  const views: [string, AdminView][] = [
    ['unlimited', { projects: ['*'], environment: '*' }],
    // A person who is not an Admin: everything but the events about people, tokens and webhooks.
    ['every project, no people or token events', { projects: ['*'], environment: '*', hideAdminEvents: true }],
    ['1 project', { projects: ['project-7'], environment: '*' }],
    ['50 of 100 projects', { projects: Array.from({ length: 50 }, (_, i) => `project-${i * 2 + 1}`), environment: '*' }],
    ['every project, 1 environment', { projects: ['*'], environment: 'production' }],
    ['1 project, 1 environment', { projects: ['project-7'], environment: 'production' }],
  ];
  const cases: [string, (i: number) => EventFilter][] = [
    ['no filter', () => ({})],
    ['type (30 %)', () => ({ type: 'feature-strategy-add' })],
    // Flags of project-7, which every limited token here holds: 7, 107, 207, …
    ['feature', (i) => ({ feature: `flag-${7 + ((i * 37) % (FLAGS / PROJECTS)) * PROJECTS}` })],
    ['query "rollout" (60 %)', (i) => ({ query: spelling('rollout', i) })],
    ['query, rare (a flag name)', (i) => ({ query: `flag-${7 + ((i * 37 + 11) % (FLAGS / PROJECTS)) * PROJECTS}"` })],
  ];
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`\n| token | ${cases.map(([c]) => c).join(' | ')} |\n|---|${cases.map(() => '---|').join('')}`);
  const results: Record<string, Record<string, { ms: number; total: number }>> = {};
  for (const [v, [label, view]] of views.entries()) {
    // Each view its own run numbers: a query string is never searched twice in the whole bench.
    const n = (run: number) => v * (RUNS + 2) + run;
    const row: string[] = [];
    results[label] = {};
    for (const [name, filter] of cases) {
      for (let w = 0; w < 2; w++) searchVisible(log, filter(n(RUNS + w)), 100, 0, view); // warm-up, with filters the runs do not use
      const times: number[] = [];
      let total = 0;
      for (let i = 0; i < RUNS; i++) {
        const t0 = performance.now();
        total = searchVisible(log, filter(n(i)), 100, 0, view).total;
        times.push(performance.now() - t0);
      }
      results[label][name] = { ms: med(times), total };
      row.push(`${med(times).toFixed(1)} (${total.toLocaleString('en')})`);
    }
    console.log(`| ${label} | ${row.join(' | ')} |`);
  }
  console.log(`\nmedian ms of ${RUNS} runs (totalEvents of the last); load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')} (${os.cpus().length} cores)`);
  console.log(JSON.stringify({ events: EVENTS, results }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
