// Route declarations are checked when they are mounted, at start-up: a body schema nobody
// registered, a fastPath on anything but a permission-less GET, or body scopes without a
// permission stop the server from starting instead of failing at the first request.
import polka from 'polka';
import t from 'tap';
import { loadConfig } from '../../src/core/config.js';
import { mount } from '../../src/http/pipeline.js';
import type { AppContext, RouteDef } from '../../src/http/route.js';
import { SchemaRegistry } from '../../src/http/validation.js';
import { createLogger } from '../../src/core/logger.js';

const registered = { type: 'object', properties: { name: { type: 'string' } } };
const stranger = { type: 'object' };

function ctx(): AppContext {
  const schemas = new SchemaRegistry();
  schemas.add('registeredSchema', registered);
  return { schemas, config: loadConfig({}), log: createLogger('silent') } as unknown as AppContext;
}

const route = (r: Partial<RouteDef>): RouteDef => ({ method: 'POST', path: '/x', summary: 's', tag: 't', handler: () => ({ status: 200 }), ...r });

t.test('a route whose body schema was registered mounts', async (t) => {
  t.doesNotThrow(() => mount(polka(), ctx(), [route({ body: registered, permission: 'ADMIN' })]));
});

t.test('declarations that cannot work are refused at mount', async (t) => {
  t.throws(() => mount(polka(), ctx(), [route({ body: stranger })]), /a schema that no module registered/);
  t.throws(() => mount(polka(), ctx(), [route({ reply: stranger })]), /a schema that no module registered/, 'an answer schema too');
  t.throws(() => mount(polka(), ctx(), [route({ fastPath: true })]), /fastPath is only for GETs without a permission/);
  t.throws(() => mount(polka(), ctx(), [route({ method: 'GET', fastPath: true, permission: 'READ' })]), /fastPath is only for GETs/);
  t.throws(() => mount(polka(), ctx(), [route({ method: 'GET', body: registered })]), /a GET has no body/);
  t.throws(() => mount(polka(), ctx(), [route({ bodyScopes: () => [] })]), /bodyScopes need a permission/);
});

t.test('one schema object cannot be registered under two different names with different content', async (t) => {
  const schemas = new SchemaRegistry();
  schemas.add('a', registered);
  t.throws(() => schemas.add('a', stranger), /two different schemas are both named a/);
  t.equal(schemas.nameOf(registered), 'a');
});
