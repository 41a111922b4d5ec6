// JSON Patch (RFC 6902) for the PATCH routes of flags, strategies and variants.
import jsonPatch from 'fast-json-patch';
import { NotFoundError, ValidationError } from '../core/errors.js';

/** Applies a JSON Patch to a copy; a patch that cannot apply is the caller's error (400). */
export function applyPatch<T>(doc: T, ops: jsonPatch.Operation[]): T {
  try {
    const copy = jsonPatch.deepClone(doc) as T;
    const err = jsonPatch.validate(ops, copy);
    if (err) throw err;
    return jsonPatch.applyPatch(copy, ops, false, true).newDocument;
  } catch (err) {
    if (err instanceof NotFoundError) throw err;
    const e = err as { message?: string; name?: string };
    throw new ValidationError(`The patch could not be applied: ${(e.message ?? String(err)).split('\n')[0]}`, [{ message: e.name ?? 'invalid patch' }]);
  }
}

/** A PATCH body: registered under this name by every routes module that takes one. */
export const jsonPatchSchema = {
  type: 'array',
  description: 'a JSON Patch array (RFC 6902), such as [{"op": "replace", "path": "/description", "value": "New text"}]',
  maxItems: 1000,
  items: {
    type: 'object',
    required: ['op', 'path'],
    properties: {
      op: { enum: ['add', 'remove', 'replace', 'copy', 'move', 'test'] },
      path: { type: 'string' },
      from: { type: 'string' },
      value: {},
    },
  },
};
