// Reading request bodies: JSON only, bounded in size, with the spec's 415 for other types.
import type { IncomingMessage } from 'node:http';
import { ContentTypeError, PayloadTooLargeError, ValidationError } from '../errors.js';

export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
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

export function readRaw(req: IncomingMessage, limit: number): Promise<Buffer> {
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
    req.on('end', () => failed || resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    req.on('error', (err) => failed || reject(err));
  });
}

/** Parses a JSON body; `undefined` when the body is empty. */
export async function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  const raw = await readRaw(req, limit);
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw new ValidationError(`The request body is not valid JSON: ${(err as Error).message}`, [{ message: 'invalid JSON' }]);
  }
}
