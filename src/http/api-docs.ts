// Interactive API documentation at /docs/openapi: Swagger UI (npm swagger-ui-dist, served from
// node_modules, never from a CDN) over /api/openapi.json. Only the files listed here are served,
// each read once, on first use.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Routes } from './route-index.js';

const DOCS = '/docs/openapi';

/** name → content type, for the files the page needs. */
const FILES: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Fanion API</title>
<link rel="stylesheet" href="${DOCS}/swagger-ui.css">
<link rel="icon" type="image/png" href="${DOCS}/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${DOCS}/swagger-ui-bundle.js"></script>
<script src="${DOCS}/swagger-ui-standalone-preset.js"></script>
<script src="${DOCS}/init.js"></script>
</body>
</html>
`;

// Not inline in the page, so the page works under a strict Content-Security-Policy.
const INIT = `window.ui = SwaggerUIBundle({
  url: '/api/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  persistAuthorization: false,
  // Swagger UI would otherwise show a badge fetched from validator.swagger.io: nothing here is
  // loaded from another site (the document is checked in npm test instead).
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'StandaloneLayout',
});
`;

const HEADERS = { 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'public, max-age=3600' };

/**
 * The page may load only this server's files and call only this server; no frames around it (a
 * page that takes a token must not be clickjacked). Swagger UI sets styles on elements, hence the
 * one relaxation: inline styles, never inline scripts.
 */
const PAGE_POLICY = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'";
const PAGE_HEADERS = { 'Content-Security-Policy': PAGE_POLICY, 'X-Frame-Options': 'DENY', 'Referrer-Policy': 'no-referrer' };

/** Mounts the page and its files on `app`. */
export function mountApiDocs(app: Routes): void {
  const dir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const cache = new Map<string, Buffer>();
  const send = (res: import('node:http').ServerResponse, type: string, body: Buffer | string, extra?: Record<string, string>) => {
    res.writeHead(200, { ...HEADERS, ...extra, 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  };
  app.get(DOCS, (_req, res) => send(res, 'text/html; charset=utf-8', PAGE, PAGE_HEADERS));
  app.get(`${DOCS}/init.js`, (_req, res) => send(res, 'text/javascript; charset=utf-8', INIT));
  for (const [name, type] of Object.entries(FILES)) {
    app.get(`${DOCS}/${name}`, (_req, res) => {
      let body = cache.get(name);
      if (!body) cache.set(name, (body = fs.readFileSync(path.join(dir, name))));
      send(res, type, body);
    });
  }
}
