// A keep-alive connection remembers the header it proved; revocation and a changed header must
// still take effect on that same connection at once.
import http from 'node:http';
import t from 'tap';
import { oneConnection, request } from '../../helpers/connection.js';
import { client, spawnServer } from '../../helpers/server.js';

const ADMIN = '*:*.keepalive-admin-0123456789abcdef0123';
const CLIENT = 'default:development.keepalive-client-0123456789abcdef';

/** A poll of the client API on `agent`'s one connection. */
const get = (agent: http.Agent, port: number, authorization: string) => request(agent, `http://127.0.0.1:${port}/api/client/features`, { authorization });

t.test('the per-connection memo never outlives the token or the header', async (t) => {
  const srv = await spawnServer({ env: { AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, INIT_CLIENT_API_TOKENS: CLIENT } });
  t.teardown(() => srv.stop());
  const agent = oneConnection();
  t.teardown(() => agent.destroy());

  const first = await get(agent, srv.port, CLIENT);
  t.equal(first.status, 200);
  const garbage = await get(agent, srv.port, 'default:development.not-the-secret');
  t.equal(garbage.status, 401, 'a different header on the same connection is checked afresh');
  t.equal(garbage.socket, first.socket, 'same connection');
  t.equal((await get(agent, srv.port, CLIENT)).status, 200);

  const admin = client(srv.url, { authorization: ADMIN });
  const del = await admin('DELETE', `/api/admin/api-tokens/${encodeURIComponent(CLIENT)}`);
  t.equal(del.status, 200, 'token deleted');
  const after = await get(agent, srv.port, CLIENT);
  t.equal(after.status, 401, 'a deleted token is refused on a connection that used it before');
  t.equal(after.socket, first.socket, 'still the same connection');
});
