// Searching the event log: exact filters walk the shortest posting list and check the others
// per row; free text is matched per row or by one scan of the whole text arena, whichever
// touches less, with the scans of recent queries kept and extended as the log grows.
import { countAtMost } from './columns.js';
import type { EventFilter, EventLog, EventPage } from './event-log.js';
import type { IndexedColumn } from './indexed-column.js';
import { trigramsOf } from './trigram-filter.js';

/** Raw control characters never occur in JSON text (it escapes them), so they separate fields. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f]/;
/** Scan results kept for this many recent queries (one byte per event each). */
const CACHED_SCANS = 4;
/** An id beyond any interned one (ids are dense from 1), to compare rows against. */
const NO_ROW_HOLDS_IT = 2 ** 32 - 1;
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The search of one EventLog, with its cache of recent free-text scans. */
export class EventSearch {
  /** Recent free-text scans, least recently used first. */
  private readonly scans = new Map<string, { hits: Uint8Array; rows: number }>();

  constructor(private readonly log: EventLog) {}

  /** After rows were replaced wholesale or removed, cached scans no longer describe them. */
  forgetScans(): void {
    this.scans.clear();
  }

  /**
   * Events matching every given filter, newest first. `offset` is an id cursor: only events
   * with id <= offset are listed (0: from the newest). `total` ignores limit and offset.
   * `visible` is tested per row on the interned project and environment columns, like the
   * other filters, so `total` counts only what that limit may see.
   */
  search(filter: EventFilter, limit: number, offset = 0): EventPage {
    const maxRow = (offset > 0 ? Math.min(offset, this.log.lastId) : this.log.lastId) - this.log.firstId;
    const visible = filter.visible;
    let project = filter.project;
    if (visible !== undefined && visible.projects !== '*' && visible.projects !== null) {
      if (project !== undefined && !visible.projects.includes(project)) return { events: [], total: 0 };
      // A limit of one project is that project's posting list: no row outside it is looked at.
      if (project === undefined && visible.projects.length === 1) project = visible.projects[0];
    }
    // Per row: 1 at the interned ids of the projects that may be seen (never at 0, no project).
    // Not needed when an exact project filter already keeps only rows of an allowed project.
    let allowedProjects: Uint8Array | null = null;
    if (visible !== undefined && visible.projects !== null && project === undefined) {
      allowedProjects = new Uint8Array(this.log.project.names.values.length);
      if (visible.projects === '*') allowedProjects.fill(1, 1);
      else for (const p of visible.projects) {
        const id = this.log.project.names.find(p);
        if (id > 0) allowedProjects[id] = 1;
      }
    }
    // -1: any environment; otherwise the environment id that passes besides 0 (none). For an
    // environment no event ever had, NO_ROW_HOLDS_IT: then only rows of no environment pass.
    let allowedEnvironment = -1;
    if (visible !== undefined && visible.environment !== '*') {
      const id = this.log.environment.find(visible.environment);
      allowedEnvironment = id > 0 ? id : NO_ROW_HOLDS_IT;
    }
    // Per row: 1 at the interned ids of the types that may not be seen. Not needed when an exact
    // type filter already keeps one type only (then either none of it or all of it is seen).
    let hiddenTypes: Uint8Array | null = null;
    if (visible?.hiddenTypes !== undefined && visible.hiddenTypes.length > 0) {
      if (filter.type !== undefined) {
        if (visible.hiddenTypes.includes(filter.type)) return { events: [], total: 0 };
      } else {
        hiddenTypes = new Uint8Array(this.log.type.names.values.length);
        for (const type of visible.hiddenTypes) {
          const id = this.log.type.names.find(type);
          if (id > 0) hiddenTypes[id] = 1;
        }
      }
    }
    const checksRows = allowedProjects !== null || allowedEnvironment !== -1;

    const exact: { column: IndexedColumn; rows: Uint32Array; value: string }[] = [];
    for (const [column, value] of [[this.log.type, filter.type], [this.log.project, project], [this.log.feature, filter.feature]] as const) {
      if (value === undefined) continue;
      const rows = column.rowsOf(value);
      if (!rows) return { events: [], total: 0 };
      exact.push({ column, rows, value });
    }
    const query = filter.query ? filter.query : null;
    const picked: number[] = [];

    if (hiddenTypes !== null && !checksRows && !query && exact.length === 0) {
      // Every event but those of some types: the total from their posting lists, and the page by
      // walking back from the cursor past them (the console's "newest event" poll stays cheap).
      let total = this.log.size;
      for (const type of visible!.hiddenTypes!) total -= this.log.type.rowsOf(type)?.length ?? 0;
      const types = this.log.type.rows.view();
      for (let row = maxRow; row >= 0 && picked.length < limit; row--) if (hiddenTypes[types[row]] !== 1) picked.push(row);
      return { events: picked.map((row) => this.log.decode(row)), total };
    }

    if (!query && exact.length <= 1 && !checksRows && hiddenTypes === null) {
      // One posting list (or the whole log) already is the answer: no event needs looking at.
      const total = exact.length === 0 ? this.log.size : exact[0].rows.length;
      const upto = exact.length === 0 ? maxRow + 1 : countAtMost(exact[0].rows, maxRow);
      for (let k = upto - 1; k >= 0 && picked.length < limit; k--) picked.push(exact.length === 0 ? k : exact[0].rows[k]);
      return { events: picked.map((row) => this.log.decode(row)), total };
    }

    // Walk the shortest posting list (or every row) newest first; check the rest per row.
    exact.sort((a, b) => a.rows.length - b.rows.length);
    const driver = exact.length > 0 ? exact[0].rows : null;
    const candidates = driver ? driver.length : this.log.size;
    // At most two other exact filters: unrolled, since this loop may run over every event.
    const [c1, c2] = exact.slice(1).map(({ column, value }) => ({ rows: column.rows.view(), id: column.names.find(value) }));
    const rows1 = c1?.rows ?? null;
    const id1 = c1?.id ?? 0;
    const rows2 = c2?.rows ?? null;
    const id2 = c2?.id ?? 0;
    const matchesQuery = query ? this.queryMatcher(query, candidates) : null;
    const projectRows = allowedProjects !== null ? this.log.project.rows.view() : null;
    const environmentRows = allowedEnvironment !== -1 ? this.log.environmentRows.view() : null;
    const typeRows = hiddenTypes !== null ? this.log.type.rows.view() : null;

    let total = 0;
    for (let k = candidates - 1; k >= 0; k--) {
      const row = driver ? driver[k] : k;
      if (rows1 !== null && rows1[row] !== id1) continue;
      if (rows2 !== null && rows2[row] !== id2) continue;
      if (projectRows !== null && allowedProjects![projectRows[row]] !== 1) continue;
      if (environmentRows !== null && environmentRows[row] !== 0 && environmentRows[row] !== allowedEnvironment) continue;
      if (typeRows !== null && hiddenTypes![typeRows[row]] === 1) continue;
      if (matchesQuery !== null && !matchesQuery(row)) continue;
      total++;
      if (row <= maxRow && picked.length < limit) picked.push(row);
    }
    return { events: picked.map((row) => this.log.decode(row)), total };
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
    const typeHit = this.log.type.names.values.map((v: string | null) => v !== null && once.test(v));
    const byHit = this.log.createdBy.values.map((v: string | null) => v !== null && once.test(v));
    const types = this.log.type.rows.view();
    const creators = this.log.createdByRows.view();
    const inFields = (row: number) => typeHit[types[row]] || byHit[creators[row]];
    if (CONTROL.test(query)) return inFields;
    if (candidates * 4 < this.log.size && !this.scans.has(query)) return (row) => inFields(row) || this.log.payload.test(row, once);
    const hits = this.textHits(query, source, once);
    return (row) => hits[row] === 1 || inFields(row);
  }

  /** Rows whose JSON text matches `query` (1) or not (0), from the cache when possible. */
  private textHits(query: string, source: string, once: RegExp): Uint8Array {
    let scan = this.scans.get(query);
    if (scan) {
      this.scans.delete(query);
    } else {
      const hits = new Uint8Array(this.log.size + 1024);
      this.log.payload.scan(new RegExp(source, 'gi'), (row) => {
        hits[row] = 1;
      }, trigramsOf(query));
      scan = { hits, rows: this.log.size };
    }
    if (scan.rows < this.log.size) {
      if (scan.hits.length < this.log.size) {
        const grown = new Uint8Array(Math.ceil(this.log.size * 1.25) + 1024);
        grown.set(scan.hits.subarray(0, scan.rows));
        scan.hits = grown;
      }
      for (let row = scan.rows; row < this.log.size; row++) scan.hits[row] = this.log.payload.test(row, once) ? 1 : 0;
      scan.rows = this.log.size;
    }
    this.scans.set(query, scan);
    if (this.scans.size > CACHED_SCANS) this.scans.delete(this.scans.keys().next().value!);
    return scan.hits;
  }
}
