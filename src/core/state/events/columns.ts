// Growable typed arrays and a string interner: the building blocks that keep a million events
// in a few tens of bytes each (plus their JSON text) instead of a million JS objects.

abstract class Growable<A extends Uint32Array | Float64Array> {
  protected arr: A;
  length = 0;
  constructor(capacity: number, private readonly make: (n: number) => A) {
    this.arr = make(Math.max(1, capacity));
  }
  push(v: number): void {
    if (this.length === this.arr.length) {
      const next = this.make(this.arr.length * 2);
      next.set(this.arr);
      this.arr = next;
    }
    this.arr[this.length++] = v;
  }
  pop(): number {
    if (this.length === 0) throw new Error('pop from an empty list');
    return this.arr[--this.length];
  }
  get(i: number): number {
    return this.arr[i];
  }
  last(): number {
    return this.arr[this.length - 1];
  }
  /** The live part, without copying. Valid until the next push. */
  view(): A {
    return this.arr.subarray(0, this.length) as A;
  }
}

export class U32List extends Growable<Uint32Array> {
  constructor(capacity = 4) {
    super(capacity, (n) => new Uint32Array(n));
  }
}

export class F64List extends Growable<Float64Array> {
  constructor(capacity = 4) {
    super(capacity, (n) => new Float64Array(n));
  }
}

/** Number of entries in the ascending list `list` that are <= `bound`. */
export function countAtMost(list: Uint32Array, bound: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid] <= bound) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Maps strings to small integers. Id 0 stands for null, so a column of ids needs no
 * separate null marker. Entries are never removed: an id outliving its last event is harmless.
 */
export class Interner {
  private readonly ids = new Map<string, number>();
  readonly values: (string | null)[] = [null];

  /** The last value interned: consecutive events mostly repeat it (same type, author, project). */
  private lastValue: string | null = null;
  private lastId = 0;

  intern(value: string | null | undefined): number {
    if (value === null || value === undefined) return 0;
    if (value === this.lastValue) return this.lastId;
    let id = this.ids.get(value);
    if (id === undefined) {
      id = this.values.length;
      this.values.push(value);
      this.ids.set(value, id);
    }
    this.lastValue = value;
    this.lastId = id;
    return id;
  }

  /** The id of a value already seen, or -1. */
  find(value: string): number {
    return this.ids.get(value) ?? -1;
  }

  value(id: number): string | null {
    return this.values[id];
  }
}
