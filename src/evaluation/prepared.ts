// Flags prepared for evaluation, per environment, kept up to date by the engine's change feed:
// a change marks the flags it touched, and only those are prepared again, on the next request
// for that environment. Each environment has a generation that moves whenever one of its flags
// changes, so answers cached for a context can tell they are stale.
import type { StateChange } from '../state/change.js';
import { strategiesOf, type State } from '../state/state.js';
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
  private owners = new Map<string, { flag: string; environment: string }>();
  private clock = 0;
  /** Flags prepared so far: shows that a change costs the flags it touched. */
  prepared = 0;

  constructor(private readonly state: State, private readonly hostname: string) {
    this.resync();
  }

  private resync(): void {
    this.owners = new Map();
    for (const s of this.state.strategies.values()) this.owners.set(s.id, { flag: s.featureName, environment: s.environment });
  }

  /** The engine's change listener: marks what changed; preparing waits for the next request. */
  onChange(rec: StateChange, kind: 'applied' | 'durable' | 'rolled-back'): void {
    if (kind === 'durable') return;
    if (kind === 'rolled-back') {
      this.resync();
      for (const e of this.envs.values()) e.all = true;
      return;
    }
    const mark = (flag: string, environment: string | null) => {
      for (const [name, e] of this.envs) if (environment === null || environment === name) e.dirty.add(flag);
    };
    for (const op of rec.ops) {
      switch (op.o) {
        case 'feature.put': mark(op.feature.name, null); break;
        case 'feature.del': mark(op.name, null); break;
        case 'featureEnv.put': mark(op.feature, op.env.environment); break;
        case 'featureEnv.del': mark(op.feature, op.environment); break;
        case 'strategy.put':
          this.owners.set(op.strategy.id, { flag: op.strategy.featureName, environment: op.strategy.environment });
          mark(op.strategy.featureName, op.strategy.environment);
          break;
        case 'strategy.del': {
          const owner = this.owners.get(op.id);
          this.owners.delete(op.id);
          if (owner) mark(owner.flag, owner.environment);
          else for (const e of this.envs.values()) e.all = true;
          break;
        }
        // Segments are folded into the strategies that name them: prepare the environment again.
        case 'segment.put':
        case 'segment.del':
        case 'env.put':
        case 'env.del':
          for (const e of this.envs.values()) e.all = true;
          break;
        default:
          break;
      }
    }
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
    return prepareFlag(f, environment, strategiesOf(this.state, name, environment), this.state.featureEnvs.get(name)?.get(environment), this.state.segments, this.hostname);
  }
}
