// Offline mode, put together (Unleash Edge's `offline` command): no upstream; the flags come from a
// file in the client features answer's format, `{version, features, segments?}` (what GET
// /api/client/features gives, so a saved answer of Unleash, Fanion or a relay is a valid file), and
// the tokens from the settings, their scope read from their text. Each environment the tokens name
// gets the file's flags through the relay's own sync (sync.ts), so a changed file is applied as a
// diffed change: ETags move, streams get it, the data folder keeps it, and the rest of the server
// serves it as it serves a relay's. A file that cannot be read, is too large or is not a valid
// answer changes nothing: the last good flags stay, and a line says why.
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import type { OfflineConfig } from '../../core/config.js';
import type { Engine } from '../../core/engine/engine.js';
import type { Logger } from '../../core/logger.js';
import type { Readiness } from '../../concepts/operations/readiness.js';
import { Slicer } from '../../core/slices.js';
import type { Actor } from '../../core/state/types.js';
import { credentialOf, parseSeedToken } from '../../concepts/tokens/format.js';
import type { TokenHasher } from '../../concepts/tokens/hasher.js';
import { dropTokens, holdToken, type Grant, type GrantType } from './grants.js';
import { applyScopeUpdate } from './relay.js';
import { readFullAnswer } from './remote.js';
import { normalizeScope } from './scope.js';
import { fullUpdate } from './sync.js';
import { parseJsonInSlices } from './upstream.js';

export interface OfflineDeps {
  engine: Engine;
  config: OfflineConfig;
  log: Logger;
  hasher: TokenHasher;
  /** GET /ready: held until the file was read once. */
  readiness: Readiness;
  /** The largest file read (IMPORT_BODY_LIMIT_BYTES, the bound of a relay's upstream answers). */
  maxAnswerBytes: number;
}

/** A configured token and what it grants, from its text. */
interface OfflineToken {
  raw: string;
  hash: string;
  grant: Grant;
}

export class Offline {
  private readonly actor: Actor;
  private readonly source: string;
  private readonly tokens: OfflineToken[];
  private timer: NodeJS.Timeout | null = null;
  private loading: Promise<void> | null = null;
  /** A digest of the text last read, good or bad: an unchanged file costs a read, nothing more (and logs once). */
  private lastRead: string | null = null;
  /** Whether a good file was applied. */
  private applied = false;
  /** The last read error logged: a file missing for a while is said once, not every interval. */
  private lastError: string | null = null;
  private closed = false;
  private held = false;
  /** The configured tokens are in the state, with the file's flags. */
  private serving = false;

  constructor(private readonly deps: OfflineDeps) {
    this.source = `file:${deps.config.bootstrapFile}`;
    this.actor = { name: `offline:${deps.config.bootstrapFile}`, userId: null };
    const of = (type: GrantType) => (raw: string): OfflineToken => {
      // The settings checked the form; the scope written in the token is its only source here.
      const parsed = parseSeedToken(raw)!;
      return { raw, hash: deps.hasher.hash(raw), grant: { type, scope: normalizeScope(parsed.environment, [parsed.project]), expiresAt: null } };
    };
    this.tokens = [...deps.config.clientTokens.map(of('client')), ...deps.config.frontendTokens.map(of('frontend'))];
  }

  /** Reads the file (readiness waits for a good one), holds the tokens, then reads it again every RELOAD_INTERVAL. */
  start(): void {
    const ready = this.deps.readiness.require(`BOOTSTRAP_FILE ${this.deps.config.bootstrapFile} was read`);
    const step = async () => {
      await this.reload();
      // A start with a bad file serves nothing (and is not ready) until the file is fixed.
      if (!this.applied || this.held || this.closed) return;
      this.held = true;
      await this.holdTokens().catch((err) => this.deps.log.error({ err: (err as Error).message }, 'offline: could not hold the configured tokens'));
      this.serving = true;
      ready();
    };
    void step();
    const every = this.deps.config.reloadMs;
    if (every > 0) {
      this.timer = setInterval(() => {
        if (!this.loading) void step();
      }, every);
      this.timer.unref();
    }
  }

  /** The configured tokens become the state's, and tokens of an earlier run's settings go. */
  private async holdTokens(): Promise<void> {
    const { engine } = this.deps;
    for (const t of this.tokens) await engine.run(this.actor, holdToken(t.hash, t.grant, this.source));
    const wanted = new Set(this.tokens.map((t) => t.hash));
    const stale = [...engine.state.apiTokens.keys()].filter((h) => !wanted.has(h));
    if (stale.length > 0) await engine.run(this.actor, dropTokens(stale, this.source));
  }

  /** One read of the file; never throws. */
  reload(): Promise<void> {
    this.loading ??= this.load().finally(() => {
      this.loading = null;
    });
    return this.loading;
  }

  private async load(): Promise<void> {
    const { config, log, engine, maxAnswerBytes } = this.deps;
    const file = config.bootstrapFile;
    let text: string;
    try {
      text = await readBounded(file, maxAnswerBytes);
    } catch (err) {
      const why = `could not read it: ${(err as Error).message}`;
      if (why !== this.lastError) this.refuse(why);
      this.lastError = why;
      this.lastRead = null;
      return;
    }
    this.lastError = null;
    const digest = createHash('sha256').update(text).digest('hex');
    if (digest === this.lastRead) return;
    this.lastRead = digest;
    let update;
    try {
      // Parsed a piece at a time, as upstream answers are; a half-written file is refused there.
      update = fullUpdate(await readFullAnswer(await parseJsonInSlices(text), new Slicer()));
    } catch (err) {
      return this.refuse(`it is not a client features answer ({version, features, segments?}): ${(err as Error).message}`);
    }
    if (this.closed) return;
    // Every environment a token names serves the file's flags.
    const environments = new Set(this.tokens.map((t) => t.grant.scope.environment));
    try {
      for (const environment of environments) await applyScopeUpdate(engine, this.actor, normalizeScope(environment, ['*']), update, this.source);
    } catch (err) {
      // Not the file's fault (the data folder, say): the same file is tried again next time.
      this.lastRead = null;
      return this.refuse(`its flags could not be applied: ${(err as Error).message}`);
    }
    this.applied = true;
    log.info({ bootstrapFile: file, flags: update.flags.size, environments: [...environments] }, 'offline: BOOTSTRAP_FILE read, its flags are served');
  }

  private refuse(why: string): void {
    this.deps.log.error(
      { bootstrapFile: this.deps.config.bootstrapFile },
      `offline: BOOTSTRAP_FILE refused, ${why}; ${!this.applied ? 'nothing is served until a good file is read' : 'the last good flags are still served'}`,
    );
  }

  /**
   * Whether `req` presents a configured token while no good file was read yet: that token is not
   * wrong, its flags are missing (503, which SDKs retry, rather than 401). Free once they are in.
   */
  notReadyFor(req: IncomingMessage): boolean {
    if (this.serving) return false;
    const header = req.headers.authorization ?? req.headers['x-api-key'];
    const raw = typeof header === 'string' ? credentialOf(header) : null;
    if (raw === null) return false;
    const hash = this.deps.hasher.hash(raw);
    return this.tokens.some((t) => t.hash === hash);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.loading;
  }
}

/** The file's text, refused past `max` bytes without reading more than that. */
async function readBounded(file: string, max: number): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    if (size > max) throw new Error(`it is ${size} bytes, more than IMPORT_BODY_LIMIT_BYTES (${max})`);
    const buf = Buffer.alloc(size + 1);
    const { bytesRead } = await handle.read(buf, 0, size + 1, 0);
    if (bytesRead > max) throw new Error(`it grew past IMPORT_BODY_LIMIT_BYTES (${max}) while read`);
    return buf.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}
