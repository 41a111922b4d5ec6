// The event bodies of the current revision (hydrations, the changes since an id), one Buffer per
// distinct text, shared by every stream's first frame and every delta answer that sends it, as
// the poll path shares its answers. A socket that does not read holds a reference to the Buffer
// it was given, not a copy: 200 stalled streams over a 5 MB flag set hold one 5 MB Buffer, not
// 200 (issue #26, item 3).
//
// Two levels: a request's key (its filter and resume id) finds the Buffer without building the
// text again; a text built for one key is looked up by content, so filters that select the same
// flags (another prefix of the same names, a project or a tag that does not exist) share it too.
// Texts are known by their SHA-256, so the cache does not keep a second copy of each as a string.
import { createHash } from 'node:crypto';

export class SharedBodies {
  private revision = -1;
  private readonly byKey = new Map<string, Buffer | null>();
  private readonly byText = new Map<string, Buffer>();
  private bytes = 0;

  constructor(
    /** Bytes of Buffers kept for later requests; Buffers still being sent live on regardless. */
    private readonly maxBytes = 64 * 1024 * 1024,
    /** Keys remembered: each is small, but one is made per filter a client may send. */
    private readonly maxKeys = 4096,
  ) {}

  /**
   * The Buffer for `key` at `revision` (the newest event id), built by `build` once; null when
   * `build` says there is nothing to send. A new revision forgets the last one's bodies.
   */
  get(revision: number, key: string, build: () => string | null): Buffer | null {
    if (revision !== this.revision) {
      this.clear();
      this.revision = revision;
    }
    const known = this.byKey.get(key);
    if (known !== undefined) return known;
    const text = build();
    // null: nothing to send (no change since the id), remembered like a body.
    let body: Buffer | null = null;
    if (text !== null) {
      const digest = createHash('sha256').update(text).digest('base64');
      body = this.byText.get(digest) ?? null;
      if (body === null) {
        body = Buffer.from(text);
        this.keep(digest, body);
      }
    }
    if (this.byKey.size >= this.maxKeys) this.byKey.clear();
    this.byKey.set(key, body);
    return body;
  }

  /** The state changed (or went back) without a new revision: nothing kept may be sent again. */
  clear(): void {
    this.byKey.clear();
    this.byText.clear();
    this.bytes = 0;
  }

  private keep(digest: string, body: Buffer): void {
    // Oldest first: the newest bodies are the ones the next requests will ask for. The keys that
    // lead to one go with it, or they would keep it beyond the budget.
    for (const [old, buf] of this.byText) {
      if (this.bytes + body.length <= this.maxBytes) break;
      this.byText.delete(old);
      this.bytes -= buf.length;
      for (const [key, b] of this.byKey) if (b === buf) this.byKey.delete(key);
    }
    // A body larger than the budget is kept alone: sharing it matters most.
    this.byText.set(digest, body);
    this.bytes += body.length;
  }
}
