// Reading request bodies: JSON only, bounded in size, with the spec's 415 for other types.
import type { IncomingMessage } from 'node:http';
import { parseChunked } from '@discoveryjs/json-ext';
import { ContentTypeError, PayloadTooLargeError, ValidationError } from '../core/errors.js';

export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  // What nearly every client sends, answered without splitting and lower-casing.
  if (header === 'application/json') return true;
  const type = header.split(';', 1)[0].trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

export function requireJson(req: IncomingMessage): void {
  const ct = req.headers['content-type'];
  if (!isJsonContentType(ct)) {
    throw new ContentTypeError(
      `We do not accept the content-type you provided (${ct ?? "you didn't provide one"}). Try using one of the content-types we do accept instead (application/json).`,
    );
  }
}

export async function readRaw(req: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks = await readChunks(req, limit);
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
}

/** The body as it arrived, chunk by chunk, within `limit` bytes (413 beyond). */
function readChunks(req: IncomingMessage, limit: number): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      req.resume();
      reject(new PayloadTooLargeError(`The request body is ${declared} bytes; this route accepts at most ${limit}.`));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        reject(new PayloadTooLargeError(`The request body is larger than ${limit} bytes, the most this route accepts.`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => failed || resolve(chunks));
    req.on('error', (err) => failed || reject(err));
  });
}

/**
 * Where the JSON text escapes a lone UTF-16 surrogate (`\uD800` with no partner), or -1.
 * Such a string cannot be stored: msgpack writes strings as UTF-8, which has no encoding for
 * it, so the WAL would replay a different string (U+FFFD) than the one acknowledged. Raw bytes
 * cannot smuggle one in: decoding UTF-8 never yields a lone surrogate.
 */
export function loneSurrogateAt(text: string): number {
  if (!text.includes('\\u')) return -1;
  const unit = (at: number) => (text[at] === '\\' && text[at + 1] === 'u' ? parseInt(text.slice(at + 2, at + 6), 16) : NaN);
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '\\') continue;
    const u = unit(i);
    if (Number.isNaN(u)) {
      i++; // an escape such as \\ or \n: skip the escaped character
      continue;
    }
    if (u >= 0xd800 && u <= 0xdbff) {
      const low = unit(i + 6);
      if (!(low >= 0xdc00 && low <= 0xdfff)) return i;
      i += 11;
    } else if (u >= 0xdc00 && u <= 0xdfff) {
      return i;
    } else {
      i += 5;
    }
  }
  return -1;
}

const notJson = (err: unknown) => new ValidationError(`The request body is not valid JSON: ${(err as Error).message}`, [{ message: 'invalid JSON' }]);

function refuseLoneSurrogate(text: string): void {
  const at = loneSurrogateAt(text);
  if (at >= 0) {
    throw new ValidationError(
      `The request body contains an unpaired UTF-16 surrogate (${text.slice(at, at + 6)} at character ${at}); strings must be valid Unicode.`,
      [{ message: 'unpaired surrogate in a string' }],
    );
  }
}

/** Parses a JSON body; `undefined` when the body is empty. */
export async function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  const raw = await readRaw(req, limit);
  if (raw.length === 0) return undefined;
  const text = raw.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw notJson(err);
  }
  refuseLoneSurrogate(text);
  return value;
}

/**
 * readJson for bodies of megabytes (imports): JSON.parse of a 45 MB document held the event loop
 * for a third of a second and more, and so did joining its chunks into one buffer. The chunks as
 * they arrived (64 KB each) are parsed one at a time by @discoveryjs/json-ext, with a turn of the
 * event loop between them; the value is the one JSON.parse gives.
 */
export async function readLargeJson(req: IncomingMessage, limit: number): Promise<unknown> {
  const chunks = await readChunks(req, limit);
  if (chunks.every((c) => c.length === 0)) return undefined;
  let value: unknown;
  try {
    value = await parseChunked(async function* slices() {
      for (const chunk of chunks) {
        yield chunk;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    });
  } catch (err) {
    throw notJson(err);
  }
  // Only an escape can make a lone surrogate (decoding UTF-8 never does); most bodies have none.
  // A backslash at the end of one chunk and a "u" at the start of the next count too.
  const escapes = chunks.some((c, i) => c.includes('\\u') || (c[c.length - 1] === 0x5c && chunks[i + 1]?.[0] === 0x75));
  if (escapes) refuseLoneSurrogate(Buffer.concat(chunks).toString('utf8'));
  return value;
}
