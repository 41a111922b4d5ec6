// The raw node:http baseline of the poll benchmarks (bench/ab.ts forks it): the same bytes a
// Fanion server answers, with the same headers, and nothing else loaded, so the ratio compares
// Fanion with Node itself.
import fs from 'node:fs';
import http from 'node:http';

/** The baseline: answers the poll with fixed buffers (304 on its ETag, gzip when asked). */
function runBaseline(): void {
  const identity = fs.readFileSync(process.env.BASELINE_IDENTITY!);
  const gzip = fs.readFileSync(process.env.BASELINE_GZIP!);
  const etag = process.env.BASELINE_ETAG!;
  const server = http.createServer((req, res) => {
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, ['ETag', etag, 'Vary', 'Accept-Encoding', 'X-Content-Type-Options', 'nosniff']);
      res.end();
      return;
    }
    const gz = (req.headers['accept-encoding'] ?? '').includes('gzip');
    const body = gz ? gzip : identity;
    const headers = ['Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(body.length), 'ETag', etag, 'Vary', 'Accept-Encoding', 'X-Content-Type-Options', 'nosniff'];
    if (gz) headers.push('Content-Encoding', 'gzip');
    res.writeHead(200, headers);
    res.end(body);
  });
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as { port: number }).port }));
}

runBaseline();
