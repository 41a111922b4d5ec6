// A column of interned values per row, with per value the ascending rows holding it (its
// posting list): what makes the event log's exact filters cheap.
import { Interner, U32List } from './columns.js';

/** An indexed column: interned values per row, and per value the ascending rows holding it. */
export class IndexedColumn {
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
