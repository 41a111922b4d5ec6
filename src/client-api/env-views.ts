// Per environment, one serialized JSON fragment per live flag. The engine's change feed marks
// the (flag, environment) pairs a change touched (as the shared Toucher reads them); they are
// re-serialized lazily on the next request, and nothing else is. A fragment whose bytes did not change keeps its identity, which
// is what lets the response cache (snapshot.ts) reuse its blocks.
import type { StateChange } from '../state/change.js';
import type { State } from '../state/state.js';
import { segmentUsers, Toucher } from '../state/touch.js';
import type { Feature } from '../state/types.js';
import { cutAfter, type Fragment } from './blocks.js';
import { clientFeature } from './record.js';

export interface EnvView {
  fragments: Map<string, Fragment>;
  /** The same fragments sorted by name: the order of the response. */
  ordered: Fragment[];
  dirty: Set<string>;
  allDirty: boolean;
  /** Set when which flags a filter selects may have changed without any fragment changing (tags). */
  filtersChanged: boolean;
  /** From one clock shared by all views, so a view dropped and rebuilt never repeats a value. */
  generation: number;
}

function position(list: Fragment[], name: string): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid].name < name) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const byName = (a: Fragment, b: Fragment) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** The fragments of every environment asked for so far, and what changes made stale. */
export class EnvViews {
  private readonly views = new Map<string, EnvView>();
  /** From one clock shared by all views, so a view dropped and rebuilt never repeats a generation. */
  private clock = 0;
  /** Fragments serialized so far: shows that one change costs one. */
  serialized = 0;

  /** `toucher` tells which flags a change touched (shared with the other readers of changes). */
  constructor(private readonly state: State, private readonly toucher: Toucher = new Toucher(state)) {}

  get size(): number {
    return this.views.size;
  }

  /** The engine's change listener: marks what a record touched; the work happens on the next read. */
  onChange(rec: StateChange, kind: 'applied' | 'durable' | 'rolled-back'): void {
    if (kind === 'rolled-back') {
      // A rollback undoes this record and every later one, but is reported once: start over.
      this.toucher.rolledBack(rec);
      this.markEverything();
      return;
    }
    // Polls are served from the state as applied; durability adds nothing here.
    if (kind === 'durable') return;
    const touch = this.toucher.touchOf(rec);
    if (touch.everything) {
      this.markEverything();
      return;
    }
    for (const [name, t] of touch.flags) {
      if (t.environments === null) this.markFlag(name);
      else for (const environment of t.environments) this.markFlagEnv(name, environment);
      // Which flags a tag filter selects may change with no fragment changing.
      if (t.tags) for (const v of this.views.values()) v.filtersChanged = true;
    }
    // Segments are inlined into the strategies that name them.
    for (const { flag, environment } of segmentUsers(this.state, touch.segments.keys())) this.markFlagEnv(flag, environment);
    for (const environment of touch.environments) {
      const v = this.views.get(environment);
      if (v) v.allDirty = true;
    }
  }

  /** The environment's view with every pending change serialized. */
  fresh(environment: string): EnvView {
    let view = this.views.get(environment);
    if (view === undefined) {
      view = { fragments: new Map(), ordered: [], dirty: new Set(), allDirty: true, filtersChanged: false, generation: 0 };
      this.views.set(environment, view);
    }
    if (view.allDirty) {
      view.fragments.clear();
      for (const f of this.state.features.values()) {
        if (!f.archived) view.fragments.set(f.name, this.fragment(f, environment));
      }
      view.ordered = [...view.fragments.values()].sort(byName);
      view.dirty.clear();
      view.allDirty = false;
      view.filtersChanged = false;
      view.generation = ++this.clock;
      return view;
    }
    if (view.dirty.size === 0 && !view.filtersChanged) return view;
    let changed = view.filtersChanged;
    for (const name of view.dirty) {
      const f = this.state.features.get(name);
      const old = view.fragments.get(name);
      if (!f || f.archived) {
        if (old) {
          view.fragments.delete(name);
          view.ordered.splice(position(view.ordered, name), 1);
          changed = true;
        }
        continue;
      }
      const frag = this.fragment(f, environment);
      if (!old) {
        view.ordered.splice(position(view.ordered, name), 0, frag);
      } else if (old.bytes.equals(frag.bytes) && old.project === frag.project) {
        continue;
      } else {
        view.ordered[position(view.ordered, name)] = frag;
      }
      view.fragments.set(name, frag);
      changed = true;
    }
    view.dirty.clear();
    view.filtersChanged = false;
    if (changed) view.generation = ++this.clock;
    return view;
  }

  private markFlag(name: string): void {
    for (const v of this.views.values()) v.dirty.add(name);
  }

  private markFlagEnv(name: string, environment: string): void {
    this.views.get(environment)?.dirty.add(name);
  }

  private markEverything(): void {
    for (const v of this.views.values()) v.allDirty = true;
  }

  private fragment(f: Feature, environment: string): Fragment {
    const bytes = Buffer.from(JSON.stringify(clientFeature(this.state, f, environment)));
    this.serialized++;
    return { name: f.name, bytes, project: f.project, cut: cutAfter(f.name) };
  }
}
