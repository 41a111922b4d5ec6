// The client API's precomputed responses. SDKs poll far more often than anything changes, so
// the bytes of each response are built once per change and then served by lookup.
//
// Two levels:
//  - per environment, one serialized JSON fragment per live flag. The engine's change feed
//    marks the (flag, environment) pairs a record touched; they are re-serialized lazily on the
//    next request, and nothing else is. A fragment whose bytes did not change keeps its
//    identity, which is what lets the level below reuse work.
//  - per normalized filter (environment + token projects + query), the response: its bytes as
//    blocks of fragments (blocks.ts; only blocks holding a changed flag are re-stitched), a
//    gzip copy (made asynchronously; identity is served until it is ready) and the ETag, a hash
//    of the blocks' hashes. When an environment changes, a cached response re-selects its flags;
//    if no block changed (the change was outside its filter) bytes, gzip copy and ETag stay.
// The response cache is an LRU bounded by entry count and by bytes.
import { createGzip } from 'node:zlib';
import type { ClientScope } from '../auth/access.js';
import type { Op } from '../state/ops.js';
import { featureEnvKey, tagKey, type State } from '../state/state.js';
import type { Feature } from '../state/types.js';
import type { StateChange } from '../state/change.js';
import { buildBlocks, cutAfter, etagOf, type Block, type Fragment } from './blocks.js';
import { clientFilter, filterKey, inScope, type ClientFilter } from './query.js';
import { clientFeature } from './record.js';

interface EnvView {
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

export interface CachedResponse {
  readonly filter: ClientFilter;
  readonly key: string;
  generation: number;
  etag: string;
  blocks: Block[];
  /** The body, in order: write them all (one writev), or end with the only one. */
  parts: Buffer[];
  length: number;
  /** null until the asynchronous gzip of the current parts is done. */
  gzip: Buffer | null;
  gzipBusy: boolean;
  size: number;
  /** Response headers, prepared when the bytes change so a request allocates nothing for them. */
  headers: { notModified: string[]; identity: string[]; gzip: string[] | null };
}

const JSON_TYPE = 'application/json; charset=utf-8';

function identityHeaders(e: CachedResponse, extra: readonly string[]): string[] {
  return ['Content-Type', JSON_TYPE, 'Content-Length', String(e.length), 'ETag', e.etag, 'Vary', 'Accept-Encoding', ...extra];
}

export interface SnapshotOptions {
  maxEntries?: number;
  maxBytes?: number;
  /** Header name/value pairs added to every prebuilt answer (the HTTP layer's, e.g. nosniff). */
  extraHeaders?: readonly string[];
}

/** Distinct raw query strings remembered before the memo is reset: it only saves re-parsing, and URLs can be 16 kB. */
const MAX_RAW_KEYS = 1000;

/** Where `name` is, or would go, in a list sorted by name. */
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

export class ClientSnapshot {
  private readonly views = new Map<string, EnvView>();
  /** Map order is recency: the first entry is the least recently used. */
  private readonly responses = new Map<string, CachedResponse>();
  /**
   * scope → raw query string → normalized filter. Scope objects are immutable and kept by the
   * authenticator per token, so the common request (same token, same query) costs two lookups.
   */
  private scopeFilters = new WeakMap<ClientScope, Map<string, ClientFilter & { key: string }>>();
  private rawKeys = 0;
  private lastEntry: CachedResponse | null = null;
  /** strategy id → `${feature}\0${environment}`: a deleted strategy's op names only its id. */
  private owners = new Map<string, string>();
  private clock = 0;
  private cachedBytes = 0;
  /** Fragments serialized and blocks stitched so far: show that one change costs one of each. */
  private serialized = 0;
  private blocksBuilt = 0;
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  private readonly extraHeaders: readonly string[];

  constructor(private readonly state: State, opts: SnapshotOptions = {}) {
    this.maxEntries = opts.maxEntries ?? 1000;
    this.extraHeaders = opts.extraHeaders ?? [];
    this.maxBytes = opts.maxBytes ?? 256 * 1024 * 1024;
    this.rebuildOwners();
  }

  /** The engine's change listener: marks what a record touched; the work happens on the next read. */
  onChange(rec: StateChange, kind: 'applied' | 'rolled-back'): void {
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
    let filters = this.scopeFilters.get(scope);
    if (filters === undefined) {
      filters = new Map();
      this.scopeFilters.set(scope, filters);
    }
    let filter = filters.get(search);
    if (filter === undefined) {
      const f = clientFilter(scope, search);
      filter = { ...f, key: filterKey(f) };
      if (++this.rawKeys > MAX_RAW_KEYS) {
        this.scopeFilters = new WeakMap();
        this.rawKeys = 1;
        filters = new Map();
        this.scopeFilters.set(scope, filters);
      }
      filters.set(search, filter);
    }
    const view = this.fresh(filter.environment);
    let entry = this.responses.get(filter.key);
    if (entry === undefined) {
      entry = this.build(filter, view);
      this.responses.set(filter.key, entry);
      this.evict(entry);
    } else {
      if (entry.generation !== view.generation) {
        this.update(entry, view);
        this.evict(entry);
      }
      // Move it to the recent end, unless it is there already (the usual case: one hot response).
      if (this.lastEntry !== entry) {
        this.responses.delete(filter.key);
        this.responses.set(filter.key, entry);
      }
    }
    this.lastEntry = entry;
    return entry;
  }

  /** One flag's record bytes, or null when unknown, archived or outside the caller's projects. */
  feature(scope: ClientScope, name: string): Buffer | null {
    const frag = this.fresh(scope.environment).fragments.get(name);
    if (!frag || !inScope(scope, frag.project)) return null;
    return frag.bytes;
  }

  /** For tests and the benchmark. */
  stats(): { entries: number; cachedBytes: number; environments: number; serialized: number; blocksBuilt: number } {
    return {
      entries: this.responses.size, cachedBytes: this.cachedBytes, environments: this.views.size, serialized: this.serialized, blocksBuilt: this.blocksBuilt,
    };
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
    return { name: f.name, bytes, project: f.project, cut: cutAfter(f.name) };
  }

  /** The environment's view with every pending change serialized. */
  private fresh(environment: string): EnvView {
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

  private select(filter: ClientFilter, view: EnvView): Fragment[] {
    const { projects, tags, namePrefix } = filter;
    if (projects === null && tags === null && namePrefix === null) return view.ordered;
    const out: Fragment[] = [];
    if (projects !== null && projects.length === 0) return out;
    const projectSet = projects && projects.length > 4 ? new Set(projects) : null;
    const tagSet = tags ? new Set(tags) : null;
    for (const frag of view.ordered) {
      const name = frag.name;
      if (namePrefix !== null && !name.startsWith(namePrefix)) continue;
      if (projects !== null && !(projectSet ? projectSet.has(frag.project) : projects.includes(frag.project))) continue;
      if (tagSet !== null && !(this.state.featureTags.get(name) ?? []).some((t) => tagSet.has(tagKey(t)))) continue;
      out.push(frag);
    }
    return out;
  }

  private build(filter: ClientFilter & { key: string }, view: EnvView): CachedResponse {
    const entry: CachedResponse = {
      filter, key: filter.key, generation: view.generation, etag: '', blocks: [], parts: [], length: 0, gzip: null, gzipBusy: false, size: 0,
      headers: { notModified: [], identity: [], gzip: null },
    };
    this.restitch(entry, view);
    return entry;
  }

  private update(entry: CachedResponse, view: EnvView): void {
    entry.generation = view.generation;
    this.restitch(entry, view);
  }

  private restitch(entry: CachedResponse, view: EnvView): void {
    const { blocks, rebuilt } = buildBlocks(this.select(entry.filter, view), entry.blocks);
    if (rebuilt === 0 && blocks.length === entry.blocks.length) return;
    this.blocksBuilt += rebuilt;
    this.cachedBytes -= entry.size;
    entry.blocks = blocks;
    entry.parts = blocks.map((b) => b.bytes);
    entry.length = 0;
    for (const p of entry.parts) entry.length += p.length;
    entry.etag = etagOf(blocks);
    entry.headers = { notModified: ['ETag', entry.etag, 'Vary', 'Accept-Encoding', ...this.extraHeaders], identity: identityHeaders(entry, this.extraHeaders), gzip: null };
    entry.gzip = null;
    entry.size = entry.length;
    this.cachedBytes += entry.size;
    this.compress(entry);
  }

  /** One gzip per entry at a time; if the parts changed meanwhile, it starts over on the newest. */
  private compress(entry: CachedResponse): void {
    if (entry.gzipBusy) return;
    entry.gzipBusy = true;
    const parts = entry.parts;
    const z = createGzip();
    const out: Buffer[] = [];
    z.on('data', (chunk: Buffer) => out.push(chunk));
    z.on('error', () => {
      entry.gzipBusy = false;
    });
    z.on('end', () => {
      entry.gzipBusy = false;
      if (this.responses.get(entry.key) !== entry) return;
      if (entry.parts !== parts) return this.compress(entry);
      const zipped = Buffer.concat(out);
      entry.gzip = zipped;
      entry.headers.gzip = [
        'Content-Type', JSON_TYPE, 'Content-Encoding', 'gzip', 'Content-Length', String(zipped.length), 'ETag', entry.etag, 'Vary', 'Accept-Encoding', ...this.extraHeaders,
      ];
      entry.size += zipped.length;
      this.cachedBytes += zipped.length;
      this.evict(entry);
    });
    for (const p of parts) z.write(p);
    z.end();
  }

  private evict(keep: CachedResponse): void {
    while (this.responses.size > this.maxEntries || (this.cachedBytes > this.maxBytes && this.responses.size > 1)) {
      const oldest = this.responses.keys().next().value as string;
      const victim = this.responses.get(oldest)!;
      if (victim === keep) {
        // The entry being served is never evicted: it moves to the recent end and the others go.
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
