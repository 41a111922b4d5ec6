// The client API's precomputed responses. SDKs poll far more often than anything changes, so
// the bytes of each response are built once per change and then served by lookup.
//
// Two levels:
//  - per environment, one serialized JSON fragment per live flag, with a hash of its bytes.
//    The engine's change feed marks the (flag, environment) pairs a record touched; they are
//    re-serialized lazily on the next request, and nothing else is.
//  - per normalized filter (environment + token projects + query), the stitched response:
//    bytes, a gzip copy (made asynchronously; identity is served until it is ready) and the
//    ETag. The ETag is a hash over the fragments' hashes in order, so it is a function of the
//    bytes (it changes exactly when they do) and costs a few hundred kB of hashing with 10,000
//    flags instead of hashing megabytes. When an environment changes, a cached response first
//    recomputes its ETag: if that is unchanged (the change was outside its filter) the old bytes
//    and gzip copy stay.
// The response cache is an LRU bounded by entry count and by bytes.
import { createHash } from 'node:crypto';
import { gzip } from 'node:zlib';
import type { ClientScope } from '../auth/authenticator.js';
import type { Op } from '../state/ops.js';
import { featureEnvKey, tagKey, type State } from '../state/state.js';
import type { Feature } from '../state/types.js';
import type { WalRecord } from '../wal/record.js';
import { clientFilter, filterKey, inScope, type ClientFilter } from './query.js';
import { clientFeature } from './record.js';

interface Fragment {
  bytes: Buffer;
  hash: Buffer;
  project: string;
}

interface EnvView {
  fragments: Map<string, Fragment>;
  /** Live flag names, sorted: the order of the response. */
  names: string[];
  dirty: Set<string>;
  allDirty: boolean;
  /** Set when which flags a filter selects may have changed without any fragment changing (tags). */
  filtersChanged: boolean;
  /** From one clock shared by all views, so a view dropped and rebuilt never repeats a value. */
  generation: number;
}

export interface CachedResponse {
  readonly filter: ClientFilter;
  readonly key: string;
  generation: number;
  etag: string;
  bytes: Buffer;
  /** null until the asynchronous gzip of the current bytes is done. */
  gzip: Buffer | null;
  size: number;
}

export interface SnapshotOptions {
  maxEntries?: number;
  maxBytes?: number;
}

const PREFIX = Buffer.from('{"version":1,"features":[');
const SUFFIX = Buffer.from(']}');
const COMMA = 0x2c;
/** Distinct raw query strings remembered before the memo is reset (it only saves re-parsing). */
const MAX_RAW_KEYS = 10_000;

function hashOf(bytes: Buffer): Buffer {
  return createHash('sha1').update(bytes).digest();
}

function insertSorted(list: string[], name: string): void {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid] < name) lo = mid + 1;
    else hi = mid;
  }
  if (list[lo] !== name) list.splice(lo, 0, name);
}

function removeSorted(list: string[], name: string): void {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid] < name) lo = mid + 1;
    else hi = mid;
  }
  if (list[lo] === name) list.splice(lo, 1);
}

export class ClientSnapshot {
  private readonly views = new Map<string, EnvView>();
  /** Map order is recency: the first entry is the least recently used. */
  private readonly responses = new Map<string, CachedResponse>();
  private readonly rawKeys = new Map<string, ClientFilter & { key: string }>();
  /** strategy id → `${feature}\0${environment}`: a deleted strategy's op names only its id. */
  private owners = new Map<string, string>();
  private clock = 0;
  private cachedBytes = 0;
  /** Fragments serialized so far: shows that one change re-serializes one flag, not all. */
  private serialized = 0;
  private readonly maxEntries: number;
  private readonly maxBytes: number;

  constructor(private readonly state: State, opts: SnapshotOptions = {}) {
    this.maxEntries = opts.maxEntries ?? 1000;
    this.maxBytes = opts.maxBytes ?? 256 * 1024 * 1024;
    this.rebuildOwners();
  }

  /** The engine's change listener: marks what a record touched; the work happens on the next read. */
  onChange(rec: WalRecord, kind: 'applied' | 'rolled-back'): void {
    if (kind === 'rolled-back') {
      // A rollback undoes this record and every later one, but is reported once: start over.
      this.rebuildOwners();
      this.markEverything();
      return;
    }
    for (const op of rec.ops) this.markOp(op);
  }

  /** The response for a caller and raw query string (with or without "?"). Throws 400 on a malformed filter. */
  response(scope: ClientScope, search: string): CachedResponse {
    const projects = scope.projects.length === 1 ? scope.projects[0] : scope.projects.join('\u0001');
    const raw = `${scope.environment}\u0000${projects}\u0000${search}`;
    let filter = this.rawKeys.get(raw);
    if (filter === undefined) {
      const f = clientFilter(scope, search);
      filter = { ...f, key: filterKey(f) };
      if (this.rawKeys.size >= MAX_RAW_KEYS) this.rawKeys.clear();
      this.rawKeys.set(raw, filter);
    }
    const view = this.fresh(filter.environment);
    let entry = this.responses.get(filter.key);
    if (entry === undefined) {
      entry = this.build(filter, view);
    } else {
      if (entry.generation !== view.generation) this.update(entry, view);
      this.responses.delete(filter.key);
    }
    this.responses.set(filter.key, entry);
    this.evict(entry);
    return entry;
  }

  /** One flag's record bytes, or null when unknown, archived or outside the caller's projects. */
  feature(scope: ClientScope, name: string): Buffer | null {
    const frag = this.fresh(scope.environment).fragments.get(name);
    if (!frag || !inScope(scope, frag.project)) return null;
    return frag.bytes;
  }

  /** For tests and the benchmark. */
  stats(): { entries: number; cachedBytes: number; environments: number; serialized: number } {
    return { entries: this.responses.size, cachedBytes: this.cachedBytes, environments: this.views.size, serialized: this.serialized };
  }

  private markOp(op: Op): void {
    switch (op.o) {
      case 'feature.put':
        this.markFlag(op.feature.name);
        return;
      case 'feature.del':
        this.markFlag(op.name);
        return;
      case 'featureEnv.put':
        this.markFlagEnv(op.feature, op.env.environment);
        return;
      case 'featureEnv.del':
        this.markFlagEnv(op.feature, op.environment);
        return;
      case 'strategy.put': {
        const key = featureEnvKey(op.strategy.featureName, op.strategy.environment);
        this.owners.set(op.strategy.id, key);
        this.markFlagEnv(op.strategy.featureName, op.strategy.environment);
        return;
      }
      case 'strategy.del': {
        const key = this.owners.get(op.id);
        if (key === undefined) {
          this.markEverything();
          return;
        }
        this.owners.delete(op.id);
        const at = key.indexOf('\u0000');
        this.markFlagEnv(key.slice(0, at), key.slice(at + 1));
        return;
      }
      case 'segment.put':
      case 'segment.del': {
        const id = op.o === 'segment.put' ? op.segment.id : op.id;
        for (const s of this.state.strategies.values()) {
          if (s.segments.includes(id)) this.markFlagEnv(s.featureName, s.environment);
        }
        return;
      }
      case 'featureTag.add':
      case 'featureTag.del':
        for (const v of this.views.values()) v.filtersChanged = true;
        return;
      case 'env.put':
      case 'env.del': {
        const name = op.o === 'env.put' ? op.environment.name : op.name;
        const v = this.views.get(name);
        if (v) v.allDirty = true;
        return;
      }
      // Nothing an SDK sees: metadata of other kinds, tokens, and metrics' lastSeen.
      case 'project.put':
      case 'project.del':
      case 'tagType.put':
      case 'tagType.del':
      case 'tag.put':
      case 'tag.del':
      case 'strategyType.put':
      case 'strategyType.del':
      case 'token.put':
      case 'token.del':
      case 'token.revoke':
      case 'lastSeen':
        return;
      default: {
        // An op kind added later that this module does not know yet: be correct, not fast.
        this.markEverything();
      }
    }
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

  private rebuildOwners(): void {
    this.owners = new Map();
    for (const s of this.state.strategies.values()) this.owners.set(s.id, featureEnvKey(s.featureName, s.environment));
  }

  private fragment(f: Feature, environment: string): Fragment {
    const bytes = Buffer.from(JSON.stringify(clientFeature(this.state, f, environment)));
    this.serialized++;
    return { bytes, hash: hashOf(bytes), project: f.project };
  }

  /** The environment's view with every pending change serialized. */
  private fresh(environment: string): EnvView {
    let view = this.views.get(environment);
    if (view === undefined) {
      view = { fragments: new Map(), names: [], dirty: new Set(), allDirty: true, filtersChanged: false, generation: 0 };
      this.views.set(environment, view);
    }
    if (view.allDirty) {
      view.fragments.clear();
      view.names = [];
      for (const f of this.state.features.values()) {
        if (f.archived) continue;
        view.fragments.set(f.name, this.fragment(f, environment));
        view.names.push(f.name);
      }
      view.names.sort();
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
          removeSorted(view.names, name);
          changed = true;
        }
        continue;
      }
      const frag = this.fragment(f, environment);
      if (!old) {
        insertSorted(view.names, name);
        changed = true;
      } else if (!old.hash.equals(frag.hash)) {
        changed = true;
      }
      view.fragments.set(name, frag);
    }
    view.dirty.clear();
    view.filtersChanged = false;
    if (changed) view.generation = ++this.clock;
    return view;
  }

  private select(filter: ClientFilter, view: EnvView): Fragment[] {
    const { projects, tags, namePrefix } = filter;
    const out: Fragment[] = [];
    if (projects !== null && projects.length === 0) return out;
    const projectSet = projects && projects.length > 4 ? new Set(projects) : null;
    const tagSet = tags ? new Set(tags) : null;
    for (const name of view.names) {
      if (namePrefix !== null && !name.startsWith(namePrefix)) continue;
      const frag = view.fragments.get(name)!;
      if (projects !== null && !(projectSet ? projectSet.has(frag.project) : projects.includes(frag.project))) continue;
      if (tagSet !== null && !(this.state.featureTags.get(name) ?? []).some((t) => tagSet.has(tagKey(t)))) continue;
      out.push(frag);
    }
    return out;
  }

  private etagOf(frags: Fragment[]): string {
    const all = Buffer.allocUnsafe(frags.length * 20);
    for (let i = 0; i < frags.length; i++) frags[i].hash.copy(all, i * 20);
    return `"${createHash('sha1').update(all).digest('base64url')}"`;
  }

  private stitch(frags: Fragment[]): Buffer {
    let size = PREFIX.length + SUFFIX.length + Math.max(0, frags.length - 1);
    for (const f of frags) size += f.bytes.length;
    const out = Buffer.allocUnsafe(size);
    let at = PREFIX.copy(out, 0);
    for (let i = 0; i < frags.length; i++) {
      if (i > 0) out[at++] = COMMA;
      at += frags[i].bytes.copy(out, at);
    }
    SUFFIX.copy(out, at);
    return out;
  }

  private build(filter: ClientFilter & { key: string }, view: EnvView): CachedResponse {
    const frags = this.select(filter, view);
    const bytes = this.stitch(frags);
    const entry: CachedResponse = { filter, key: filter.key, generation: view.generation, etag: this.etagOf(frags), bytes, gzip: null, size: bytes.length };
    this.cachedBytes += entry.size;
    this.compress(entry);
    return entry;
  }

  private update(entry: CachedResponse, view: EnvView): void {
    const frags = this.select(entry.filter, view);
    const etag = this.etagOf(frags);
    entry.generation = view.generation;
    if (etag === entry.etag) return;
    this.cachedBytes -= entry.size;
    entry.etag = etag;
    entry.bytes = this.stitch(frags);
    entry.gzip = null;
    entry.size = entry.bytes.length;
    this.cachedBytes += entry.size;
    this.compress(entry);
  }

  private compress(entry: CachedResponse): void {
    const bytes = entry.bytes;
    gzip(bytes, (err, zipped) => {
      // Newer bytes may have replaced these meanwhile, or the entry may have been evicted.
      if (err || entry.bytes !== bytes || this.responses.get(entry.key) !== entry) return;
      entry.gzip = zipped;
      entry.size += zipped.length;
      this.cachedBytes += zipped.length;
      this.evict(entry);
    });
  }

  private evict(keep: CachedResponse): void {
    while (this.responses.size > this.maxEntries || (this.cachedBytes > this.maxBytes && this.responses.size > 1)) {
      const oldest = this.responses.keys().next().value as string;
      const victim = this.responses.get(oldest)!;
      if (victim === keep) {
        // Only the entry being served is too big: keep serving it, evict nothing else.
        if (this.responses.size === 1) break;
        this.responses.delete(oldest);
        this.responses.set(oldest, victim);
        continue;
      }
      this.responses.delete(oldest);
      this.cachedBytes -= victim.size;
    }
  }
}
