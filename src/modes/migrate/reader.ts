// Reads a whole Unleash (7.x or 8.x) through its admin API, the one place `fanion migrate` talks
// to it. Why the admin API and not Unleash's export: `features-batch/export` leaves `sortOrder`
// out and lists strategies in table order, so a copy made through it serves strategies in another
// order (and can hand a user another variant); each flag's own definition has them with
// `sortOrder`, and `GET /api/admin/api-tokens` has every token with its secret.
//
// Everything read is bounded: each answer in bytes, time, nesting depth and number of values,
// everything read in one run in bytes and values (an answer within its own bounds can still be
// one of thousands), the number of requests in flight, and the retries on 429/503. The depth and
// the values are counted on the bytes as they arrive, before anything is parsed: JSON.parse of 60
// MB nested 30 million deep, or of ten million empty objects, takes gigabytes. Every way it can
// fail (unreachable, a refused token, an answer that is not Unleash's, or too much of it) ends in
// a MigrationError whose message is one line for the terminal; the token is never part of one.
import { ValidationError } from '../../core/errors.js';
import {
  unleashAnswers as A,
  type UApiToken, type UArchivedFlag, type UContextField, type UEnvironment, type UFeature, type UFeatureEnvironment, type UProject,
  type USegment, type UStrategy, type UStrategyType, type UTag, type UTagType,
} from './unleash-answers.js';

/** A failure the command reports as one line (and exit status 1), never as a stack trace. */
export class MigrationError extends Error {}

export interface ReadLimits {
  /** Largest answer read, in bytes. */
  answerBytes: number;
  /** Most values (array elements, object members, arrays and objects) in one answer. */
  answerValues: number;
  /** Deepest nesting of arrays and objects in one answer (Unleash's go about 8 deep). */
  depth: number;
  /** Everything read in one run, in bytes and in values: what the migration holds at most. */
  totalBytes: number;
  totalValues: number;
  /** How long one request may take, headers and body. */
  timeoutMs: number;
  /** Requests in flight at once. */
  concurrency: number;
  /** Tries of a request that Unleash answers 429 or 503, and the longest wait between two. */
  tries: number;
  maxWaitMs: number;
}

export const READ_LIMITS: ReadLimits = {
  answerBytes: 64 * 1024 * 1024, answerValues: 4_000_000, depth: 32, totalBytes: 256 * 1024 * 1024, totalValues: 8_000_000,
  timeoutMs: 30_000, concurrency: 8, tries: 6, maxWaitMs: 60_000,
};

/** A JSON schema, as the http layer's registry takes it. */
export type JsonSchema = Record<string, unknown>;

/** Validates an answer against one of the schemas above (the entry wires the shared ajv registry in). */
export type Check = <T>(schema: JsonSchema, data: unknown) => T;

export interface ReaderOptions {
  /** Unleash's address (with its base path, if any). */
  url: string;
  token: string;
  check: Check;
  progress: (line: string) => void;
  limits?: Partial<ReadLimits>;
}

/** Everything read, as Unleash gave it (checked against the schemas). */
export interface UnleashSnapshot {
  url: string;
  version: string | null;
  projects: UProject[];
  environments: UEnvironment[];
  /** Every flag, archived ones included (`archivedAt` set), with its environments and strategies. */
  flags: UFeature[];
  /** Flag name → its tags. */
  flagTags: Map<string, UTag[]>;
  /** False when this Unleash has no way to list archived flags (no feature search). */
  archivedListed: boolean;
  segments: USegment[];
  strategyTypes: UStrategyType[];
  contextFields: UContextField[];
  tagTypes: UTagType[];
  tags: UTag[];
  tokens: UApiToken[];
  /** Counted for the list of what does not come over; null when the token may not see them. */
  users: number | null;
  addons: string[] | null;
  /** Flags listed but gone (deleted or archived) by the time their definition was asked for. */
  vanished: string[];
}

const NOT_FOUND = Symbol('not found');

/** A one-line, printable excerpt of text from elsewhere (control characters out, bounded). */
function excerpt(text: string, max = 200): string {
  const flat = text.replace(/\p{Cc}+/gu, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** `https://host/base/` or `https://host/base/api` (as SDKs are configured) → `https://host/base`. */
export function normalizeUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new MigrationError(`--from must be the address of the Unleash server (http:// or https://), got "${excerpt(raw, 100)}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new MigrationError(`--from must be an http:// or https:// address, got "${url.protocol}"`);
  if (url.username || url.password) throw new MigrationError('--from must not carry a user name or password; give the token with --token');
  let base = `${url.origin}${url.pathname}`.replace(/\/+$/, '');
  if (base.endsWith('/api')) base = base.slice(0, -4);
  return base;
}

/** Runs `fn` over `items`, at most `limit` at a time, keeping their order in the results. */
async function inPool<T, R>(items: T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

/**
 * The shape of JSON text counted as its bytes arrive, strings skipped: how deep its arrays and
 * objects nest and how many values it holds (each array or object, and each element or member
 * after the first, by its comma), which is what parsing it would cost. Malformed text is left to
 * JSON.parse; this only has to be right about text that parses.
 */
export class JsonShape {
  depth = 0;
  deepest = 0;
  values = 0;
  private inString = false;
  private escaped = false;

  /** Counts `chunk`; stops early (returning false) once the nesting passes `maxDepth`. */
  feed(chunk: Uint8Array, maxDepth: number): boolean {
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i];
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === BACKSLASH) this.escaped = true;
        else if (c === QUOTE) this.inString = false;
      } else if (c === QUOTE) {
        this.inString = true;
      } else if (c === 0x5b || c === 0x7b) {
        this.values++;
        if (++this.depth > this.deepest) {
          this.deepest = this.depth;
          if (this.depth > maxDepth) return false;
        }
      } else if (c === 0x5d || c === 0x7d) {
        this.depth--;
      } else if (c === COMMA) {
        this.values++;
      }
    }
    return true;
  }
}

class AdminApi {
  private readonly limits: ReadLimits;
  requests = 0;
  /** Everything read so far, in bytes and values (answers being read included). */
  private totalBytes = 0;
  private totalValues = 0;

  constructor(private readonly opts: ReaderOptions & { url: string }) {
    this.limits = { ...READ_LIMITS, ...opts.limits };
  }

  /** GET and check an answer; `optional` turns a 404 into NOT_FOUND instead of an error. */
  async get<T>(path: string, schema: JsonSchema, optional = false): Promise<T | typeof NOT_FOUND> {
    const body = await this.fetchJson(path, optional);
    if (body === NOT_FOUND) return NOT_FOUND;
    try {
      return this.opts.check<T>(schema, body);
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      const why = err.details?.[0]?.message ?? err.message;
      throw new MigrationError(`GET ${path}: the answer is not what Unleash sends (${excerpt(why)}); nothing was written`);
    }
  }

  async must<T>(path: string, schema: JsonSchema): Promise<T> {
    return (await this.get<T>(path, schema)) as T;
  }

  private async fetchJson(path: string, optional: boolean): Promise<unknown> {
    const { url, token } = this.opts;
    for (let attempt = 1; ; attempt++) {
      this.requests++;
      let res: Response;
      try {
        res = await fetch(url + path, {
          headers: { authorization: token, accept: 'application/json' },
          // A redirect could take the token to another host: refused, and the address named.
          redirect: 'manual',
          signal: AbortSignal.timeout(this.limits.timeoutMs),
        });
      } catch (err) {
        throw new MigrationError(`cannot reach Unleash at ${url} (GET ${path}: ${causeOf(err, this.limits.timeoutMs)})`);
      }
      if ((res.status === 429 || res.status === 503) && attempt < this.limits.tries) {
        await res.body?.cancel();
        const wait = retryAfterMs(res.headers.get('retry-after'), attempt, this.limits.maxWaitMs);
        this.opts.progress(`  Unleash answered ${res.status} to GET ${path}; trying again in ${(wait / 1000).toFixed(1)} s (${attempt}/${this.limits.tries - 1})`);
        await new Promise((resolve) => setTimeout(resolve, wait));
        continue;
      }
      if (res.status >= 300 && res.status < 400) {
        await res.body?.cancel();
        const to = res.headers.get('location');
        throw new MigrationError(`GET ${path} was redirected (${res.status}${to ? ` to ${excerpt(to, 300)}` : ''}); give the final address with --from`);
      }
      if (res.status === 401) {
        await res.body?.cancel();
        throw new MigrationError(`Unleash at ${url} refused the token (401 on GET ${path}): give an admin API token (*:*.…) or an admin's personal access token with --token`);
      }
      if (res.status === 403) {
        const why = await this.errorText(res, path);
        throw new MigrationError(`the token may not read GET ${path} (403${why ? `: ${why}` : ''}); the migration needs an admin token`);
      }
      if (res.status === 404 && optional) {
        await res.body?.cancel();
        return NOT_FOUND;
      }
      if (res.status !== 200) {
        const why = await this.errorText(res, path);
        const hint = res.status === 404 ? '; is --from the address of an Unleash server, with its base path?' : '';
        throw new MigrationError(`GET ${path} answered ${res.status}${why ? ` (${why})` : ''}${hint}`);
      }
      const text = await this.readText(res, path);
      try {
        return JSON.parse(text) as unknown;
      } catch {
        const type = res.headers.get('content-type') ?? 'no content type';
        throw new MigrationError(`GET ${path}: the answer is not JSON (${excerpt(type, 80)}: "${excerpt(text, 80)}"); is --from the address of an Unleash server?`);
      }
    }
  }

  /** What an error answer says: Unleash's `message` when it sent one, else the start of the body. */
  private async errorText(res: Response, path: string): Promise<string> {
    const text = await this.readText(res, path).catch(() => '');
    try {
      const message = (JSON.parse(text) as { message?: unknown }).message;
      if (typeof message === 'string') return excerpt(message);
    } catch {
      /* not JSON: the text itself */
    }
    return excerpt(text);
  }

  /**
   * The body as text, refused past the limits on bytes, depth and values of one answer and of the
   * whole run: counted as it arrives (a declared length is not trusted, only refused early), and
   * before it is parsed.
   */
  private async readText(res: Response, path: string): Promise<string> {
    const { answerBytes, answerValues, depth, totalBytes, totalValues } = this.limits;
    const declared = Number(res.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > answerBytes) {
      await res.body?.cancel();
      throw new MigrationError(`GET ${path}: the answer is ${declared} bytes, more than the ${answerBytes} bytes read at most`);
    }
    if (!res.body) return '';
    const chunks: Buffer[] = [];
    const shape = new JsonShape();
    let size = 0;
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        size += chunk.byteLength;
        this.totalBytes += chunk.byteLength;
        if (size > answerBytes) throw new MigrationError(`GET ${path}: the answer is more than the ${answerBytes} bytes read at most`);
        if (this.totalBytes > totalBytes) throw this.tooMuch(`${Math.round(totalBytes / 1024 / 1024)} MiB`, path);
        const before = shape.values;
        if (!shape.feed(chunk, depth)) throw new MigrationError(`GET ${path}: the answer nests deeper than ${depth} levels, which no answer of Unleash's does`);
        this.totalValues += shape.values - before;
        if (shape.values > answerValues) throw new MigrationError(`GET ${path}: the answer holds more than ${answerValues.toLocaleString('en')} values, more than one answer is read with`);
        if (this.totalValues > totalValues) throw this.tooMuch(`${totalValues.toLocaleString('en')} values`, path);
        chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      }
    } catch (err) {
      if (err instanceof MigrationError) {
        await res.body.cancel().catch(() => {});
        throw err;
      }
      throw new MigrationError(`GET ${path}: the answer broke off (${causeOf(err, this.limits.timeoutMs)})`);
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  private tooMuch(bound: string, path: string): MigrationError {
    return new MigrationError(
      `Unleash's answers add up to more than the ${bound} one migration reads at most (after GET ${path}, ${this.requests} requests); ` +
        'nothing was written',
    );
  }
}

function causeOf(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return `no answer within ${timeoutMs / 1000} s`;
  const cause = e.cause?.code ?? e.cause?.message ?? e.message ?? String(err);
  return excerpt(cause, 200);
}

/** Retry-After in seconds or as a date; else a doubling wait from one second; never above `max`. */
function retryAfterMs(header: string | null, attempt: number, max: number): number {
  let ms = 1000 * 2 ** (attempt - 1);
  if (header) {
    const secs = Number(header);
    if (Number.isFinite(secs) && secs >= 0) ms = secs * 1000;
    else if (!Number.isNaN(Date.parse(header))) ms = Date.parse(header) - Date.now();
  }
  return Math.min(Math.max(ms, 100), max);
}

const enc = encodeURIComponent;

/** Reads everything the migration carries over, reporting progress as it goes. */
export async function readUnleash(opts: ReaderOptions): Promise<UnleashSnapshot> {
  const url = normalizeUrl(opts.url);
  const api = new AdminApi({ ...opts, url });
  const limits = { ...READ_LIMITS, ...opts.limits };
  const say = opts.progress;

  const ui = await api.get<{ versionInfo?: { current?: { oss?: string | null; enterprise?: string | null } } }>('/api/admin/ui-config', A.unleashUiConfig, true);
  const current = ui === NOT_FOUND ? undefined : ui.versionInfo?.current;
  const version = current?.enterprise || current?.oss || null;
  const projects = (await api.must<{ projects: UProject[] }>('/api/admin/projects', A.unleashProjects)).projects;
  const environments = (await api.must<{ environments: UEnvironment[] }>('/api/admin/environments', A.unleashEnvironments)).environments;
  say(`reading Unleash${version ? ` ${version}` : ''} at ${url}: ${projects.length} project(s), ${environments.length} environment(s)`);

  // What flags refer to is read before and after them: one deleted meanwhile (with the last flag
  // that used it, on a busy Unleash) is still known from the first read, and one created meanwhile
  // comes with the second (see `settled`).
  const early = await readReferenced(api);
  const listed: { project: string; name: string; tags?: UTag[] }[] = [];
  for (const p of projects) {
    const page = await api.must<{ features: { name: string; tags?: UTag[] }[] }>(`/api/admin/projects/${enc(p.id)}/features`, A.unleashProjectFeatures);
    for (const f of page.features) listed.push({ project: p.id, name: f.name, tags: f.tags });
  }
  // Unleash 8 lists a flag's tags with it, and leaves the key out when it has none. Once one flag
  // has the key, the listing is of that kind and a flag without it has no tags; otherwise (an
  // Unleash that never lists them, or no tags at all) each flag's tags are asked for.
  const listsTags = listed.some((f) => f.tags !== undefined);
  say(`flags: ${listed.length} listed`);
  const vanished: string[] = [];
  const flags: UFeature[] = [];
  const flagTags = new Map<string, UTag[]>();
  const counter = progressCounter(listed.length, (done) => say(`  flags read: ${done}/${listed.length}`));
  const read = await inPool(listed, limits.concurrency, async ({ project, name, tags: listedTags }) => {
    const flag = await api.get<UFeature>(`/api/admin/projects/${enc(project)}/features/${enc(name)}?variantEnvironments=true`, A.unleashFeature, true);
    const tags = flag === NOT_FOUND ? NOT_FOUND : listsTags ? { tags: listedTags ?? [] } : await api.get<{ tags: UTag[] }>(`/api/admin/features/${enc(name)}/tags`, A.unleashFeatureTags, true);
    counter();
    if (flag === NOT_FOUND || tags === NOT_FOUND) {
      vanished.push(name);
      return null;
    }
    flagTags.set(name, tags.tags);
    return { ...flag, project: flag.project ?? project, archived: false, archivedAt: null };
  });
  for (const f of read) if (f) flags.push(f);

  // A flag archived or revived while it is read is found twice, or once in each list: it comes
  // over once, as first read, and is not "vanished" if it was found the other way.
  const archived = await readArchived(api, environments, limits.concurrency, say);
  const seen = new Set(flags.map((f) => f.name));
  for (const f of archived.flags) {
    if (seen.has(f.name)) continue;
    seen.add(f.name);
    flags.push(f);
    flagTags.set(f.name, archived.tags.get(f.name) ?? []);
  }
  const gone = [...new Set([...vanished, ...archived.vanished])].filter((name) => !seen.has(name));

  const late = await readReferenced(api);
  const used = { segments: new Set<number>(), strategyTypes: new Set<string>(), tagTypes: new Set<string>() };
  for (const f of flags) {
    for (const e of f.environments ?? []) {
      for (const st of e.strategies ?? []) {
        used.strategyTypes.add(st.name);
        for (const id of st.segments ?? []) used.segments.add(id);
      }
    }
    for (const t of flagTags.get(f.name) ?? []) used.tagTypes.add(t.type);
  }
  const segments = settled(early.segments, late.segments, (x) => x.id, used.segments);
  const strategyTypes = settled(early.strategyTypes, late.strategyTypes, (x) => x.name, used.strategyTypes);
  const tagTypes = settled(early.tagTypes, late.tagTypes, (x) => x.name, used.tagTypes);
  const contextFields = await api.must<UContextField[]>('/api/admin/context', A.unleashContextFields);
  const tags = (await api.must<{ tags: UTag[] }>('/api/admin/tags', A.unleashTags)).tags;
  say(`segments: ${segments.length}, strategy types: ${strategyTypes.length}, context fields: ${contextFields.length}, tag types: ${tagTypes.length}, tags: ${tags.length}`);
  const tokens = (await api.must<{ tokens: UApiToken[] }>('/api/admin/api-tokens', A.unleashApiTokens)).tokens;
  say(`tokens: ${tokens.length}`);

  const users = await countOrNull(api.get<{ users: unknown[] }>('/api/admin/user-admin', A.unleashUsers, true), (a) => a.users.length);
  const addons = await countOrNull(api.get<{ addons: { provider?: string | null }[] }>('/api/admin/addons', A.unleashAddons, true), (a) => a.addons.map((x) => x.provider ?? 'addon'));
  say(`read in ${api.requests} requests`);
  return {
    url, version, projects, environments, flags, flagTags, archivedListed: archived.listed, segments, strategyTypes, contextFields, tagTypes, tags, tokens,
    users, addons, vanished: gone,
  };
}

/** The kinds flags refer to by name or id (the state import refuses a reference to a missing one). */
async function readReferenced(api: AdminApi) {
  return {
    segments: (await api.must<{ segments: USegment[] }>('/api/admin/segments', A.unleashSegments)).segments,
    strategyTypes: (await api.must<{ strategies: UStrategyType[] }>('/api/admin/strategies', A.unleashStrategyTypes)).strategies,
    tagTypes: (await api.must<{ tagTypes: UTagType[] }>('/api/admin/tag-types', A.unleashTagTypes)).tagTypes,
  };
}

/**
 * The later read, plus what only the earlier one had if a flag read in between still uses it
 * (deleted in Unleash meanwhile: the copy keeps what that flag was read with).
 */
export function settled<T, K>(early: T[], late: T[], key: (x: T) => K, used: Set<K>): T[] {
  const out = [...late];
  const known = new Set(late.map(key));
  for (const x of early) if (!known.has(key(x)) && used.has(key(x))) out.push(x);
  return out;
}

/** What is only counted may be refused to a token (a PAT of a non-admin): then it is not counted. */
async function countOrNull<T, R>(answer: Promise<T | typeof NOT_FOUND>, count: (a: T) => R): Promise<R | null> {
  try {
    const a = await answer;
    return a === NOT_FOUND ? null : count(a);
  } catch (err) {
    if (err instanceof MigrationError) return null;
    throw err;
  }
}

/** Calls `report` about ten times over `total` steps (and at the end). */
function progressCounter(total: number, report: (done: number) => void): () => void {
  let done = 0;
  const every = Math.max(1, Math.ceil(total / 10));
  return () => {
    done++;
    if (done % every === 0 || done === total) report(done);
  };
}

/**
 * Archived flags. Unleash 7 and 8 list them only through the feature search (`archived=IS:true`,
 * at most 100 a page, rate-limited on a default Unleash: 429s are waited out), and a flag's own
 * definition answers 404 once it is archived; each environment's configuration (strategies with
 * their sortOrder) and variants still answer. Archiving removes a flag's dependencies, so an
 * archived flag has none.
 */
async function readArchived(api: AdminApi, environments: UEnvironment[], concurrency: number, say: (line: string) => void) {
  const found: UArchivedFlag[] = [];
  const seen = new Set<string>();
  for (let offset = 0; ; ) {
    const page = await api.get<{ total?: number; features: UArchivedFlag[] }>(`/api/admin/search/features?archived=IS:true&limit=100&offset=${offset}&sortBy=name`, A.unleashArchivedSearch, true);
    if (page === NOT_FOUND) {
      say('archived flags: this Unleash has no feature search, so they cannot be listed');
      return { listed: false, flags: [] as UFeature[], tags: new Map<string, UTag[]>(), vanished: [] as string[] };
    }
    let fresh = 0;
    for (const f of page.features) {
      if (seen.has(f.name)) continue;
      seen.add(f.name);
      found.push(f);
      fresh++;
    }
    offset += page.features.length;
    // A short page, or one with nothing new (flags archived or revived while paging), ends it.
    if (page.features.length < 100 || fresh === 0) break;
  }
  say(`archived flags: ${found.length} listed`);
  const envNames = environments.map((e) => e.name);
  const tags = new Map<string, UTag[]>();
  const vanished: string[] = [];
  const counter = progressCounter(found.length, (done) => say(`  archived flags read: ${done}/${found.length}`));
  const read = await inPool(found, concurrency, async (f): Promise<UFeature | null> => {
    const base = `/api/admin/projects/${enc(f.project)}/features/${enc(f.name)}/environments`;
    const listed = f.environments ?? envNames.map((name) => ({ name, enabled: undefined, hasStrategies: undefined, variantCount: undefined }));
    const envs: UFeatureEnvironment[] = [];
    for (const { name: env, enabled, hasStrategies, variantCount } of listed) {
      // Most environments of an archived flag hold nothing: the search says so, no need to ask.
      if (hasStrategies === false && variantCount === 0) {
        envs.push({ name: env, enabled: enabled ?? false, strategies: [], variants: [] });
        continue;
      }
      const conf = await api.get<{ enabled?: boolean | null; strategies?: UStrategy[] }>(`${base}/${enc(env)}`, A.unleashFeatureEnvironment, true);
      if (conf === NOT_FOUND) continue;
      const variants = await api.get<{ variants?: unknown[] }>(`${base}/${enc(env)}/variants`, A.unleashVariants, true);
      envs.push({ name: env, enabled: conf.enabled ?? false, strategies: conf.strategies ?? [], variants: variants === NOT_FOUND ? [] : (variants.variants ?? []) });
    }
    const t = f.tags ? { tags: f.tags } : await api.get<{ tags: UTag[] }>(`/api/admin/features/${enc(f.name)}/tags`, A.unleashFeatureTags, true);
    counter();
    if (t === NOT_FOUND) {
      vanished.push(f.name);
      return null;
    }
    tags.set(f.name, t.tags);
    const { tags: _listed, ...flag } = f;
    return { ...flag, archived: true, dependencies: [], environments: envs };
  });
  return { listed: true, flags: read.filter((f): f is UFeature => f !== null), tags, vanished };
}
