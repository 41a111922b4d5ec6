// The raw node:http baseline of the benchmarks (bench/ab.ts forks it): the same bytes a Fanion
// server answers, with the same headers, and nothing else loaded, so the ratio compares Fanion
// with Node itself.
//   BASELINE_IDENTITY, BASELINE_ETAG: the body's file and its ETag
//   BASELINE_GZIP: its gzip copy's file, sent when the client takes gzip (none: never gzip)
//   BASELINE_HEADERS: a JSON list of name/value pairs sent after the ETag in every answer (the
//     measured server's own; by default the client API's)
import fs from 'node:fs';
import http from 'node:http';

/** The baseline: answers with fixed buffers and headers (304 on its ETag, gzip when asked). */
function runBaseline(): void {
  const identity = fs.readFileSync(process.env.BASELINE_IDENTITY!);
  const gzip = process.env.BASELINE_GZIP ? fs.readFileSync(process.env.BASELINE_GZIP) : null;
  const etag = process.env.BASELINE_ETAG!;
  const extra = process.env.BASELINE_HEADERS ? (JSON.parse(process.env.BASELINE_HEADERS) as string[]) : ['Vary', 'Accept-Encoding', 'X-Content-Type-Options', 'nosniff'];
  const withBody = (body: Buffer) => ['Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(body.length), 'ETag', etag, ...extra];
  const notModified = ['ETag', etag, ...extra];
  const identityHeaders = withBody(identity);
  const gzipped = gzip ? { body: gzip, headers: [...withBody(gzip), 'Content-Encoding', 'gzip'] } : null;
  const server = http.createServer((req, res) => {
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, notModified);
      res.end();
      return;
    }
    if (gzipped && (req.headers['accept-encoding'] ?? '').includes('gzip')) {
      res.writeHead(200, gzipped.headers);
      res.end(gzipped.body);
      return;
    }
    res.writeHead(200, identityHeaders);
    res.end(identity);
  });
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as { port: number }).port }));
}

runBaseline();
