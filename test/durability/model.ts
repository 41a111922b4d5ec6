// A model of what the crash test's workers did, to check a restarted server against: every
// acknowledged change must be there; the one request per worker that was in flight when the
// process died may be there or not, but never half (its state and its events agree).
import type { Test } from 'tap';
import type { client } from '../helpers/server.js';
import { testRandom } from '../helpers/random.js';

const random = testRandom('durability-model');

export type Api = ReturnType<typeof client>;
export const ENVS = ['development', 'production'] as const;
export type EnvName = (typeof ENVS)[number];
const P = '/api/admin/projects/default/features';

interface EnvModel {
  enabled: boolean;
  /** strategy id → rollout, for strategies the worker created and knows the id of */
  strategies: Map<string, string>;
  /** flexibleRollout 100% strategies added by switching on an environment with none */
  auto: number;
}

export interface FlagModel {
  name: string;
  description: string;
  envs: Record<EnvName, EnvModel>;
  events: number;
}

export function cloneFlag(f: FlagModel): FlagModel {
  const envs = {} as Record<EnvName, EnvModel>;
  for (const e of ENVS) envs[e] = { ...f.envs[e], strategies: new Map(f.envs[e].strategies) };
  return { ...f, envs };
}

function newFlag(name: string, description: string): FlagModel {
  const envs = {} as Record<EnvName, EnvModel>;
  for (const e of ENVS) envs[e] = { enabled: false, strategies: new Map(), auto: 0 };
  return { name, description, envs, events: 1 };
}

/** The state a flag is compared in: what a GET shows, in a canonical order. */
export function viewOf(f: FlagModel | null): string {
  if (!f) return 'absent';
  return JSON.stringify({
    description: f.description,
    envs: ENVS.map((e) => ({
      env: e,
      enabled: f.envs[e].enabled,
      strategies: [...f.envs[e].strategies.entries()].sort(([a], [b]) => (a < b ? -1 : 1)),
      auto: f.envs[e].auto,
    })),
    events: f.events,
  });
}

/** One request and its effect on the model once acknowledged. */
export interface Step {
  flag: string;
  describe: string;
  send(api: Api): Promise<{ status: number; json: any }>;
  /** Applies the acknowledged response to the model (null = the flag is created). */
  apply(f: FlagModel | null, res: { json: any }): FlagModel;
  /** For a request whose response was lost: the response it would have had, read off the server's state. */
  lostResponse?(before: FlagModel | null, now: FlagModel | null): { json: any };
}

let seq = 0;
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];

/** A random next request for a worker that owns `flags` (only ever touched by that worker). */
export function nextStep(prefix: string, flags: Map<string, FlagModel>): Step {
  const names = [...flags.keys()];
  const roll = random();
  if (names.length === 0 || roll < 0.15) {
    const name = `${prefix}-${++seq}`;
    const description = `created ${seq}`;
    return {
      flag: name, describe: `create ${name}`,
      send: (api) => api('POST', P, { name, description }),
      apply: () => newFlag(name, description),
    };
  }
  const f = flags.get(pick(names))!;
  const env = pick(ENVS);
  const e = f.envs[env];
  const base = `${P}/${f.name}/environments/${env}`;
  if (roll < 0.45) {
    const rollout = String(Math.floor(random() * 100));
    return {
      flag: f.name, describe: `add strategy ${f.name}/${env}`,
      send: (api) => api('POST', `${base}/strategies`, { name: 'flexibleRollout', parameters: { rollout, stickiness: 'default', groupId: f.name } }),
      lostResponse: (before, now) => ({
        json: { id: [...(now?.envs[env].strategies.keys() ?? [])].find((id) => !before!.envs[env].strategies.has(id)) ?? 'none' },
      }),
      apply: (m, res) => {
        const n = cloneFlag(m!);
        n.envs[env].strategies.set(res.json.id, rollout);
        n.events += 1;
        return n;
      },
    };
  }
  if (roll < 0.6 && e.strategies.size > 0) {
    const id = pick([...e.strategies.keys()]);
    const rollout = String((Number(e.strategies.get(id)) + 1 + Math.floor(random() * 98)) % 100); // never the current value
    return {
      flag: f.name, describe: `update strategy ${id}`,
      send: (api) => api('PUT', `${base}/strategies/${id}`, { name: 'flexibleRollout', parameters: { rollout, stickiness: 'default', groupId: f.name } }),
      apply: (m) => {
        const n = cloneFlag(m!);
        n.envs[env].strategies.set(id, rollout);
        n.events += 1;
        return n;
      },
    };
  }
  if (roll < 0.7 && e.strategies.size > 0) {
    const id = pick([...e.strategies.keys()]);
    return {
      flag: f.name, describe: `delete strategy ${id}`,
      send: (api) => api('DELETE', `${base}/strategies/${id}`),
      apply: (m) => {
        const n = cloneFlag(m!);
        const ne = n.envs[env];
        ne.strategies.delete(id);
        n.events += 1;
        // Deleting the last enabled strategy switches the environment off, in the same record.
        if (ne.enabled && ne.strategies.size === 0 && ne.auto === 0) {
          ne.enabled = false;
          n.events += 1;
        }
        return n;
      },
    };
  }
  if (roll < 0.9) {
    const enable = !e.enabled;
    return {
      flag: f.name, describe: `${enable ? 'on' : 'off'} ${f.name}/${env}`,
      send: (api) => api('POST', `${base}/${enable ? 'on' : 'off'}`),
      apply: (m) => {
        const n = cloneFlag(m!);
        const ne = n.envs[env];
        // Switching on with no strategy adds flexibleRollout 100% first, in the same record.
        if (enable && ne.strategies.size === 0 && ne.auto === 0) {
          ne.auto++;
          n.events += 1;
        }
        ne.enabled = enable;
        n.events += 1;
        return n;
      },
    };
  }
  const description = `edited ${++seq}`;
  return {
    flag: f.name, describe: `patch ${f.name}`,
    send: (api) => api('PATCH', `${P}/${f.name}`, [{ op: 'replace', path: '/description', value: description }]),
    apply: (m) => {
      const n = cloneFlag(m!);
      n.description = description;
      n.events += 1;
      return n;
    },
  };
}

/** What the server holds for a flag, in the model's shape (null when it does not exist). */
export async function observe(api: Api, name: string): Promise<FlagModel | null> {
  const res = await api('GET', `${P}/${name}`);
  if (res.status === 404) return null;
  if (res.status !== 200) throw new Error(`GET ${name}: ${res.status} ${JSON.stringify(res.json)}`);
  const f = newFlag(name, res.json.description);
  const envNames = res.json.environments.map((e: any) => e.name).sort();
  if (JSON.stringify(envNames) !== JSON.stringify([...ENVS].sort())) {
    throw new Error(`flag ${name} is half-created: environments ${envNames.join(',')}`);
  }
  for (const e of res.json.environments) {
    const m = f.envs[e.name as EnvName];
    m.enabled = e.enabled;
    for (const s of e.strategies) {
      // Strategies added by "on" have ids the worker never saw: they are the only 100% ones
      // (workers choose rollouts 0..99).
      if (s.parameters.rollout === '100') m.auto++;
      else m.strategies.set(s.id, s.parameters.rollout);
    }
  }
  const ev = await api('POST', '/api/admin/events/search', { feature: name, limit: 1 });
  f.events = ev.json.totalEvents;
  return f;
}


export interface Worker {
  flags: Map<string, FlagModel>;
  /** The request in flight when the server died, if any. */
  pending: Step | null;
  touched: Set<string>;
  acked: number;
  /** Requests answered 503 (see runWorker's tolerate503). */
  refused: number;
}

export const newWorker = (): Worker => ({ flags: new Map(), pending: null, touched: new Set(), acked: 0, refused: 0 });

/** Flags not touched since the last check that verify samples, besides the touched ones (all on the last check). */
const SAMPLE_UNTOUCHED = 25;

/**
 * Sends the worker's requests one after another until `stop.dead`. A request whose connection
 * died stays pending (outcome unknown); so does one answered 503 when `tolerate503` (a cluster
 * node cut off from its database: nothing was changed, or it says it cannot tell), which also
 * ends the worker's run. Any other non-2xx fails the test.
 */
export async function runWorker(api: Api, w: Worker, prefix: string, stop: { dead: boolean }, t: Test, opts: { tolerate503?: boolean } = {}): Promise<void> {
  while (!stop.dead) {
    const step = nextStep(prefix, w.flags);
    w.pending = step;
    w.touched.add(step.flag);
    let res;
    try {
      res = await step.send(api);
    } catch {
      return; // the connection died with the server: outcome unknown, stays pending
    }
    if (res.status === 503 && opts.tolerate503) {
      w.refused++;
      return;
    }
    if (res.status < 200 || res.status >= 300) {
      t.fail(`${step.describe}: unexpected ${res.status} ${JSON.stringify(res.json)}`);
      w.pending = null;
      continue;
    }
    w.flags.set(step.flag, step.apply(w.flags.get(step.flag) ?? null, res));
    w.pending = null;
    w.acked++;
  }
}

/** Compares the restarted server with the model and settles each worker's pending request. */
export async function verify(t: Test, api: Api, workers: Worker[], all: boolean): Promise<{ pendingApplied: number; pendingLost: number }> {
  let pendingApplied = 0;
  let pendingLost = 0;
  for (const w of workers) {
    const names = new Set(w.touched);
    const others = [...w.flags.keys()].filter((n) => !names.has(n));
    const sample = all ? others : others.sort(() => random() - 0.5).slice(0, SAMPLE_UNTOUCHED);
    for (const n of sample) names.add(n);
    for (const name of names) {
      const actual = await observe(api, name);
      const acked = w.flags.get(name) ?? null;
      if (viewOf(actual) === viewOf(acked)) {
        if (w.pending?.flag === name) pendingLost++;
        continue;
      }
      const p = w.pending;
      if (p && p.flag === name) {
        const res = p.lostResponse ? p.lostResponse(acked, actual) : { json: {} };
        const after = p.apply(acked, res);
        if (viewOf(actual) === viewOf(after)) {
          w.flags.set(name, after);
          pendingApplied++;
          continue;
        }
        t.fail(`${name}: neither the acknowledged state nor it plus the in-flight "${p.describe}"`, {
          actual: viewOf(actual), acknowledged: viewOf(acked), withInFlight: viewOf(after),
        });
        continue;
      }
      t.fail(`${name}: an acknowledged change is missing or something unacknowledged appeared`, { actual: viewOf(actual), acknowledged: viewOf(acked) });
    }
    w.pending = null;
    w.touched.clear();
  }
  return { pendingApplied, pendingLost };
}

/** Every event, newest first, through the search cursor: ids must be N, N-1, … 1. */
export async function checkAllEventIds(t: Test, api: Api): Promise<number> {
  const ids: number[] = [];
  let offset = 0;
  let total = -1;
  for (;;) {
    const res = await api('POST', '/api/admin/events/search', { limit: 100, ...(offset ? { offset } : {}) });
    t.equal(res.status, 200);
    total = res.json.totalEvents;
    const page: number[] = res.json.events.map((e: any) => e.id);
    ids.push(...page);
    if (page.length < 100 || page[page.length - 1] === 1) break;
    offset = page[page.length - 1] - 1;
  }
  const expected = Array.from({ length: ids.length }, (_, i) => ids.length - i);
  t.ok(ids.length === total && JSON.stringify(ids) === JSON.stringify(expected), `event ids are ${ids.length}..1 without gaps or repeats`);
  return ids.length;
}
