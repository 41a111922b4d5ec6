// The client API's precomputed responses. SDKs poll far more often than anything changes, so
// the bytes of each response are built once per change and then served by lookup.
//
// Two levels:
//  - per environment, one serialized JSON fragment per live flag (env-views.ts: what a change
//    invalidates);
//  - per normalized filter (environment + token projects + query), the response: its bytes as
//    blocks of fragments (blocks.ts; only blocks holding a changed flag are re-stitched), a
//    gzip copy (made asynchronously; identity is served until it is ready) and the ETag, a hash
//    of the blocks' hashes. When an environment changes, a cached response re-selects its flags;
//    if no block changed (the change was outside its filter) bytes, gzip copy and ETag stay.
// The response cache is an LRU bounded by entry count and by bytes.
import { createGzip } from 'node:zlib';
import { inClientScope, type ClientScope } from '../../core/access/access.js';
import type { StateChange } from '../../core/state/change.js';
import type { Slicer } from '../../core/slices.js';
import { tagKey, type State } from '../../core/state/state.js';
import type { Toucher } from '../../core/state/touch.js';
import { buildBlocks, buildBlocksInSlices, etagOf, type Block, type Fragment } from './blocks.js';
import { EnvViews, type EnvView } from './env-views.js';
import { clientFilter, filterKey, type ClientFilter } from './query.js';

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
  /** Reads which flags each change touched; shared with the other readers of changes (entry/core.ts). */
  toucher?: Toucher;
}

/** Distinct raw query strings remembered before the memo is reset: it only saves re-parsing, and URLs can be 16 kB. */
const MAX_RAW_KEYS = 1000;

/** Where `name` is, or would go, in a list sorted by name. */
export class ClientSnapshot {
  /** Per environment, one serialized fragment per live flag, re-serialized as changes mark them. */
  private readonly views: EnvViews;
  /** Map order is recency: the first entry is the least recently used. */
  private readonly responses = new Map<string, CachedResponse>();
  /**
   * scope → raw query string → normalized filter. Scope objects are immutable and kept by the
   * authenticator per token, so the common request (same token, same query) costs two lookups.
   */
  private scopeFilters = new WeakMap<ClientScope, Map<string, ClientFilter & { key: string }>>();
  private rawKeys = 0;
  private lastEntry: CachedResponse | null = null;
  private cachedBytes = 0;
  /** Blocks stitched so far: shows that one change costs one. */
  private blocksBuilt = 0;
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  private readonly extraHeaders: readonly string[];

  constructor(private readonly state: State, opts: SnapshotOptions = {}) {
    this.maxEntries = opts.maxEntries ?? 1000;
    this.extraHeaders = opts.extraHeaders ?? [];
    this.maxBytes = opts.maxBytes ?? 256 * 1024 * 1024;
    this.views = new EnvViews(state, opts.toucher);
  }

  /** The engine's change listener: marks what a change touched; the work happens on the next read. */
  onChange(change: StateChange, kind: 'applied' | 'durable' | 'rolled-back'): void {
    this.views.onChange(change, kind);
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
    const view = this.views.fresh(filter.environment);
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

  /**
   * The response last built for a caller and query, or null if there is none. It reads no state:
   * while a large change is applied a slice at a time and its flags serialized (Engine.applying),
   * a poll is answered with it, a whole answer from before the change (which is not acknowledged
   * yet).
   */
  cachedResponse(scope: ClientScope, search: string): CachedResponse | null {
    const filter = this.scopeFilters.get(scope)?.get(search);
    return filter === undefined ? null : (this.responses.get(filter.key) ?? null);
  }

  /**
   * After a large change: every flag it touched serialized again, a slice at a time, and the
   * cached responses stitched anew, so that the first poll after it finds the work done instead of
   * doing it all at once (50,000 flags held the event loop for most of a second).
   */
  async freshenInSlices(slicer: Slicer): Promise<void> {
    await this.views.freshenInSlices(slicer);
    for (const entry of [...this.responses.values()]) {
      const view = this.views.ifFresh(entry.filter.environment);
      if (view === null || entry.generation === view.generation) continue;
      const generation = view.generation;
      const { blocks, rebuilt } = await buildBlocksInSlices(this.select(entry.filter, view), entry.blocks, slicer);
      // Taken only if nothing moved meanwhile; otherwise the next poll stitches it as usual.
      if (view.generation !== generation || entry.generation === generation || !this.responses.has(entry.key)) continue;
      entry.generation = generation;
      this.stitched(entry, blocks, rebuilt);
      this.evict(entry);
    }
  }

  /** One flag's record bytes, or null when unknown, archived or outside the caller's projects. */
  feature(scope: ClientScope, name: string): Buffer | null {
    const frag = this.views.fresh(scope.environment).fragments.get(name);
    if (!frag || !inClientScope(scope, frag.project)) return null;
    return frag.bytes;
  }

  /** For tests and the benchmark. */
  stats(): { entries: number; cachedBytes: number; environments: number; serialized: number; blocksBuilt: number } {
    return {
      entries: this.responses.size, cachedBytes: this.cachedBytes, environments: this.views.size, serialized: this.views.serialized, blocksBuilt: this.blocksBuilt,
    };
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
    this.stitched(entry, blocks, rebuilt);
  }

  /** The entry with its new blocks: bytes, ETag and headers, and a gzip copy on its way. */
  private stitched(entry: CachedResponse, blocks: Block[], rebuilt: number): void {
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
