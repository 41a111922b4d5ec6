// Requests that Node's HTTP parser rejects still get the Unleash error body.
import net from 'node:net';
import t from 'tap';
import { spawnServer } from '../helpers/server.js';

function raw(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1', () => sock.write(text));
    let out = '';
    sock.on('data', (d) => (out += d.toString()));
    sock.on('end', () => resolve(out));
    sock.on('error', reject);
  });
}

t.test('parser-level errors answer with {id, name, message}', async (t) => {
  const srv = await spawnServer();
  t.teardown(() => srv.stop());

  const malformed = await raw(srv.port, 'THIS IS NOT HTTP\r\n\r\n');
  t.match(malformed, /^HTTP\/1\.1 400 /, 'malformed request line is a 400');
  const body = JSON.parse(malformed.split('\r\n\r\n')[1]);
  t.equal(body.name, 'BadRequestError');
  t.type(body.id, 'string');

  const huge = await raw(srv.port, `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
  t.match(huge, /^HTTP\/1\.1 431 /, 'oversized headers are a 431');
  t.equal(JSON.parse(huge.split('\r\n\r\n')[1]).name, 'RequestHeaderFieldsTooLarge');

  const health = await fetch(`${srv.url}/health`);
  t.equal(health.status, 200, 'the server keeps serving');
});
