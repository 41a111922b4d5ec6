// Who may see each event, by row, for admin tokens limited to an environment. The log indexes
// type, project and flag but not environment, and its search decodes every event it returns, so
// an exact `totalEvents` under an environment limit would mean decoding every match (~3 µs
// each; seconds on a million events). This keeps the four short fields as interned ids in typed
// arrays (16 bytes an event), filled from the log's own columns (exportColumns, which parses no
// JSON) on first use and then caught up with each search; exact filters are then counted over
// typed arrays and only the returned page is decoded. A better home is the log itself: an
// environment posting list and a project-set filter in EventLog.search would make this file
// unnecessary.
import type { EventFilter, EventLog, EventPage } from './event-log.js';

/** Rows exported per step while catching up: bounds the text copied at once. */
const CATCH_UP_CHUNK = 65_536;

class Ids {
  private data = new Uint32Array(1024);
  length = 0;

  push(v: number): void {
    if (this.length === this.data.length) {
      const grown = new Uint32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = v;
  }

  get view(): Uint32Array {
    return this.data;
  }
}

/** Rows visible to a limit, plus the exact filters of a search, as interned ids (0 = none, -1 = never occurs). */
export interface RowQuery {
  /** null: any project (project-less rows still hidden); otherwise 1 at the ids of the allowed projects. */
  projects: Uint8Array | null;
  /** Environment id that may be seen besides "no environment"; 0 = every environment. */
  environment: number;
  type: number;
  project: number;
  feature: number;
}

export class EnvironmentIndex {
  private readonly names = new Map<string, number>();
  private readonly type = new Ids();
  private readonly project = new Ids();
  private readonly feature = new Ids();
  private readonly environment = new Ids();
  private covered = 0;

  constructor(readonly log: EventLog) {}

  /**
   * A change was rolled back: its events left the log, and new ones may take their ids. Must be
   * called right after the rollback, before anything is appended again (engine.onChange).
   */
  rolledBack(): void {
    this.covered = Math.min(this.covered, this.log.lastId);
    this.truncate();
  }

  /** Search of the rows an environment limit may see, with exact filters only (no `query`). */
  search(filter: Omit<EventFilter, 'query'>, view: { projects: readonly string[]; environment: string }, limit: number, offset: number): EventPage {
    this.catchUp();
    const q = this.query(filter, view);
    if (q === null) return { events: [], total: 0 };
    const { type, project, feature, environment } = this;
    const [types, projects, features, envs] = [type.view, project.view, feature.view, environment.view];
    const allowed = q.projects;
    const maxRow = (offset > 0 ? Math.min(offset, this.covered) : this.covered) - 1;
    const picked: number[] = [];
    let total = 0;
    for (let row = this.covered - 1; row >= 0; row--) {
      const p = projects[row];
      if (p === 0 || (allowed !== null && allowed[p] !== 1)) continue;
      const e = envs[row];
      if (e !== 0 && q.environment !== 0 && e !== q.environment) continue;
      if (q.type !== 0 && types[row] !== q.type) continue;
      if (q.project !== 0 && p !== q.project) continue;
      if (q.feature !== 0 && features[row] !== q.feature) continue;
      total++;
      if (row <= maxRow && picked.length < limit) picked.push(row);
    }
    return { events: picked.map((row) => this.log.get(row + 1)!), total };
  }

  private query(filter: Omit<EventFilter, 'query'>, view: { projects: readonly string[]; environment: string }): RowQuery | null {
    const id = (value: string | undefined): number => (value === undefined ? 0 : (this.names.get(value) ?? -1));
    let projects: Uint8Array | null = null;
    if (!view.projects.includes('*')) {
      projects = new Uint8Array(this.names.size + 1);
      for (const p of view.projects) {
        const pid = this.names.get(p);
        if (pid !== undefined) projects[pid] = 1;
      }
    }
    const q: RowQuery = {
      projects,
      environment: view.environment === '*' ? 0 : id(view.environment),
      type: id(filter.type),
      project: id(filter.project),
      feature: id(filter.feature),
    };
    // A value no event ever had matches nothing (an unknown environment still lets events of no environment through).
    return q.type < 0 || q.project < 0 || q.feature < 0 ? null : q;
  }

  private intern(value: string): number {
    let id = this.names.get(value);
    if (id === undefined) this.names.set(value, (id = this.names.size + 1));
    return id;
  }

  private truncate(): void {
    for (const col of [this.type, this.project, this.feature, this.environment]) col.length = this.covered;
  }

  private catchUp(): void {
    const last = this.log.lastId;
    if (this.covered > last) this.rolledBack();
    while (this.covered < last) {
      const to = Math.min(last, this.covered + CATCH_UP_CHUNK);
      const c = this.log.exportColumns(this.covered + 1, to);
      // The chunk's string table is local to it: map each local id to ours once.
      const local = new Uint32Array(c.strings.length + 1);
      for (let i = 0; i < c.strings.length; i++) local[i + 1] = this.intern(c.strings[i]);
      for (let i = 0; i < c.n; i++) {
        this.type.push(local[c.type[i]]);
        this.project.push(local[c.project[i]]);
        this.feature.push(local[c.featureName[i]]);
        this.environment.push(local[c.environment[i]]);
      }
      this.covered = to;
    }
  }
}
