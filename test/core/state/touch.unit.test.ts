// What a change touched, for tokens: only a change to what a token gives access to touches them,
// so the metrics flush recording a token's last use ends no stream (issue #26, item 4).
import t from 'tap';
import { applyRecord } from '../../../src/core/state/apply.js';
import type { Op } from '../../../src/core/state/ops.js';
import { Toucher } from '../../../src/core/state/touch.js';
import type { ApiToken } from '../../../src/core/state/types.js';
import { fixtureState } from './fixture.js';

t.test('tokens are touched by a change of access, never by a recorded use', async (t) => {
  const state = fixtureState();
  const toucher = new Toucher(state);
  let lsn = 1000;
  /** Applies `ops` as one change and says whether it touched tokens. */
  const touchesTokens = (ops: Op[]) => {
    const rec = { lsn: lsn++, ops, events: [] };
    applyRecord(state, rec, false);
    return toucher.touchOf(rec).tokens;
  };
  const h1 = () => state.apiTokens.get('h1')!;
  const put = (token: ApiToken): Op => ({ o: 'token.put', token });

  t.equal(touchesTokens([put({ ...h1(), seenAt: '2026-03-01T00:00:00.000Z' })]), false, 'its last use (the metrics flush)');
  t.equal(touchesTokens([put({ ...h1(), seenAt: '2026-03-01T00:00:10.000Z' })]), false, 'and the next one');
  t.equal(touchesTokens([put({ ...h1(), hash: 'h9', tokenName: 'new' })]), false, 'a new token: no stream holds it yet');
  t.equal(touchesTokens([put({ ...h1(), projects: ['default'] })]), true, 'fewer projects');
  t.equal(touchesTokens([put({ ...h1(), environment: 'production' })]), true, 'another environment');
  t.equal(touchesTokens([put({ ...h1(), expiresAt: '2026-03-02T00:00:00.000Z' })]), true, 'an expiry');
  t.equal(touchesTokens([put({ ...h1(), type: 'frontend' })]), true, 'another type');
  t.equal(touchesTokens([put({ ...h1(), seenAt: '2026-03-01T00:00:20.000Z' })]), false, 'a use after those: the mirror followed them');
  t.equal(touchesTokens([{ o: 'token.del', hash: 'h1' }, { o: 'token.revoke', revoked: { hash: 'h1', revokedAt: '2026-03-03T00:00:00.000Z' } }]), true, 'a revocation');
  t.equal(touchesTokens([{ o: 'lastSeen', feature: 'alpha', environment: 'development', at: '2026-03-04T00:00:00.000Z' }]), false, 'a flag\'s last use');
});

t.test('people, sessions and personal tokens touch nothing an SDK sees, whatever changes', async (t) => {
  const state = fixtureState();
  const toucher = new Toucher(state);
  let lsn = 2000;
  const touch = (ops: Op[]) => {
    const rec = { lsn: lsn++, ops, events: [] };
    applyRecord(state, rec, false);
    return toucher.touchOf(rec);
  };
  const session = state.sessions.get('s1')!;
  const cases: [string, Op[]][] = [
    ['a session seen (the metrics flush)', [{ o: 'session.put', session: { ...session, seenAt: '2026-03-01T00:00:00.000Z' } }]],
    ['a personal token seen', [{ o: 'pat.put', token: { ...state.personalTokens.get('p1')!, seenAt: '2026-03-01T00:00:00.000Z' } }]],
    ['a person deactivated and signed out', [{ o: 'user.put', user: { ...state.users.get(1)!, active: false } }, { o: 'session.del', hash: 's1' }]],
    ['a password link used', [{ o: 'passwordLink.del', hash: 'l1' }]],
    ['a person deleted', [{ o: 'pat.del', hash: 'p1' }, { o: 'user.del', id: 1 }]],
    ['an impact metrics flush', [{ o: 'impact.put', key: 'k', head: { name: 'k', help: '', type: 'counter', labels: [], le: [], total: [1] } }, { o: 'impact.point', key: 'k', tier: 0, point: { t: 0, v: [1] }, since: 0 }, { o: 'impact.del', key: 'errors' }]],
    ['an impact metrics chart saved', [{ o: 'impactChart.del', id: 'c1' }]],
  ];
  for (const [what, ops] of cases) {
    const touched = touch(ops);
    t.same(
      { flags: touched.flags.size, segments: touched.segments.size, tokens: touched.tokens, environments: touched.environments.size, everything: touched.everything },
      { flags: 0, segments: 0, tokens: false, environments: 0, everything: false },
      what,
    );
  }
});
