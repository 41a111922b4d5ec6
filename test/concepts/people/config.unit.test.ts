// The settings of people and sign-in: defaults, and a bad value refused with one line naming it.
import t from 'tap';
import { ConfigError, loadConfig } from '../../../src/core/config.js';

const base = { DATA_DIR: '/tmp/x' };

t.test('defaults', async (t) => {
  const c = loadConfig(base);
  t.same(
    [c.signIn.sessionIdleMs, c.signIn.sessionMaxAgeMs, c.signIn.passwordLinkTtlMs, c.signIn.passwords, c.signIn.perAddress, c.signIn.perAccount, c.signIn.limiterEntries, c.signIn.passwordScryptLogN, c.signIn.passwordHashConcurrency, c.signIn.passwordHashQueue],
    [8 * 3600_000, 48 * 3600_000, 24 * 3600_000, true, 10, 5, 10_000, 15, 2, 32],
  );
  t.equal(c.signIn.defaultAdminUsername, 'admin');
  t.equal(c.signIn.defaultAdminPassword, undefined, 'no built-in password');
  t.equal(c.signIn.oidc, null);
});

t.test('single sign-on settings', async (t) => {
  const oidc = {
    ...base, OIDC_ISSUER: 'https://idp.example.com/', OIDC_CLIENT_ID: 'fanion', OIDC_CLIENT_SECRET: 's', PUBLIC_URL: 'https://flags.example.com/',
    OIDC_ROLE_CLAIM: 'groups', OIDC_ROLE_MAP: 'admins=admin, devs=Editor', OIDC_AUTO_CREATE: 'true',
  };
  const c = loadConfig(oidc);
  t.same(c.signIn.oidc, {
    issuer: 'https://idp.example.com', clientId: 'fanion', clientSecret: 's', displayName: 'idp.example.com', scopes: 'openid email profile',
    autoCreate: true, defaultRole: 'Viewer', roleClaim: 'groups', roleMap: [['admins', 'Admin'], ['devs', 'Editor']],
  });
  t.equal(c.publicUrl, 'https://flags.example.com');
  t.equal(loadConfig({ ...oidc, OIDC_ISSUER: 'http://127.0.0.1:9000' }).signIn.oidc?.issuer, 'http://127.0.0.1:9000', 'http on this machine (tests)');
  const refused: [Record<string, string>, RegExp][] = [
    [{ OIDC_ISSUER: 'http://idp.example.com' }, /OIDC_ISSUER must be an https URL/],
    [{ OIDC_CLIENT_ID: '' }, /OIDC_CLIENT_ID must be set/],
    [{ PUBLIC_URL: '' }, /PUBLIC_URL must be set with OIDC_ISSUER/],
    [{ OIDC_ROLE_MAP: 'admins' }, /OIDC_ROLE_MAP must list group=Role pairs/],
    [{ OIDC_ROLE_MAP: 'admins=Boss' }, /must name a role/],
    [{ OIDC_ROLE_CLAIM: '' }, /OIDC_ROLE_MAP needs OIDC_ROLE_CLAIM/],
    [{ OIDC_DEFAULT_ROLE: 'Owner' }, /OIDC_DEFAULT_ROLE must name a role/],
  ];
  for (const [change, message] of refused) t.throws(() => loadConfig({ ...oidc, ...change }), message, JSON.stringify(change));
  t.throws(() => loadConfig({ ...base, OIDC_CLIENT_ID: 'x' }), /OIDC_CLIENT_ID is set but OIDC_ISSUER is not/);
});

t.test('bad values stop the start', async (t) => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ SESSION_IDLE_TIMEOUT_MS: '100', SESSION_MAX_AGE_MS: '50' }, /cannot be longer than SESSION_MAX_AGE_MS/],
    [{ PASSWORD_SCRYPT_LOG_N: '9' }, /PASSWORD_SCRYPT_LOG_N must be from 10 to 20/],
    [{ PASSWORD_SCRYPT_LOG_N: '21' }, /from 10 to 20/],
    [{ SIGN_IN_LIMIT_PER_ADDRESS: '0' }, /SIGN_IN_LIMIT_PER_ADDRESS must be at least 1/],
    [{ PASSWORD_SIGN_IN: 'maybe' }, /PASSWORD_SIGN_IN must be true or false/],
    [{ PUBLIC_URL: 'flags.example.com' }, /PUBLIC_URL must be the http\(s\) address/],
    [{ PUBLIC_URL: 'https://user:pw@flags.example.com' }, /PUBLIC_URL/],
  ];
  for (const [env, message] of cases) {
    let err: unknown = null;
    try {
      loadConfig({ ...base, ...env });
    } catch (e) {
      err = e;
    }
    t.ok(err instanceof ConfigError && message.test((err as Error).message), `${JSON.stringify(env)}: ${(err as Error | null)?.message}`);
  }
});

t.test('TRUST_PROXY: false, true (one proxy) or the number of proxies in front', async (t) => {
  t.equal(loadConfig(base).http.trustProxy, 0, 'off by default');
  t.same(['false', '0', 'true', '1', '2', '10'].map((v) => loadConfig({ ...base, TRUST_PROXY: v }).http.trustProxy), [0, 0, 1, 1, 2, 10]);
  for (const v of ['yes', '-1', '1.5', '11']) t.throws(() => loadConfig({ ...base, TRUST_PROXY: v }), /TRUST_PROXY must be true, false or the number of proxies in front/, `"${v}" is refused`);
});
