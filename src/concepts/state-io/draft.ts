// A working copy of the state for the import: each kind of entity as a flat map that the
// import edits freely, compared with the real state at the end to produce the ops. Building
// the result first and diffing it is what lets the whole document be checked (references
// included) before a single op exists.
import { featureEnvKey, tagKey, type State } from '../../core/state/state.js';
import type {
  Environment, Feature, FeatureEnv, ImpactChart, Project, ReleasePlan, ReleaseTemplate, Safeguard, Segment, Strategy, StrategyType, Tag, TagType,
} from '../../core/state/types.js';

/** A map that remembers what it started from. */
export class Tracked<K, V> {
  readonly map: Map<K, V>;
  constructor(readonly base: Map<K, V>) {
    this.map = new Map(base);
  }
  get(key: K): V | undefined {
    return this.map.get(key);
  }
  has(key: K): boolean {
    return this.map.has(key);
  }
  set(key: K, value: V): void {
    this.map.set(key, value);
  }
  delete(key: K): void {
    this.map.delete(key);
  }
  clear(): void {
    this.map.clear();
  }
  values(): IterableIterator<V> {
    return this.map.values();
  }
  /** Keys present at the start and gone now. */
  *removed(): IterableIterator<K> {
    for (const key of this.base.keys()) if (!this.map.has(key)) yield key;
  }
  /** Entries that are new or hold a different object than at the start. */
  *changed(): IterableIterator<[K, V]> {
    for (const [key, value] of this.map) if (this.base.get(key) !== value) yield [key, value];
  }
}

export interface FlagTag {
  feature: string;
  tag: Tag;
}

export const flagTagKey = (feature: string, tag: Tag) => `${feature}\u0000${tagKey(tag)}`;

export class Draft {
  readonly environments: Tracked<string, Environment>;
  readonly projects: Tracked<string, Project>;
  readonly features: Tracked<string, Feature>;
  /** `${feature}\0${environment}` → configuration (FeatureEnv carries the environment). */
  readonly featureEnvs: Tracked<string, FeatureEnv>;
  readonly strategies: Tracked<string, Strategy>;
  readonly strategyTypes: Tracked<string, StrategyType>;
  readonly tagTypes: Tracked<string, TagType>;
  readonly tags: Tracked<string, Tag>;
  readonly featureTags: Tracked<string, FlagTag>;
  readonly segments: Tracked<number, Segment>;
  readonly releaseTemplates: Tracked<string, ReleaseTemplate>;
  /** `${feature}\0${environment}` → its plan, as the state keys them. */
  readonly releasePlans: Tracked<string, ReleasePlan>;
  readonly safeguards: Tracked<string, Safeguard>;
  readonly impactCharts: Tracked<string, ImpactChart>;

  constructor(state: State) {
    this.environments = new Tracked(state.environments);
    this.projects = new Tracked(state.projects);
    this.features = new Tracked(state.features);
    const envs = new Map<string, FeatureEnv>();
    for (const [feature, byEnv] of state.featureEnvs) for (const [name, fe] of byEnv) envs.set(featureEnvKey(feature, name), fe);
    this.featureEnvs = new Tracked(envs);
    this.strategies = new Tracked(state.strategies);
    this.strategyTypes = new Tracked(state.strategyTypes);
    this.tagTypes = new Tracked(state.tagTypes);
    this.tags = new Tracked(state.tags);
    const flagTags = new Map<string, FlagTag>();
    for (const [feature, tags] of state.featureTags) for (const tag of tags) flagTags.set(flagTagKey(feature, tag), { feature, tag });
    this.featureTags = new Tracked(flagTags);
    this.segments = new Tracked(state.segments);
    this.releaseTemplates = new Tracked(state.releaseTemplates);
    this.releasePlans = new Tracked(state.releasePlans);
    this.safeguards = new Tracked(state.safeguards);
    this.impactCharts = new Tracked(state.impactCharts);
  }
}

export const featureOfEnvKey = (key: string) => key.slice(0, key.indexOf('\u0000'));
