// Import bodies are parsed chunk by chunk (readLargeJson) so that a 45 MB document does not hold
// the event loop: the value must be JSON.parse's, and what readJson refuses it refuses too (not
// JSON, an unpaired surrogate escape, even one cut across two chunks), with the same 400.
import { Readable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import t from 'tap';
import { readJson, readLargeJson } from '../../src/http/body.js';

/** A request whose body arrives in the given pieces. */
function request(...pieces: string[]): IncomingMessage {
  const req = Readable.from(pieces.map((p) => Buffer.from(p))) as unknown as IncomingMessage;
  req.headers = {};
  return req;
}

async function outcome(read: typeof readJson, pieces: string[]): Promise<unknown> {
  try {
    return { value: await read(request(...pieces), 1 << 20) };
  } catch (err) {
    return { error: (err as Error).name, invalidJson: /not valid JSON/.test((err as Error).message), surrogate: /unpaired UTF-16 surrogate/.test((err as Error).message) };
  }
}

t.test('readLargeJson reads what readJson reads, and refuses what it refuses', async (t) => {
  const doc = JSON.stringify({ version: 4, features: [{ name: 'ü-flag', description: 'a "quoted" \\ line\nand emoji 😀' }], n: [1, 2.5, -3e2, null, true] });
  const cases: [string, string[]][] = [
    ['a document in one piece', [doc]],
    ['a document cut everywhere, a multi-byte character included', doc.match(/[\s\S]{1,7}/g)!],
    ['empty', ['']],
    ['not JSON', ['{"version": 4,']],
    ['trailing garbage', ['{"version": 4} x']],
    ['an unpaired surrogate escape', ['{"name": "a\\ud800b"}']],
    ['an unpaired surrogate escape cut between two chunks', ['{"name": "a\\', 'ud800b"}']],
    ['a paired surrogate escape', ['{"name": "\\ud83d\\ude00"}']],
    ['an escaped backslash before a u', ['{"name": "\\\\ud800"}']],
  ];
  for (const [what, pieces] of cases) {
    const whole = await outcome(readJson, [pieces.join('')]);
    t.same(await outcome(readLargeJson, pieces), whole, `${what}: ${JSON.stringify(whole).slice(0, 100)}`);
  }
});
