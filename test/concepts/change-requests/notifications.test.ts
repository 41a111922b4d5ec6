// Change requests notify by webhook like any event: a webhook that asks only for the
// change-request-* events hears each step of a request (drafted, sent to review, approved,
// applied; and another rejected), in order, naming the project and environment, and nothing else.
import t from 'tap';
import { signInAs, STRONG, withSession } from '../../helpers/people.js';
import { serve } from '../../helpers/server.js';
import { RECEIVERS_ALLOWED, receiverFor, until, webhook } from '../../helpers/receiver.js';

const ADMIN = '*:*.change-request-notifications-admin';
const CR = '/api/admin/projects/shop/change-requests';
const DRAFT = '/api/admin/projects/shop/environments/production/change-requests';
const STEPS = ['change-request-created', 'change-added', 'change-request-sent-to-review', 'change-request-approval-added', 'change-request-approved', 'change-request-applied', 'change-request-rejected'];

t.test('a webhook for change-request events hears every step, in order, and nothing else', async (t) => {
  const receiver = await receiverFor(t);
  const { srv, ok } = await serve(t, {
    env: {
      AUTH_TYPE: 'api-token', INIT_ADMIN_API_TOKENS: ADMIN, UNLEASH_DEFAULT_ADMIN_PASSWORD: STRONG, SIGN_IN_LIMIT_PER_ADDRESS: '1000',
      CHANGE_REQUESTS_DEFAULT_ENVIRONMENTS: 'production', ...RECEIVERS_ALLOWED,
    },
    authorization: ADMIN,
  });
  await ok('POST', '/api/admin/projects', { id: 'shop', name: 'Shop' });
  await ok('POST', '/api/admin/projects/shop/features', { name: 'checkout' });
  for (const name of ['ann', 'bob']) await ok('POST', '/api/admin/user-admin', { username: name, password: STRONG, rootRole: 'Editor' });
  await ok('POST', '/api/admin/addons', webhook(receiver.url, { events: STEPS }));
  const ann = withSession(srv.url, await signInAs(srv.url, 'ann', STRONG));
  const bob = withSession(srv.url, await signInAs(srv.url, 'bob', STRONG));
  const step = async (res: Promise<{ status: number; json: any; text: string }>) => {
    const r = await res;
    if (r.status !== 200) throw new Error(`${r.status} ${r.text}`);
    return r.json;
  };

  const first = await step(ann('POST', DRAFT, { feature: 'checkout', action: 'updateEnabled', payload: { enabled: true } }));
  await step(ann('PUT', `${CR}/${first.id}/state`, { state: 'In review' }));
  await step(bob('PUT', `${CR}/${first.id}/state`, { state: 'Approved' }));
  await step(bob('PUT', `${CR}/${first.id}/state`, { state: 'Applied' }));
  const second = await step(ann('POST', DRAFT, { feature: 'checkout', action: 'updateEnabled', payload: { enabled: false } }));
  await step(ann('PUT', `${CR}/${second.id}/state`, { state: 'In review' }));
  await step(bob('PUT', `${CR}/${second.id}/state`, { state: 'Rejected', comment: 'not today' }));

  const expected = [
    // One approval of one needed is the approval (an approval short of the number is -approval-added).
    'change-request-created', 'change-added', 'change-request-sent-to-review', 'change-request-approved', 'change-request-applied',
    'change-request-created', 'change-added', 'change-request-sent-to-review', 'change-request-rejected',
  ];
  await until('every step delivered', () => receiver.received.length >= expected.length);
  const sent = receiver.received.map((r) => JSON.parse(r.body) as { type: string; project?: string; environment?: string; createdBy?: string });
  t.same(sent.map((e) => e.type), expected, 'each step once, in order; the flag switch itself was not asked for');
  t.ok(sent.every((e) => e.project === 'shop' && e.environment === 'production'), 'each names the project and environment');
  t.same(sent.filter((e) => e.type === 'change-request-approved' || e.type === 'change-request-rejected').map((e) => e.createdBy), ['bob', 'bob'], 'the reviewer is named');
  // Nothing more arrives: the applied switch (feature-environment-enabled) was not subscribed to.
  await new Promise((r) => setTimeout(r, 300));
  t.equal(receiver.received.length, expected.length, 'and nothing else');
});
