// The event log held in memory, compact enough for millions of events. Events are immutable
// and their ids gapless, so an event is a row index (id - 1, less the ids a relay's log let go:
// see keepNewest) into typed columns: the short,
// repetitive fields (type, createdBy, project, flag, environment) are interned to small ids,
// the timestamp is a number, and data/preData/tags are kept as their JSON text in a TextArena.
// Posting lists (ascending row indexes per type, project and flag) answer exact searches
// without looking at any other event; free text runs one regular expression over the arena
// (the search itself is event-search.ts).
import type { EventRecord } from '../types.js';
import { F64List, Interner, U32List } from './columns.js';
import { EventSearch } from './event-search.js';
import { IndexedColumn } from './indexed-column.js';
import { isoOf } from './iso-date.js';
import { payloadOf, storeEvent, type StoredEvent } from './stored.js';
import { TextArena } from './text-arena.js';

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
 * What a caller may see: events of one of `projects` (any project for '*'; never an event of no
 * project; null: any event, of a project or of none) and, when `environment` is not '*', of that
 * environment or of none; never one of `hiddenTypes`.
 */
export interface Visibility {
  projects: readonly string[] | '*' | null;
  environment: string;
  hiddenTypes?: readonly string[];
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


export class EventLog {
  /** @internal read by event-search.ts */
  readonly type = new IndexedColumn();
  /** @internal read by event-search.ts */
  readonly project = new IndexedColumn();
  /** @internal read by event-search.ts */
  readonly feature = new IndexedColumn();
  /** @internal read by event-search.ts */
  readonly environment = new Interner();
  /** @internal read by event-search.ts */
  readonly environmentRows = new U32List(1024);
  /** @internal read by event-search.ts */
  readonly createdBy = new Interner();
  /** @internal read by event-search.ts */
  readonly createdByRows = new U32List(1024);
  private readonly userIds = new F64List(1024);
  /** Epoch ms when the ISO string round-trips through it, NaN otherwise (see `oddDates`). */
  private readonly createdAt = new F64List(1024);
  private readonly oddDates = new Map<number, string>();
  /** Per row: `data JSON \n preData JSON \n tags JSON \n` (null fields are empty). */
  /** @internal read by event-search.ts */
  readonly payload: TextArena;
  private readonly searcher: EventSearch = new EventSearch(this);
  /**
   * The id before the first event held: 0 for a whole log; more for one that keeps only its
   * newest events (a relay's, see keepNewest). Row r holds event base + r + 1.
   */
  private base = 0;

  constructor(opts: { slabChars?: number } = {}) {
    this.payload = new TextArena(opts.slabChars);
  }

  get lastId(): number {
    return this.base + this.payload.count;
  }

  /** The id of the oldest event held (lastId + 1 when none is). */
  get firstId(): number {
    return this.base + 1;
  }

  /** An empty log whose first event will have `id` (a log that kept only its newest events, read back). */
  startAt(id: number): void {
    if (this.size !== 0 || !Number.isInteger(id) || id < 1) throw new Error(`cannot start the event log at ${id}: it holds events, or that is not an id`);
    this.base = id - 1;
  }

  /**
   * A log of the newest `n` events of this one, ids unchanged: what a relay keeps (it serves no
   * event API; its events only number its changes for SDK streams and deltas). This log is left
   * as it is, so a checkpoint being written from it goes on unharmed.
   */
  keepNewest(n: number): EventLog {
    const out = new EventLog();
    const from = Math.max(this.firstId, this.lastId - n + 1);
    out.startAt(from);
    if (from <= this.lastId) out.importColumns(this.exportColumns(from, this.lastId));
    return out;
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
    const row = id - 1 - this.base;
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
    if (!Number.isInteger(fromId) || !Number.isInteger(toId) || fromId < this.firstId || toId > this.lastId || toId < fromId - 1) {
      throw new Error(`events ${fromId}..${toId} are not in the log (${this.firstId}..${this.lastId})`);
    }
    const from = fromId - 1 - this.base;
    const to = toId - this.base;
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

    const firstRow = c.first - 1 - this.base;
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
    this.searcher.forgetScans();
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
    if (this.size === 0 || this.lastId !== expectedId) {
      throw new Error(`cannot undo event ${expectedId}: newest is ${this.lastId || undefined}`);
    }
    const row = expectedId - 1 - this.base;
    // Rare (a failed write): simpler to forget cached scans than to shrink them.
    this.searcher.forgetScans();
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
    if (!Number.isInteger(id) || id < this.firstId || id > this.lastId) return undefined;
    return this.decode(id - 1 - this.base);
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
   * See event-search.ts.
   */
  search(filter: EventFilter, limit: number, offset = 0): EventPage {
    return this.searcher.search(filter, limit, offset);
  }

  /** The event in `row` (its id is base + row + 1), rebuilt from the columns. */
  decode(row: number): EventRecord {
    const ms = this.createdAt.get(row);
    const userId = this.userIds.get(row);
    return {
      id: this.base + row + 1,
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
