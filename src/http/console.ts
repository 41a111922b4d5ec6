// The admin console's files (dist/ui, built from ui/ by `npm ci`), served from memory: read and
// gzipped once at start, answered with an ETag (304 when it matches), gzip when the browser takes
// it, and cached for a year when the name carries a content hash. The page itself is revalidated
// on every load, so a new version shows after a restart, and it may only load this server's files.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

/** Where `npm ci` (scripts/build-ui.mjs) puts the console: dist/ui, beside dist/src. */
export const CONSOLE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../ui');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/** The page may load and call only this server; nothing inline, no frames around it. */
const PAGE_POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

interface Asset {
  type: string;
  body: Buffer;
  gzip: Buffer;
  etag: string;
  cache: string;
}

/** The console's files, keyed by the path they are served at (`/` for the page). */
export function loadConsole(dir = CONSOLE_DIR): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  if (!fs.existsSync(path.join(dir, 'index.html'))) return assets;
  for (const name of fs.readdirSync(dir)) {
    const type = TYPES[path.extname(name)];
    if (!type) continue;
    const body = fs.readFileSync(path.join(dir, name));
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    const page = name === 'index.html';
    assets.set(page ? '/' : `/ui/${name}`, {
      type, body, gzip: zlib.gzipSync(body, { level: 9 }), etag,
      // Fingerprinted names never change content: a year, immutable. The page: ask every time.
      cache: page ? 'no-cache' : 'public, max-age=31536000, immutable',
    });
  }
  return assets;
}

/** Answers a GET for `url` from `assets`; false when it is not one of them. */
export function serveConsole(assets: Map<string, Asset>, req: IncomingMessage, res: ServerResponse, url: string): boolean {
  const asset = assets.get(url === '/index.html' ? '/' : url);
  if (!asset) return false;
  const headers: Record<string, string> = {
    'Content-Type': asset.type, ETag: asset.etag, 'Cache-Control': asset.cache, Vary: 'Accept-Encoding', 'X-Content-Type-Options': 'nosniff',
  };
  if (asset.type.startsWith('text/html')) {
    headers['Content-Security-Policy'] = PAGE_POLICY;
    headers['X-Frame-Options'] = 'DENY';
    headers['Referrer-Policy'] = 'no-referrer';
  }
  if (req.headers['if-none-match'] === asset.etag) {
    res.writeHead(304, headers);
    res.end();
    return true;
  }
  const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
  const body = gzip ? asset.gzip : asset.body;
  if (gzip) headers['Content-Encoding'] = 'gzip';
  headers['Content-Length'] = String(body.length);
  res.writeHead(200, headers);
  res.end(req.method === 'HEAD' ? undefined : body);
  return true;
}
