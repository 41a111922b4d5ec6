// The event log held in memory, compact enough for millions of events. Events are immutable
// and their ids gapless, so an event is a row index (id - 1) into typed columns: the short,
// repetitive fields (type, createdBy, project, flag, environment) are interned to small ids,
// the timestamp is a number, and data/preData/tags are kept as their JSON text in a TextArena.
// Posting lists (ascending row indexes per type, project and flag) answer exact searches
// without looking at any other event; free text runs one regular expression over the arena.
import type { EventRecord } from '../types.js';
import { countAtMost, F64List, Interner, U32List } from './columns.js';
import { isoOf } from './iso-date.js';
import { payloadOf, storeEvent, type StoredEvent } from './stored.js';
import { TextArena } from './text-arena.js';
import { trigramsOf } from './trigram-filter.js';

export interface EventFilter {
  type?: string;
  project?: string;
  feature?: string;
  /** Case-insensitive substring of the type, createdBy, or the JSON of data, preData or tags. */
  query?: string;
  /** Only events this limit may see (a limited admin token's); absent: every event. */
  visible?: Visibility;
}

/**
 * What a limited admin token may see: events of one of `projects` (any project for '*'; never an
 * event of no project) and, when `environment` is not '*', of that environment or of none.
 */
export interface Visibility {
  projects: readonly string[] | '*';
  environment: string;
}

export interface EventPage {
  events: EventRecord[];
  /** Every event matching the filter, whatever `limit` and `offset` say. */
  total: number;
}

/**
 * A run of consecutive events in the log's own compact form, for checkpoints: exporting and
 * importing it copies columns instead of building and taking apart one object per event.
 * String columns hold 0 for null and i + 1 for `strings[i]` (a table local to the chunk);
 * `text` is the records' stored JSON text back to back, `lens` the length of each.
 */
export interface EventColumns {
  first: number;
  n: number;
  strings: string[];
  type: Uint32Array;
  createdBy: Uint32Array;
  environment: Uint32Array;
  project: Uint32Array;
  featureName: Uint32Array;
  /** Epoch ms; NaN where the text is kept in `oddDates` (keyed by index within the chunk). */
  createdAt: Float64Array;
  oddDates: Record<string, string>;
  /** NaN = null. */
  userId: Float64Array;
  text: string;
  lens: Uint32Array;
}

/** An indexed column: interned values per row, and per value the ascending rows holding it. */
class IndexedColumn {
  readonly names = new Interner();
  readonly rows = new U32List(1024);
  /** Indexed by interned id (ids are small and dense): an array lookup, not a Map's. */
  readonly postings: (U32List | undefined)[] = [];

  push(row: number, value: string | null): void {
    const id = this.names.intern(value);
    this.rows.push(id);
    if (id === 0) return;
    let list = this.postings[id];
    if (!list) this.postings[id] = list = new U32List();
    list.push(row);
  }

  pop(row: number): void {
    const id = this.rows.pop();
    if (id === 0) return;
    const list = this.postings[id]!;
    if (list.pop() !== row) throw new Error(`index of row ${row} out of step`);
  }

  /** Appends rows given as interned ids (already checked to exist), updating the postings. */
  pushIds(firstRow: number, ids: Uint32Array): void {
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      this.rows.push(id);
      if (id === 0) continue;
      let list = this.postings[id];
      if (!list) this.postings[id] = list = new U32List();
      list.push(firstRow + i);
    }
  }

  /** Rows holding `value`, ascending; null when no event ever had it. */
  rowsOf(value: string): Uint32Array | null {
    const id = this.names.find(value);
    return id > 0 ? this.postings[id]!.view() : null;
  }
}

/** Raw control characters never occur in JSON text (it escapes them), so they separate fields. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f]/;
/** Scan results kept for this many recent queries (one byte per event each). */
const CACHED_SCANS = 4;
/** An id beyond any interned one (ids are dense from 1), to compare rows against. */
const NO_ROW_HOLDS_IT = 2 ** 32 - 1;
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export class EventLog {
  private readonly type = new IndexedColumn();
  private readonly project = new IndexedColumn();
  private readonly feature = new IndexedColumn();
  private readonly environment = new Interner();
  private readonly environmentRows = new U32List(1024);
  private readonly createdBy = new Interner();
  private readonly createdByRows = new U32List(1024);
  private readonly userIds = new F64List(1024);
  /** Epoch ms when the ISO string round-trips through it, NaN otherwise (see `oddDates`). */
  private readonly createdAt = new F64List(1024);
  private readonly oddDates = new Map<number, string>();
  /** Per row: `data JSON \n preData JSON \n tags JSON \n` (null fields are empty). */
  private readonly payload: TextArena;
  /** Recent free-text scans, least recently used first. */
  private readonly scans = new Map<string, { hits: Uint8Array; rows: number }>();

  constructor(opts: { slabChars?: number } = {}) {
    this.payload = new TextArena(opts.slabChars);
  }

  get lastId(): number {
    return this.payload.count;
  }

  get size(): number {
    return this.payload.count;
  }

  append(event: EventRecord): void {
    this.appendStored(storeEvent(event));
  }

  /** Appends an event in its stored form (what a WAL record holds); the tuple is not kept. */
  appendStored(s: StoredEvent): void {
    const id = s[0];
    if (id !== this.lastId + 1) {
      throw new Error(`event id ${id} does not follow ${this.lastId}: the log would have a gap`);
    }
    const row = id - 1;
    this.type.push(row, s[1]);
    this.project.push(row, s[6]);
    this.feature.push(row, s[7]);
    this.environmentRows.push(this.environment.intern(s[5]));
    this.createdByRows.push(this.createdBy.intern(s[3]));
    this.userIds.push(s[4] ?? NaN);
    const at = s[2];
    if (typeof at === 'number') {
      this.createdAt.push(at);
    } else {
      this.createdAt.push(NaN);
      this.oddDates.set(row, at);
    }
    this.payload.append(s[8]);
  }

  /** Events [fromId, toId] in compact form (see EventColumns). */
  exportColumns(fromId: number, toId: number): EventColumns {
    if (!Number.isInteger(fromId) || !Number.isInteger(toId) || fromId < 1 || toId > this.lastId || toId < fromId - 1) {
      throw new Error(`events ${fromId}..${toId} are not in the log (1..${this.lastId})`);
    }
    const from = fromId - 1;
    const to = toId;
    const n = to - from;
    const strings: string[] = [];
    const local = new Map<string, number>();
    // Per column: global interned id → chunk-local id, filled as ids are met.
    const localize = (names: Interner, rows: U32List): Uint32Array => {
      const out = new Uint32Array(n);
      const seen = new Map<number, number>();
      const view = rows.view();
      for (let i = 0; i < n; i++) {
        const g = view[from + i];
        if (g === 0) continue;
        let l = seen.get(g);
        if (l === undefined) {
          const value = names.value(g)!;
          l = local.get(value);
          if (l === undefined) local.set(value, (l = strings.push(value)));
          seen.set(g, l);
        }
        out[i] = l;
      }
      return out;
    };
    const oddDates: Record<string, string> = {};
    const createdAt = this.createdAt.view().slice(from, to);
    for (let i = 0; i < n; i++) if (createdAt[i] !== createdAt[i]) oddDates[i] = this.oddDates.get(from + i)!;
    return {
      first: fromId, n, strings,
      type: localize(this.type.names, this.type.rows),
      createdBy: localize(this.createdBy, this.createdByRows),
      environment: localize(this.environment, this.environmentRows),
      project: localize(this.project.names, this.project.rows),
      featureName: localize(this.feature.names, this.feature.rows),
      createdAt, oddDates,
      userId: this.userIds.view().slice(from, to),
      text: this.payload.textRange(from, to),
      lens: this.payload.lengths(from, to),
    };
  }

  /**
   * Appends a chunk made by exportColumns (possibly of another log, read back from a
   * checkpoint). Everything is checked before anything is appended: a bad chunk throws and
   * leaves the log as it was.
   */
  importColumns(c: EventColumns): void {
    const n = c.n;
    if (!Number.isInteger(n) || n < 0 || c.first !== this.lastId + 1) {
      throw new Error(`event chunk starts at ${c.first} with ${n} events; the log ends at ${this.lastId}`);
    }
    if (!Array.isArray(c.strings) || c.strings.some((x) => typeof x !== 'string')) throw new Error('malformed string table');
    const cols = [c.type, c.createdBy, c.environment, c.project, c.featureName];
    for (const col of cols) {
      if (!(col instanceof Uint32Array) || col.length !== n) throw new Error('a column has the wrong length');
      for (let i = 0; i < n; i++) if (col[i] > c.strings.length) throw new Error(`string ${col[i]} is not in the chunk's table`);
    }
    for (let i = 0; i < n; i++) if (c.type[i] === 0 || c.createdBy[i] === 0) throw new Error('an event has no type or no author');
    if (!(c.createdAt instanceof Float64Array) || c.createdAt.length !== n || !(c.userId instanceof Float64Array) || c.userId.length !== n) {
      throw new Error('a column has the wrong length');
    }
    for (let i = 0; i < n; i++) if (c.createdAt[i] !== c.createdAt[i] && typeof c.oddDates?.[i] !== 'string') throw new Error(`event ${c.first + i} has no date`);
    if (typeof c.text !== 'string' || !(c.lens instanceof Uint32Array) || c.lens.length !== n) throw new Error('malformed event text');
    let at = 0;
    for (let i = 0; i < n; i++) {
      at += c.lens[i];
      // Every stored record ends its three fields with a newline.
      if (c.lens[i] < 3 || c.text.charCodeAt(at - 1) !== 10) throw new Error(`the text of event ${c.first + i} is malformed`);
    }
    if (at !== c.text.length) throw new Error('event text lengths do not add up');

    const firstRow = c.first - 1;
    // The table is shared by all five columns: intern only the values a column uses.
    const globalIds = (names: Interner, col: Uint32Array): Uint32Array => {
      const ids = new Int32Array(c.strings.length + 1).fill(-1);
      ids[0] = 0;
      const out = new Uint32Array(n);
      for (let i = 0; i < n; i++) {
        const l = col[i];
        let g = ids[l];
        if (g < 0) ids[l] = g = names.intern(c.strings[l - 1]);
        out[i] = g;
      }
      return out;
    };
    const pushAll = (list: U32List | F64List, values: Uint32Array | Float64Array) => {
      for (let i = 0; i < values.length; i++) list.push(values[i]);
    };
    this.scans.clear();
    this.type.pushIds(firstRow, globalIds(this.type.names, c.type));
    this.project.pushIds(firstRow, globalIds(this.project.names, c.project));
    this.feature.pushIds(firstRow, globalIds(this.feature.names, c.featureName));
    pushAll(this.environmentRows, globalIds(this.environment, c.environment));
    pushAll(this.createdByRows, globalIds(this.createdBy, c.createdBy));
    pushAll(this.userIds, c.userId);
    pushAll(this.createdAt, c.createdAt);
    for (let i = 0; i < n; i++) if (c.createdAt[i] !== c.createdAt[i]) this.oddDates.set(firstRow + i, c.oddDates[i]);
    this.payload.appendMany(c.text, c.lens);
  }

  /** Undo of the newest append, used when a WAL write fails. */
  removeLast(expectedId: number): void {
    if (this.lastId === 0 || this.lastId !== expectedId) {
      throw new Error(`cannot undo event ${expectedId}: newest is ${this.lastId || undefined}`);
    }
    const row = expectedId - 1;
    // Rare (a failed write): simpler to forget cached scans than to shrink them.
    this.scans.clear();
    this.type.pop(row);
    this.project.pop(row);
    this.feature.pop(row);
    this.environmentRows.pop();
    this.createdByRows.pop();
    this.userIds.pop();
    this.createdAt.pop();
    this.oddDates.delete(row);
    this.payload.removeLast();
  }

  get(id: number): EventRecord | undefined {
    if (!Number.isInteger(id) || id < 1 || id > this.lastId) return undefined;
    return this.decode(id - 1);
  }

  /** Newest first. */
  *newestFirst(): IterableIterator<EventRecord> {
    for (let row = this.size - 1; row >= 0; row--) yield this.decode(row);
  }

  *oldestFirst(): IterableIterator<EventRecord> {
    for (let row = 0; row < this.size; row++) yield this.decode(row);
  }

  /**
   * Events matching every given filter, newest first. `offset` is an id cursor: only events
   * with id <= offset are listed (0: from the newest). `total` ignores limit and offset.
   * `visible` is tested per row on the interned project and environment columns, like the
   * other filters, so `total` counts only what that limit may see.
   */
  search(filter: EventFilter, limit: number, offset = 0): EventPage {
    const maxRow = (offset > 0 ? Math.min(offset, this.lastId) : this.lastId) - 1;
    const visible = filter.visible;
    let project = filter.project;
    if (visible !== undefined && visible.projects !== '*') {
      if (project !== undefined && !visible.projects.includes(project)) return { events: [], total: 0 };
      // A limit of one project is that project's posting list: no row outside it is looked at.
      if (project === undefined && visible.projects.length === 1) project = visible.projects[0];
    }
    // Per row: 1 at the interned ids of the projects that may be seen (never at 0, no project).
    // Not needed when an exact project filter already keeps only rows of an allowed project.
    let allowedProjects: Uint8Array | null = null;
    if (visible !== undefined && project === undefined) {
      allowedProjects = new Uint8Array(this.project.names.values.length);
      if (visible.projects === '*') allowedProjects.fill(1, 1);
      else for (const p of visible.projects) {
        const id = this.project.names.find(p);
        if (id > 0) allowedProjects[id] = 1;
      }
    }
    // -1: any environment; otherwise the environment id that passes besides 0 (none). For an
    // environment no event ever had, NO_ROW_HOLDS_IT: then only rows of no environment pass.
    let allowedEnvironment = -1;
    if (visible !== undefined && visible.environment !== '*') {
      const id = this.environment.find(visible.environment);
      allowedEnvironment = id > 0 ? id : NO_ROW_HOLDS_IT;
    }
    const checksRows = allowedProjects !== null || allowedEnvironment !== -1;

    const exact: { column: IndexedColumn; rows: Uint32Array; value: string }[] = [];
    for (const [column, value] of [[this.type, filter.type], [this.project, project], [this.feature, filter.feature]] as const) {
      if (value === undefined) continue;
      const rows = column.rowsOf(value);
      if (!rows) return { events: [], total: 0 };
      exact.push({ column, rows, value });
    }
    const query = filter.query ? filter.query : null;
    const picked: number[] = [];

    if (!query && exact.length <= 1 && !checksRows) {
      // One posting list (or the whole log) already is the answer: no event needs looking at.
      const total = exact.length === 0 ? this.size : exact[0].rows.length;
      const upto = exact.length === 0 ? maxRow + 1 : countAtMost(exact[0].rows, maxRow);
      for (let k = upto - 1; k >= 0 && picked.length < limit; k--) picked.push(exact.length === 0 ? k : exact[0].rows[k]);
      return { events: picked.map((row) => this.decode(row)), total };
    }

    // Walk the shortest posting list (or every row) newest first; check the rest per row.
    exact.sort((a, b) => a.rows.length - b.rows.length);
    const driver = exact.length > 0 ? exact[0].rows : null;
    const candidates = driver ? driver.length : this.size;
    // At most two other exact filters: unrolled, since this loop may run over every event.
    const [c1, c2] = exact.slice(1).map(({ column, value }) => ({ rows: column.rows.view(), id: column.names.find(value) }));
    const rows1 = c1?.rows ?? null;
    const id1 = c1?.id ?? 0;
    const rows2 = c2?.rows ?? null;
    const id2 = c2?.id ?? 0;
    const matchesQuery = query ? this.queryMatcher(query, candidates) : null;
    const projectRows = allowedProjects !== null ? this.project.rows.view() : null;
    const environmentRows = allowedEnvironment !== -1 ? this.environmentRows.view() : null;

    let total = 0;
    for (let k = candidates - 1; k >= 0; k--) {
      const row = driver ? driver[k] : k;
      if (rows1 !== null && rows1[row] !== id1) continue;
      if (rows2 !== null && rows2[row] !== id2) continue;
      if (projectRows !== null && allowedProjects![projectRows[row]] !== 1) continue;
      if (environmentRows !== null && environmentRows[row] !== 0 && environmentRows[row] !== allowedEnvironment) continue;
      if (matchesQuery !== null && !matchesQuery(row)) continue;
      total++;
      if (row <= maxRow && picked.length < limit) picked.push(row);
    }
    return { events: picked.map((row) => this.decode(row)), total };
  }

  /**
   * A per-row test for the free-text query. Type and createdBy are decided once per distinct
   * value. The JSON text is either tested row by row (few candidates) or scanned in one pass
   * over the whole arena (many candidates), whichever touches less text. Scan results are kept
   * for the last few queries and extended with new rows, so paging through the results of a
   * query scans the log once rather than once per page.
   */
  private queryMatcher(query: string, candidates: number): (row: number) => boolean {
    const source = escapeRegExp(query);
    const once = new RegExp(source, 'i');
    const typeHit = this.type.names.values.map((v) => v !== null && once.test(v));
    const byHit = this.createdBy.values.map((v) => v !== null && once.test(v));
    const types = this.type.rows.view();
    const creators = this.createdByRows.view();
    const inFields = (row: number) => typeHit[types[row]] || byHit[creators[row]];
    if (CONTROL.test(query)) return inFields;
    if (candidates * 4 < this.size && !this.scans.has(query)) return (row) => inFields(row) || this.payload.test(row, once);
    const hits = this.textHits(query, source, once);
    return (row) => hits[row] === 1 || inFields(row);
  }

  /** Rows whose JSON text matches `query` (1) or not (0), from the cache when possible. */
  private textHits(query: string, source: string, once: RegExp): Uint8Array {
    let scan = this.scans.get(query);
    if (scan) {
      this.scans.delete(query);
    } else {
      const hits = new Uint8Array(this.size + 1024);
      this.payload.scan(new RegExp(source, 'gi'), (row) => {
        hits[row] = 1;
      }, trigramsOf(query));
      scan = { hits, rows: this.size };
    }
    if (scan.rows < this.size) {
      if (scan.hits.length < this.size) {
        const grown = new Uint8Array(Math.ceil(this.size * 1.25) + 1024);
        grown.set(scan.hits.subarray(0, scan.rows));
        scan.hits = grown;
      }
      for (let row = scan.rows; row < this.size; row++) scan.hits[row] = this.payload.test(row, once) ? 1 : 0;
      scan.rows = this.size;
    }
    this.scans.set(query, scan);
    if (this.scans.size > CACHED_SCANS) this.scans.delete(this.scans.keys().next().value!);
    return scan.hits;
  }

  private decode(row: number): EventRecord {
    const ms = this.createdAt.get(row);
    const userId = this.userIds.get(row);
    return {
      id: row + 1,
      type: this.type.names.value(this.type.rows.get(row))!,
      createdAt: Number.isNaN(ms) ? this.oddDates.get(row)! : isoOf(ms),
      createdBy: this.createdBy.value(this.createdByRows.get(row))!,
      createdByUserId: Number.isNaN(userId) ? null : userId,
      environment: this.environment.value(this.environmentRows.get(row)),
      project: this.project.names.value(this.project.rows.get(row)),
      featureName: this.feature.names.value(this.feature.rows.get(row)),
      ...payloadOf(this.payload.text(row)),
    };
  }
}
