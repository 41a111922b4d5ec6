// v2 API tokens, as Unleash 8.1+ issues them (`<projects>:<environment>.v2_<22-character
// selector>_<43-character secret>`, base64url; protocols.md § 6), seeded through INIT_*_API_TOKENS:
// each authenticates on its own API, is stored only as a hash, and a near miss is refused.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { parseSeedToken } from '../../../src/concepts/tokens/format.js';
import { V2_TOKEN } from '../../../src/modes/migrate/mapping.js';
import { client, spawnServer } from '../../helpers/server.js';

/** The way Unleash 8.1 makes one (authorization-token.ts createTokenV2Credential). */
const v2 = (prefix: string) => `${prefix}.v2_${randomBytes(16).toString('base64url')}_${randomBytes(32).toString('base64url')}`;

t.test('the v2 form parses, with base64url characters of every kind', async (t) => {
  const token = `default:production.v2_${'-_Az09'.repeat(3)}abcd_${'_-zA90'.repeat(7)}q`;
  t.ok(V2_TOKEN.test(token), 'a 22-character selector and a 43-character secret');
  t.same(parseSeedToken(token), { project: 'default', environment: 'production' });
  t.same(parseSeedToken(v2('*:*')), { project: '*', environment: '*' });
});

t.test('INIT_*_API_TOKENS take v2 tokens: each works on its API, only a hash is stored, a near miss is refused', async (t) => {
  const admin = v2('*:*');
  const backend = v2('default:development');
  const frontend = v2('default:development');
  const srv = await spawnServer({ env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: admin, INIT_BACKEND_API_TOKENS: backend, INIT_FRONTEND_API_TOKENS: frontend } });
  t.teardown(() => srv.stop());
  t.equal((await client(srv.url, { authorization: admin })('GET', '/api/admin/projects')).status, 200, 'admin');
  t.equal((await client(srv.url, { authorization: backend })('GET', '/api/client/features')).status, 200, 'backend');
  t.equal((await client(srv.url, { authorization: `Bearer ${backend}` })('GET', '/api/client/features')).status, 200, 'backend, as a Bearer token');
  t.equal((await client(srv.url, { authorization: frontend })('GET', '/api/frontend')).status, 200, 'frontend');
  const last = backend.slice(-1) === 'A' ? 'B' : 'A';
  t.equal((await client(srv.url, { authorization: backend.slice(0, -1) + last })('GET', '/api/client/features')).status, 401, 'one character off');
  t.equal((await client(srv.url, { authorization: backend.replace('default:development.', '*:development.') })('GET', '/api/client/features')).status, 401, 'another scope written in front');
  const listed = (await client(srv.url, { authorization: admin })('GET', '/api/admin/api-tokens')).json.tokens;
  t.same(listed.map((x: { prefix: string }) => x.prefix).sort(), ['*:*.', 'default:development.', 'default:development.']);
  await srv.stop();
  const onDisk = fs.readdirSync(srv.dataDir).map((f) => fs.readFileSync(path.join(srv.dataDir, f), 'latin1')).join('');
  for (const secret of [admin, backend, frontend]) t.notOk(onDisk.includes(V2_TOKEN.exec(secret)![2]), 'no secret part in the data folder');
});
