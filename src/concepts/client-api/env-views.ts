// Per environment, one serialized JSON fragment per live flag. The engine's change feed marks
// the (flag, environment) pairs a change touched (as the shared Toucher reads them); they are
// re-serialized lazily on the next request, and nothing else is. A fragment whose bytes did not change keeps its identity, which
// is what lets the response cache (snapshot.ts) reuse its blocks.
import type { StateChange } from '../../core/state/change.js';
import type { State } from '../../core/state/state.js';
import { segmentUsers, Toucher } from '../../core/state/touch.js';
import type { Feature } from '../../core/state/types.js';
import { cutAfter, type Fragment } from './blocks.js';
import { clientFeature } from './record.js';
import type { Slicer } from '../../core/slices.js';

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

/** `ordered` with a few fragments replaced, added (by name) or removed (null). */
function spliced(ordered: Fragment[], changed: Map<string, Fragment | null>): Fragment[] {
  for (const [name, frag] of changed) {
    const at = position(ordered, name);
    const here = ordered[at]?.name === name;
    if (frag === null) {
      if (here) ordered.splice(at, 1);
    } else if (here) ordered[at] = frag;
    else ordered.splice(at, 0, frag);
  }
  return ordered;
}

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

  /** The environment's view if nothing waits to be serialized in it; null otherwise. */
  ifFresh(environment: string): EnvView | null {
    const view = this.views.get(environment);
    return view !== undefined && !view.allDirty && view.dirty.size === 0 && !view.filtersChanged ? view : null;
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

  /**
   * What `fresh` does for every view, a slice at a time with pauses between, for after a large
   * change (an import of 50,000 flags: serializing them at the next poll held the event loop for
   * most of a second). New fragments are gathered aside and the view takes them at once at the
   * end, so a reader between two slices finds it as it was. Changes marked meanwhile are taken
   * too: it returns when nothing is left to serialize.
   */
  async freshenInSlices(slicer: Slicer): Promise<void> {
    for (const [environment, view] of this.views) {
      while (view.allDirty || view.dirty.size > 0 || view.filtersChanged) {
        if (view.allDirty) await this.rebuildInSlices(environment, view, slicer);
        else await this.updateInSlices(environment, view, slicer);
      }
    }
  }

  private async rebuildInSlices(environment: string, view: EnvView, slicer: Slicer): Promise<void> {
    view.allDirty = false;
    view.dirty.clear();
    view.filtersChanged = false;
    const fragments = new Map<string, Fragment>();
    for (const f of this.state.features.values()) {
      if (!f.archived) fragments.set(f.name, this.fragment(f, environment));
      if (slicer.due()) await slicer.pause();
    }
    // A change marked everything again meanwhile: what was built may be stale; start over.
    if (view.allDirty) return;
    view.fragments = fragments;
    view.ordered = [...fragments.values()].sort(byName);
    view.generation = ++this.clock;
  }

  private async updateInSlices(environment: string, view: EnvView, slicer: Slicer): Promise<void> {
    const names = [...view.dirty];
    view.dirty.clear();
    const changed = new Map<string, Fragment | null>();
    for (const name of names) {
      const f = this.state.features.get(name);
      const old = view.fragments.get(name);
      if (!f || f.archived) {
        if (old) changed.set(name, null);
      } else {
        const frag = this.fragment(f, environment);
        if (!old || !old.bytes.equals(frag.bytes) || old.project !== frag.project) changed.set(name, frag);
      }
      if (slicer.due()) await slicer.pause();
    }
    // Names marked again meanwhile were serialized from the state as it was then: mark them again
    // (view.dirty already has them), and let the next round take them.
    if (view.allDirty) return;
    if (changed.size === 0 && !view.filtersChanged) return;
    for (const [name, frag] of changed) {
      if (frag) view.fragments.set(name, frag);
      else view.fragments.delete(name);
    }
    // Sorted again once, rather than one splice per flag (quadratic for tens of thousands of new flags).
    view.ordered = changed.size > 64 ? [...view.fragments.values()].sort(byName) : spliced(view.ordered, changed);
    view.filtersChanged = false;
    view.generation = ++this.clock;
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
