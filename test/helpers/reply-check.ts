// Every answer a test gets through `client()` is checked against the server's own
// /api/openapi.json: a 2xx body against the route's response schema (a body the document does
// not describe is a failure too), an error body against ErrorBody. So the response schemas are
// proven by the whole suite, not by a test of their own that could drift from what routes send.
import { Ajv, type ValidateFunction } from 'ajv';

interface Operation {
  responses?: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>;
}

interface Checker {
  /** Path templates as patterns, most literal segments first. */
  routes: { pattern: RegExp; literals: number; methods: Record<string, Operation> }[];
  validator(ref: string): ValidateFunction;
}

const checkers = new Map<string, Promise<Checker | null>>();

async function load(base: string): Promise<Checker | null> {
  let doc: any;
  try {
    const res = await fetch(`${base}/api/openapi.json`);
    if (!res.ok) return null;
    doc = await res.json();
  } catch {
    return null;
  }
  // Only Fanion's document: tests also call other servers (the Unleash proxy) with `client()`.
  if (doc?.info?.title !== 'Fanion' || !doc.paths) return null;
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
  ajv.addSchema(doc, 'openapi');
  const compiled = new Map<string, ValidateFunction>();
  const routes = Object.entries<Record<string, Operation>>(doc.paths).map(([p, methods]) => ({
    pattern: new RegExp(`^${p.split('/').map((seg) => (/^\{.+\}$/.test(seg) ? '[^/]+' : seg.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))).join('/')}$`),
    literals: p.split('/').filter((seg) => seg && !/^\{.+\}$/.test(seg)).length,
    methods,
  })).sort((a, b) => b.literals - a.literals);
  return {
    routes,
    validator(ref: string) {
      let fn = compiled.get(ref);
      if (!fn) {
        fn = ajv.getSchema(`openapi${ref}`);
        if (!fn) throw new Error(`the OpenAPI document has no ${ref}`);
        compiled.set(ref, fn);
      }
      return fn;
    },
  };
}

/** Throws when `json` (the answer to `method path` with `status`) breaks the server's description. */
export async function checkReply(base: string, method: string, requestPath: string, status: number, json: unknown): Promise<void> {
  const path = requestPath.split('?')[0];
  if (path === '/api/openapi.json') return;
  if (!checkers.has(base)) checkers.set(base, load(base));
  const checker = await checkers.get(base)!;
  if (!checker) return;
  const route = checker.routes.find((r) => r.pattern.test(path) && r.methods[method.toLowerCase()]);
  if (!route) return; // a path the server does not have: its 404 or 405 is checked by the tests that send it
  const op = route.methods[method.toLowerCase()];
  const where = `${method} ${path} → ${status}`;
  const documented = op.responses?.[String(status)]?.content?.['application/json']?.schema?.$ref;
  // An error has Unleash's body unless the route documents its protocol's own (OFREP).
  const ref = status >= 400 ? (documented ?? '#/components/schemas/ErrorBody') : documented;
  if (ref === undefined) {
    if (json !== undefined && status < 300) throw new Error(`${where}: the answer has a body, and the OpenAPI document describes none`);
    return;
  }
  if (json === undefined) {
    if (status < 300) throw new Error(`${where}: the OpenAPI document describes a body (${ref}), and the answer has none`);
    return;
  }
  const validate = checker.validator(ref);
  if (!validate(json)) {
    const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ');
    throw new Error(`${where}: the answer does not match ${ref}: ${errors}; body ${JSON.stringify(json).slice(0, 300)}`);
  }
}
