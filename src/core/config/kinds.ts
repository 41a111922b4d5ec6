// The kinds of value a setting takes: one parser per kind, each refusing a bad value with one line
// that names the variable. Pure: no environment, no I/O.
import { Address4, Address6 } from 'ip-address';

/** A setting Fanion cannot start with: reported as one line, without a stack trace. */
export class ConfigError extends Error {}

export interface Kind<T> {
  /** What the variable accepts, as the configuration reference says it. */
  accepts: string;
  /** Reads a set (non-empty) value; throws {@link ConfigError} naming `name` when it is not one. */
  parse(raw: string, name: string): T;
  /** The value written as the environment would give it: the reference shows defaults this way. */
  show(value: T): string;
  /** What a number counts, for the reference to show it readably. */
  unit?: 'ms' | 'bytes' | 's';
  /** A value of blanks only is unset, like an empty one. */
  blankIsUnset?: boolean;
}

/** The URL, or undefined when `raw` is not one. */
function urlOf(raw: string): URL | undefined {
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
}

const TOKEN_CHARS = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** A non-negative integer, optionally bounded; `unit` only says what it counts, for the reference. */
export function int(opts: { min?: number; max?: number; unit?: 'ms' | 'bytes' } = {}): Kind<number> {
  const { min = 0, max, unit } = opts;
  const what = unit === 'ms' ? 'milliseconds' : unit === 'bytes' ? 'bytes' : 'integer';
  return {
    accepts: max !== undefined ? `${what}, ${min} to ${max}` : `${what}, at least ${min}`,
    parse(raw, name) {
      const n = Number(raw);
      if (!Number.isInteger(n) || n < 0) throw new ConfigError(`${name} must be a non-negative integer, got "${raw}"`);
      if (max !== undefined && (n < min || n > max)) {
        throw new ConfigError(max === 65535 && min === 0 ? `${name} must be a port number from 0 to 65535, got "${raw}"` : `${name} must be from ${min} to ${max}, got "${raw}"`);
      }
      if (n < min) throw new ConfigError(`${name} must be at least ${min}, got "${raw}"`);
      return n;
    },
    show: (n) => String(n),
    unit,
  };
}

export const port = int({ min: 0, max: 65535 });

/** A duration in seconds (decimals allowed, for tests), at least `min`, read as milliseconds. */
export function seconds(min = 0.05): Kind<number> {
  return {
    accepts: `seconds, at least ${min}`,
    parse(raw, name) {
      const n = Number(raw);
      if (!Number.isFinite(n) || n < min) throw new ConfigError(`${name} must be a number of seconds of at least ${min}, got "${raw}"`);
      return Math.round(n * 1000);
    },
    show: (ms) => String(ms / 1000),
    unit: 's',
  };
}

export const bool: Kind<boolean> = {
  accepts: '`true` or `false` (or 1, 0)',
  parse(raw, name) {
    if (raw === 'true' || raw === '1') return true;
    if (raw === 'false' || raw === '0') return false;
    throw new ConfigError(`${name} must be true or false, got "${raw}"`);
  },
  show: (b) => String(b),
};

/**
 * One of `values`, in any case; `aliases` are other names for some of them (named in the error and
 * the reference when `listAliases`). The error lists the choices: quoted when there are three or
 * fewer, else as a plain list.
 */
export function oneOf<const T extends string>(values: readonly T[], aliases: Record<string, T> = {}, listAliases = false): Kind<T> {
  const written = [...values, ...(listAliases ? Object.keys(aliases) : [])].sort((a, b) => order(a) - order(b));
  function order(v: string): number {
    const i = values.indexOf(aliases[v] ?? (v as T));
    return i * 2 + (v in aliases ? 1 : 0);
  }
  const phrase = written.length <= 3
    ? written.map((v) => `"${v}"`).join(', ').replace(/, ([^,]*)$/, ' or $1')
    : `one of ${written.join(', ')}`;
  return {
    accepts: [...written, ...(listAliases ? [] : Object.keys(aliases))].map((v) => `\`${v}\``).join(', '),
    parse(raw, name) {
      const v = raw.toLowerCase();
      const found = aliases[v] ?? values.find((x) => x.toLowerCase() === v);
      if (found === undefined) throw new ConfigError(`${name} must be ${phrase}, got "${raw}"`);
      return found;
    },
    show: (v) => v,
  };
}

/** Free text; `trim` drops surrounding blanks (blank is then unset), `min`/`max` bound its length. */
export function text(opts: { trim?: boolean; min?: number; max?: number } = {}): Kind<string> {
  return {
    accepts: opts.min ? `text, at least ${opts.min} characters` : opts.max ? `text, at most ${opts.max} characters` : 'text',
    parse(raw, name) {
      const v = opts.trim ? raw.trim() : raw;
      if (opts.min !== undefined && v.length < opts.min) throw new ConfigError(`${name} must be at least ${opts.min} characters long`);
      if (opts.max !== undefined && v.length > opts.max) throw new ConfigError(`${name} must be at most ${opts.max} characters`);
      return v;
    },
    show: (v) => v,
    blankIsUnset: opts.trim,
  };
}

/** Splits on commas, trims, drops empty items. */
export function items(raw: string | undefined): string[] {
  return (raw ?? '').split(',').map((s) => s.trim()).filter((s) => s.length > 0);
}

/** A comma-separated list, each item read by `item` (which may refuse it). */
export function list<T = string>(accepts: string, item: (raw: string, name: string) => T = (s) => s as T, showItem: (v: T) => string = String): Kind<T[]> {
  return {
    accepts: `comma-separated ${accepts}`,
    parse: (raw, name) => items(raw).map((s) => item(s, name)),
    show: (v) => v.map(showItem).join(','),
  };
}

/**
 * Browser origins, `scheme://host[:port]` as browsers send them. A path or a wildcard would
 * silently trust too much, so either is refused.
 */
export const origins = list('origins such as https://console.example.com', (item, name) => {
  const url = urlOf(item);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== item.replace(/\/$/, '')) {
    throw new ConfigError(`${name} must list origins such as https://console.example.com, got "${item}"`);
  }
  return url.origin;
});

/** Host names as URLs spell them, kept in lower case (no port, no wildcard). */
export function hostNames(example: string): Kind<string[]> {
  return list(`host names such as ${example}`, (item, name) => {
    const host = item.toLowerCase().replace(/\.$/, '');
    if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(host) || host.length > 253) {
      throw new ConfigError(`${name} must list host names such as ${example} (no scheme, port or wildcard), got "${item}"`);
    }
    return host;
  });
}

/** IPv4 or IPv6 addresses or CIDR ranges. */
export const addressRanges = list('addresses or CIDR ranges such as 10.1.2.0/24 or fd00::/8', (item, name) => {
  if (!Address4.isValid(item) && !Address6.isValid(item)) throw new ConfigError(`${name} must list addresses or CIDR ranges such as 10.1.2.0/24 or fd00::/8, got "${item}"`);
  return item;
});

/** `Name: value` pairs, as Unleash Edge's CUSTOM_CLIENT_HEADERS takes them. */
export const headerPairs = list<[string, string]>('`Name: value` pairs', (item, name) => {
  const at = item.indexOf(':');
  const header = at > 0 ? item.slice(0, at).trim() : '';
  if (!TOKEN_CHARS.test(header)) throw new ConfigError(`${name} must list headers as "Name: value", got "${item}"`);
  return [header, item.slice(at + 1).trim()];
}, ([n, v]) => `${n}: ${v}`);

export const headerName: Kind<string> = {
  accepts: 'an HTTP header name',
  parse(raw, name) {
    if (!TOKEN_CHARS.test(raw)) throw new ConfigError(`${name} must be a header name, got "${raw}"`);
    return raw;
  },
  show: (v) => v,
};

/**
 * An http(s) URL with no query, fragment or credentials, kept without its trailing slash; `what`
 * completes "must be …" in the error.
 */
export function httpUrl(what: string): Kind<string> {
  return {
    accepts: 'an http(s) URL',
    parse(raw, name) {
      const url = urlOf(raw);
      if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash || url.username || url.password) {
        throw new ConfigError(`${name} must be ${what}, got "${raw}"`);
      }
      return url.href.replace(/\/+$/, '');
    },
    show: (v) => v,
  };
}

/** A PostgreSQL URL. Never echoed in an error: it usually holds the password. */
export const postgresUrl: Kind<string> = {
  accepts: 'a postgres:// URL',
  parse(raw, name) {
    const parsed = urlOf(raw);
    if (!parsed || (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') || !parsed.hostname) {
      throw new ConfigError(`${name} must be a URL such as postgres://user:password@host:5432/database`);
    }
    return raw;
  },
  show: (v) => v,
};

/** false, true, or a JSON object of node's TLS options (e.g. {"rejectUnauthorized":false}). */
export const tls: Kind<boolean | Record<string, unknown>> = {
  accepts: '`true`, `false` or a JSON object of TLS options',
  parse(raw, name) {
    if (raw === 'false' || raw === '0') return false;
    if (raw === 'true' || raw === '1') return true;
    let v: unknown;
    try {
      v = JSON.parse(raw);
    } catch {
      v = undefined;
    }
    if (!v || typeof v !== 'object' || Array.isArray(v)) throw new ConfigError(`${name} must be true, false or a JSON object of TLS options such as {"rejectUnauthorized":false}`);
    return v as Record<string, unknown>;
  },
  show: (v) => (typeof v === 'boolean' ? String(v) : JSON.stringify(v)),
};

function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** An OpenID Connect issuer: https, or http on this machine only (for tests); kept without its trailing slash. */
export const issuerUrl: Kind<string> = {
  accepts: 'an https URL',
  parse(raw, name) {
    const url = urlOf(raw);
    if (!url || (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname)))) {
      throw new ConfigError(`${name} must be an https URL (http only on this machine, for tests), got "${raw}"`);
    }
    return url.href.replace(/\/$/, '');
  },
  show: (v) => v,
};

export type RootRoleName = 'Admin' | 'Editor' | 'Viewer';
const ROLES: RootRoleName[] = ['Admin', 'Editor', 'Viewer'];

export function roleOf(raw: string, name: string): RootRoleName {
  const found = ROLES.find((r) => r.toLowerCase() === raw.trim().toLowerCase());
  if (!found) throw new ConfigError(`${name} must name a role: Admin, Editor or Viewer, got "${raw}"`);
  return found;
}

export const role: Kind<RootRoleName> = { accepts: '`Admin`, `Editor` or `Viewer`', parse: roleOf, show: (v) => v };

/** `group=Role` pairs: claim values mapped to root roles. */
export const roleMap = list<[string, RootRoleName]>('`group=Role` pairs', (item, name) => {
  const at = item.lastIndexOf('=');
  if (at <= 0) throw new ConfigError(`${name} must list group=Role pairs, such as fanion-admins=Admin, got "${item}"`);
  return [item.slice(0, at).trim(), roleOf(item.slice(at + 1), name)];
}, ([group, r]) => `${group}=${r}`);

/** A token that says its scope: `<project|*>:<environment>.<secret>` (project, environment, secret). */
export const SCOPED_TOKEN = /^([^:\s]+):([^:.\s]+)\.(\S+)$/;

/** A token whose text names its scope, one environment; the error shows no more than its prefix. */
export function scopedToken(t: string, name: string): string {
  const parsed = SCOPED_TOKEN.exec(t);
  if (!parsed) throw new ConfigError(`${name} must list tokens such as *:production.secret or myproject:production.secret (<project|*>:<environment>.<secret>), got "${t.slice(0, t.indexOf('.') + 1) || 'a value without a dot'}..."`);
  if (parsed[2] === '*') throw new ConfigError(`${name}: a token names one environment, not *`);
  return t;
}

export const scopedTokens = list('tokens `<project|*>:<environment>.<secret>`', scopedToken);

/** Frontend tokens a relay trusts without asking: the token, or `<alias>@<token>` (Edge's form for a legacy proxy key). */
export const pretrustedTokens = list<{ credential: string; project: string; environment: string }>('frontend tokens, or `<alias>@<token>`', (entry, name) => {
  const at = entry.indexOf('@');
  const token = at < 0 ? entry : entry.slice(at + 1);
  const credential = at < 0 ? entry : entry.slice(0, at);
  const m = SCOPED_TOKEN.exec(token);
  if (!m || credential === '' || m[2] === '*') {
    throw new ConfigError(`${name} must list frontend tokens (<project|*>:<environment>.<secret>) or <alias>@<token>, got an entry starting "${entry.slice(0, Math.min(entry.length, 8))}..."`);
  }
  return { credential, project: m[1], environment: m[2] };
}, (p) => p.credential);

/**
 * How many proxies stand in front (each appends the address it saw to X-Forwarded-For). `true` is
 * one, the usual single reverse proxy: trusting the left-most entry instead would let any client
 * choose its own address by sending the header itself.
 */
export const proxyHops: Kind<number> = {
  accepts: '`true`, `false` or the number of proxies in front, 0 to 10',
  parse(raw, name) {
    if (raw === 'false') return 0;
    if (raw === 'true') return 1;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0 || n > 10) throw new ConfigError(`${name} must be true, false or the number of proxies in front (0 to 10), got "${raw}"`);
    return n;
  },
  show: (n) => String(n),
};

/**
 * Environments chosen by name, or by type (`type:<type>`): each a URL-friendly name as
 * environments have (characters `encodeURIComponent` keeps).
 */
export const environmentChoices = list('environment names, or `type:<type>` for every environment of a type (e.g. `type:production`)', (item, name) => {
  const bare = item.startsWith('type:') ? item.slice(5) : item;
  if (bare === '' || bare === '.' || bare === '..' || encodeURIComponent(bare) !== bare) {
    throw new ConfigError(`${name} takes environment names or type:<type>, each of letters, digits and - _ . ! ~ * ' ( ); got "${item}"`);
  }
  return item;
});
