// Flags prepared for evaluation, per environment, kept up to date by the engine's change feed:
// a change marks the flags it touched, and only those are prepared again, on the next request
// for that environment. Each environment has a generation that moves whenever one of its flags
// changes, so answers cached for a context can tell they are stale.
import type { StateChange } from '../../core/state/change.js';
import { servedStrategiesOf, type State } from '../../core/state/state.js';
import { segmentUsers, Toucher } from '../../core/state/touch.js';
import { prepareFlag, type PreparedFlag } from './evaluate.js';

export interface PreparedEnv {
  flags: Map<string, PreparedFlag>;
  /** Live flags by name, in name order. */
  ordered: PreparedFlag[];
  generation: number;
}

interface Entry extends PreparedEnv {
  dirty: Set<string>;
  all: boolean;
}

const byName = (a: PreparedFlag, b: PreparedFlag) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

export class PreparedFlags {
  private readonly envs = new Map<string, Entry>();
  private clock = 0;
  /** Flags prepared so far: shows that a change costs the flags it touched. */
  prepared = 0;

  /** `toucher` tells which flags a change touched (shared with the other readers of changes). */
  constructor(private readonly state: State, private readonly hostname: string, private readonly toucher: Toucher = new Toucher(state)) {}

  /** The engine's change listener: marks what changed; preparing waits for the next request. */
  onChange(rec: StateChange, kind: 'applied' | 'durable' | 'rolled-back'): void {
    if (kind === 'durable') return;
    if (kind === 'rolled-back') {
      this.toucher.rolledBack(rec);
      for (const e of this.envs.values()) e.all = true;
      return;
    }
    const touch = this.toucher.touchOf(rec);
    const mark = (flag: string, environment: string | null) => {
      for (const [name, e] of this.envs) if (environment === null || environment === name) e.dirty.add(flag);
    };
    for (const [name, t] of touch.flags) {
      if (t.environments === null) mark(name, null);
      else for (const environment of t.environments) mark(name, environment);
    }
    // Segments are folded into the strategies that name them.
    for (const { flag, environment } of segmentUsers(this.state, touch.segments.keys())) mark(flag, environment);
    for (const [name, e] of this.envs) if (touch.everything || touch.environments.has(name)) e.all = true;
  }

  /** The environment's flags, prepared. */
  env(environment: string): PreparedEnv {
    let e = this.envs.get(environment);
    if (!e) {
      e = { flags: new Map(), ordered: [], generation: 0, dirty: new Set(), all: true };
      this.envs.set(environment, e);
    }
    if (e.all) {
      e.flags = new Map();
      for (const f of this.state.features.values()) if (!f.archived) e.flags.set(f.name, this.prepare(f.name, environment)!);
      e.ordered = [...e.flags.values()].sort(byName);
      e.all = false;
      e.dirty.clear();
      e.generation = ++this.clock;
      return e;
    }
    if (e.dirty.size === 0) return e;
    for (const name of e.dirty) {
      const p = this.prepare(name, environment);
      if (p) e.flags.set(name, p);
      else e.flags.delete(name);
    }
    e.dirty.clear();
    e.ordered = [...e.flags.values()].sort(byName);
    e.generation = ++this.clock;
    return e;
  }

  private prepare(name: string, environment: string): PreparedFlag | null {
    const f = this.state.features.get(name);
    if (!f || f.archived) return null;
    this.prepared++;
    return prepareFlag(f, environment, servedStrategiesOf(this.state, name, environment), this.state.featureEnvs.get(name)?.get(environment), this.state.segments, this.hostname);
  }
}
