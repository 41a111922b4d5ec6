// People over HTTP, on Unleash's paths: sign-in (/auth/simple/login), sign-out (/logout), one-time
// links (/auth/reset/…), the signed-in person's own routes (/api/admin/user…) and the people an
// Admin manages (/api/admin/user-admin…). Secrets (passwords, session ids, link and token secrets)
// are hashed here, at the edge, before any command sees them, and never logged or echoed back
// (but a new personal token's secret, once, in the answer that made it).
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AdminCaller } from '../../core/access/access.js';
import { PROJECT_ROLES, ROOT_ROLES, permissionsOf } from '../../core/access/permissions.js';
import { FanionError, invalid, NoAccessError, PasswordMismatch } from '../../core/errors.js';
import { callerAddress } from '../frontend/context.js';
import type { AppContext, RouteDef } from '../../http/route.js';
import type { State } from '../../core/state/state.js';
import type { User } from '../../core/state/types.js';
import type { TokenHasher } from '../tokens/hasher.js';
import {
  actorName, closeSession, closeSessionsOf, createPasswordLink, createPerson, createPersonalToken, deletePersonalToken, deletePerson, findByLogin, invitePerson,
  openSession, patView, rehashPassword, requireUser, setPassword, ssoPerson, updatePerson, usePasswordLink, userView, validLink, type PersonInput,
} from './logic.js';
import { PENDING_MS as OIDC_PENDING_MS, type OidcSignIn } from './oidc.js';
import { parametersOf, type PasswordHasher } from './password-hasher.js';
import { passwordProblem } from './password-policy.js';
import { PAT_PREFIX, type PeopleAuthenticator } from './people-authenticator.js';
import { peopleReplies, peopleSchemas } from './schema.js';
import { cookieHeader, cookieOf, OIDC_COOKIE, SESSION_COOKIE } from './session-cookie.js';
import type { SignInGuard } from './sign-in-guard.js';

const ME = '/api/admin/user';
const ADMIN = '/api/admin/user-admin';
const TAG = 'People';
/** Nothing about a person or a secret may be kept by a cache. */
const NO_STORE = { 'Cache-Control': 'no-store' };

export interface PeopleParts {
  /** Null with AUTH_TYPE=none: nobody signs in, everyone is an admin. */
  people: PeopleAuthenticator | null;
  passwords: PasswordHasher;
  hasher: TokenHasher;
  guard: SignInGuard;
  oidc: OidcSignIn | null;
}

/** A new random secret for a session id or a link (32 bytes). */
export const newSecret = () => randomBytes(32).toString('base64url');

/** Live sessions per person, counted in one pass (a listing of every person must not scan the sessions once each). */
function sessionCounts(state: State): Map<number, number> {
  const counts = new Map<number, number>();
  for (const s of state.sessions.values()) counts.set(s.userId, (counts.get(s.userId) ?? 0) + 1);
  return counts;
}

/** A person as answers show them (Unleash's user shape, with Fanion's fields). */
export function publicUser(u: User, state: State, counts = sessionCounts(state)) {
  return {
    ...userView(u), accountType: 'User', seenAt: u.seenAt, createdAt: u.createdAt, loginAttempts: 0, sso: u.sso !== null, activeSessions: counts.get(u.id) ?? 0,
    // False for someone invited who has not yet chosen a password (the console says "invited").
    passwordSet: u.passwordHash !== null,
  };
}

export function peopleRoutes(ctx: AppContext, parts: PeopleParts): RouteDef[] {
  ctx.schemas.addAll(peopleSchemas);
  ctx.schemas.describe(peopleReplies);
  const { engine, config } = ctx;
  const { people, passwords, hasher, guard, oidc } = parts;
  const state = () => engine.state;
  /** The parameters of every stored password hash: a check derives at each (see PasswordHasher.verify). */
  const hashParameters = () => {
    const params = new Set<string | null>();
    for (const u of state().users.values()) if (u.passwordHash !== null) params.add(parametersOf(u.passwordHash));
    return params;
  };
  const address = (req: IncomingMessage) => callerAddress(req, config.http.trustProxy) ?? 'unknown';
  const limits = { maxAgeMs: config.signIn.sessionMaxAgeMs, idleMs: config.signIn.sessionIdleMs };
  const linkUrl = (kind: 'invite' | 'reset', secret: string) => `${config.publicUrl ?? ''}/#/${kind}/${secret}`;
  const signedIn = (): PeopleAuthenticator => {
    if (!people) throw new NoAccessError('AUTH_TYPE=none: everyone is an admin, and nobody signs in.');
    return people;
  };
  /** The person calling (403 for an API token); `sessionOnly` refuses a personal token too (changing a password, making tokens). */
  const person = (caller: AdminCaller, what: string, sessionOnly = false): User => {
    if (caller.userId === undefined) throw new NoAccessError(`${what} is for a signed-in person; an API token is not one.`);
    if (sessionOnly && caller.via !== 'session') throw new NoAccessError(`${what} needs a signed-in session; a personal access token may not.`);
    return requireUser(state(), caller.userId);
  };
  const newPassword = async (password: string, field = 'password'): Promise<string> => {
    const problem = passwordProblem(password, field);
    if (problem) throw problem;
    return passwords.hash(password);
  };
  const setCookie = (req: IncomingMessage, value: string | null) => ({ 'Set-Cookie': cookieHeader(req, config.http.trustProxy, SESSION_COOKIE, value, config.signIn.sessionMaxAgeMs), ...NO_STORE });

  /** Opens a session for `user` (who just proved who they are) and answers with its cookie. */
  const signIn = async (req: IncomingMessage, user: User, method: 'password' | 'oidc'): Promise<string> => {
    const auth = signedIn();
    const id = newSecret();
    const replaces = auth.sessionOf(req)?.hash ?? null;
    await engine.run({ name: actorName(user), userId: user.id }, openSession(user.id, hasher.hash(id), method, limits, replaces));
    return id;
  };

  const routes: RouteDef[] = [
    {
      method: 'GET', path: '/auth/options', tag: TAG, summary: 'How one may sign in here: with a password, with single sign-on', reply: peopleReplies.signInOptionsSchema,
      handler: () => ({ status: 200, body: { password: config.signIn.passwords && people !== null, oidc: oidc ? { name: oidc.displayName, url: '/auth/oidc/login' } : null } }),
    },
    {
      method: 'POST', path: '/auth/simple/login', tag: TAG, summary: 'Sign in with an email or username and a password; sets the session cookie',
      body: peopleSchemas.loginSchema, reply: peopleReplies.userSchema,
      responses: { 200: 'Signed in (Set-Cookie)', 401: 'Unknown account, wrong password or deactivated account: one answer for all', 403: 'Password sign-in is turned off', 429: 'Too many attempts (Retry-After)' },
      handler: async ({ req, body }) => {
        signedIn();
        if (!config.signIn.passwords) throw new NoAccessError(`Sign-in with a password is turned off here (PASSWORD_SIGN_IN=false)${oidc ? `: sign in with ${oidc.displayName}` : ''}.`);
        const { username, password } = body as { username: string; password: string };
        const from = address(req);
        const user = findByLogin(state(), username);
        guard.attempt(from, user ? { person: user.id } : { name: username });
        const usable = user !== undefined && user.active ? user.passwordHash : null;
        // The same hashing whatever happens (dummies without a usable hash): one answer, one timing.
        if (!(await passwords.verify(usable, password, { inUse: hashParameters(), owner: from })) || !user) {
          throw new PasswordMismatch('The combination of password and username you provided is invalid. If you have forgotten your password, ask an admin for a reset link.');
        }
        guard.succeeded(user.id);
        // A hash made with weaker parameters (an older PASSWORD_SCRYPT_LOG_N) is redone now that the password is at hand.
        if (passwords.weaker(user.passwordHash!)) await engine.run({ name: 'password-rehash', userId: user.id }, rehashPassword(user.id, await passwords.hash(password)));
        const id = await signIn(req, user, 'password');
        return { status: 200, body: publicUser(state().users.get(user.id)!, state()), headers: setCookie(req, id) };
      },
    },
    {
      method: 'POST', path: '/logout', tag: TAG, summary: 'Sign out: ends this session and clears its cookie, then goes to the console', anyContentType: true,
      responses: { 302: 'Signed out; Location is the console' },
      handler: async ({ req }) => {
        const current = people?.sessionOf(req) ?? null;
        if (current) await engine.run({ name: 'sign-out', userId: current.user.id }, closeSession(current.hash));
        return { status: 302, headers: { ...setCookie(req, null), Location: '/' } };
      },
    },
    {
      method: 'GET', path: '/auth/reset/validate', tag: TAG, summary: 'Whom an invitation or reset link (`?token=`) is for, while it is valid', reply: peopleReplies.tokenUserSchema,
      responses: { 200: 'Valid', 401: 'Used, expired, replaced or unknown', 429: 'Too many attempts' },
      handler: ({ req, query }) => {
        guard.attempt(address(req));
        const token = typeof query.token === 'string' ? query.token : '';
        const { link, user } = validLink(state(), hasher.hash(token), engine.now().toISOString());
        const role = ROOT_ROLES.find((r) => r.name === user.rootRole)!;
        return { status: 200, body: { id: user.id, name: user.name, email: user.email, username: user.username, token, createdBy: link.createdBy, role }, headers: NO_STORE };
      },
    },
    {
      method: 'POST', path: '/auth/reset/password', tag: TAG, summary: "Set one's password with an invitation or reset link (once); ends every session of the person",
      body: peopleSchemas.changePasswordSchema,
      responses: { 200: 'Password set', 400: 'The password is too short or too common', 401: 'Used, expired, replaced or unknown link', 429: 'Too many attempts' },
      handler: async ({ req, body }) => {
        guard.attempt(address(req));
        const { token, password } = body as { token: string; password: string };
        const hash = hasher.hash(token);
        // Checked before the password is hashed: a wrong link costs no scrypt.
        validLink(state(), hash, engine.now().toISOString());
        const passwordHash = await newPassword(password);
        await engine.run({ name: 'password-link', userId: null }, usePasswordLink(hash, passwordHash));
        return { status: 200, headers: NO_STORE };
      },
    },
    {
      method: 'POST', path: '/auth/reset/validate-password', tag: TAG, summary: 'Whether a password would be accepted (length, not a common one)',
      body: peopleSchemas.validatePasswordSchema, responses: { 200: 'Acceptable', 400: 'Refused, with the reason' },
      handler: ({ body }) => {
        const problem = passwordProblem((body as { password: string }).password);
        if (problem) throw problem;
        return { status: 200 };
      },
    },
    // The signed-in person (or the token) calling.
    {
      method: 'GET', path: ME, tag: TAG, summary: 'Who is calling and what they may do (a person, or the API token)', reply: peopleReplies.meSchema, permission: 'READ',
      // It shows callers only themselves: any admin caller may ask, a limited token too.
      scope: () => ({ visibleOnly: true }),
      handler: ({ req }) => {
        const caller = ctx.auth.caller(req);
        const user = caller.userId !== undefined
          ? publicUser(requireUser(state(), caller.userId), state())
          : { id: 0, name: caller.actor.name, username: caller.actor.name, accountType: caller.via === 'open' ? 'Open' : 'API token' };
        return {
          status: 200,
          body: { user, permissions: permissionsOf(caller.grant), feedback: [], splash: {}, authType: caller.via, rootRoles: ROOT_ROLES, projectRoles: PROJECT_ROLES },
          headers: NO_STORE,
        };
      },
    },
    {
      method: 'POST', path: `${ME}/change-password`, tag: TAG, summary: 'Change your own password (give the old one); ends your other sessions',
      body: peopleSchemas.passwordSchema, permission: 'READ',
      responses: { 200: 'Changed', 400: 'Refused (too short, too common, or not the same twice)', 401: 'The old password is wrong', 403: 'Not a session', 429: 'Too many attempts' },
      handler: async ({ req, body }) => {
        const caller = ctx.auth.caller(req);
        const user = person(caller, 'Changing a password', true);
        const { password, oldPassword, confirmPassword } = body as { password: string; oldPassword?: string; confirmPassword?: string };
        if (confirmPassword !== undefined && confirmPassword !== password) throw invalid('confirmPassword', 'the two new passwords are not the same');
        const problem = passwordProblem(password);
        if (problem) throw problem;
        if (user.passwordHash !== null) {
          const from = address(req);
          guard.attempt(from, { person: user.id });
          if (oldPassword === undefined) throw invalid('oldPassword', 'give your current password as "oldPassword"');
          if (!(await passwords.verify(user.passwordHash, oldPassword, { owner: from }))) throw new PasswordMismatch('The current password you gave is not right.');
          guard.succeeded(user.id);
        }
        const keep = signedIn().sessionOf(req)?.hash ?? null;
        await engine.run(caller.actor, setPassword(user.id, await passwords.hash(password), keep));
        return { status: 200, headers: NO_STORE };
      },
    },
    {
      method: 'DELETE', path: `${ME}/sessions`, tag: TAG, summary: 'Sign out everywhere: end every one of your sessions, this one included',
      permission: 'READ', responses: { 200: 'Signed out everywhere' },
      handler: async ({ req }) => {
        const caller = ctx.auth.caller(req);
        const user = person(caller, 'Signing out everywhere');
        await engine.run(caller.actor, closeSessionsOf(user.id));
        return { status: 200, headers: setCookie(req, null) };
      },
    },
    {
      method: 'GET', path: `${ME}/tokens`, tag: TAG, summary: 'Your personal access tokens (without their secrets)', reply: peopleReplies.patsSchema, permission: 'READ',
      handler: ({ req }) => {
        const user = person(ctx.auth.caller(req), 'Personal access tokens');
        return { status: 200, body: { pats: patsOf(state(), user.id) }, headers: NO_STORE };
      },
    },
    {
      method: 'POST', path: `${ME}/tokens`, tag: TAG, summary: 'Create a personal access token that acts as you; the answer is the only place its secret is shown',
      body: peopleSchemas.createPatSchema, reply: peopleReplies.patSchema, permission: 'READ', responses: { 201: 'Created, with the secret', 400: 'Invalid', 403: 'Not a session' },
      handler: async ({ req, body }) => {
        const caller = ctx.auth.caller(req);
        const user = person(caller, 'Creating a personal access token', true);
        const { description, expiresAt } = body as { description: string; expiresAt: string };
        const secret = `${PAT_PREFIX}${randomBytes(32).toString('hex')}`;
        const token = await engine.run(caller.actor, createPersonalToken(user.id, hasher.hash(secret), description, expiresAt));
        return { status: 201, body: { ...patView(token), secret }, headers: NO_STORE };
      },
    },
    {
      method: 'DELETE', path: `${ME}/tokens/:id`, tag: TAG, summary: 'Delete one of your personal access tokens', permission: 'READ', responses: { 200: 'Deleted', 404: 'Not one of yours' },
      handler: async ({ req, params }) => {
        const caller = ctx.auth.caller(req);
        const user = person(caller, 'Personal access tokens');
        await engine.run(caller.actor, deletePersonalToken(params.id, user.id));
        return { status: 200, headers: NO_STORE };
      },
    },
    // People, for Admins.
    {
      method: 'GET', path: ADMIN, tag: TAG, summary: 'Every person, and the root roles', reply: peopleReplies.usersSchema, permission: 'ADMIN',
      handler: () => {
        const counts = sessionCounts(state());
        return { status: 200, body: { users: [...state().users.values()].map((u) => publicUser(u, state(), counts)), rootRoles: ROOT_ROLES }, headers: NO_STORE };
      },
    },
    {
      method: 'POST', path: ADMIN, tag: TAG, summary: 'Create a person; without a password, the answer carries a one-time invitation link (inviteLink)',
      body: peopleSchemas.createUserSchema, reply: peopleReplies.userSchema, permission: 'ADMIN',
      responses: { 201: 'Created', 400: 'Invalid', 409: 'Someone already signs in with that email or username' },
      handler: async ({ body, actor }) => {
        const input = body as PersonInput & { password?: string; sendEmail?: boolean };
        if (input.password !== undefined) {
          const passwordHash = await newPassword(input.password);
          const user = await engine.run(actor, createPerson(input, passwordHash));
          return { status: 201, body: { ...publicUser(user, state()), emailSent: false }, headers: NO_STORE };
        }
        const secret = newSecret();
        const { user } = await engine.run(actor, invitePerson(input, hasher.hash(secret), config.signIn.passwordLinkTtlMs));
        return { status: 201, body: { ...publicUser(user, state()), inviteLink: linkUrl('invite', secret), emailSent: false }, headers: NO_STORE };
      },
    },
    {
      method: 'POST', path: `${ADMIN}/reset-password`, tag: TAG, summary: "Make a one-time link that sets a person's password (`id`: their id, email or username)",
      body: peopleSchemas.idSchema, reply: peopleReplies.resetPasswordSchema, permission: 'ADMIN', responses: { 200: 'The link', 404: 'Unknown person' },
      handler: async ({ body, actor }) => {
        const id = String((body as { id: string | number }).id);
        const user = findByLogin(state(), id) ?? requireUser(state(), id);
        const secret = newSecret();
        await engine.run(actor, createPasswordLink(user.id, hasher.hash(secret), 'reset', config.signIn.passwordLinkTtlMs));
        return { status: 200, body: { resetPasswordUrl: linkUrl('reset', secret) }, headers: NO_STORE };
      },
    },
    {
      method: 'POST', path: `${ADMIN}/validate-password`, tag: TAG, summary: 'Whether a password would be accepted', body: peopleSchemas.passwordSchema, permission: 'ADMIN',
      responses: { 200: 'Acceptable', 400: 'Refused, with the reason' },
      handler: ({ body }) => {
        const problem = passwordProblem((body as { password: string }).password);
        if (problem) throw problem;
        return { status: 200 };
      },
    },
    {
      method: 'GET', path: `${ADMIN}/:id`, tag: TAG, summary: 'One person', reply: peopleReplies.userSchema, permission: 'ADMIN', responses: { 200: 'The person', 404: 'Unknown person' },
      handler: ({ params }) => ({ status: 200, body: publicUser(requireUser(state(), params.id), state()), headers: NO_STORE }),
    },
    {
      method: 'PUT', path: `${ADMIN}/:id`, tag: TAG, summary: "Change a person: name, email, username, root role, project roles, environments, active (deactivating signs them out everywhere)",
      body: peopleSchemas.updateUserSchema, reply: peopleReplies.userSchema, permission: 'ADMIN',
      responses: { 200: 'Changed', 400: 'Invalid, or it would leave no active Admin', 404: 'Unknown person', 409: 'Someone else signs in with that email or username' },
      handler: async ({ params, body, actor }) => {
        const user = await engine.run(actor, updatePerson(params.id, body as PersonInput));
        return { status: 200, body: publicUser(user, state()), headers: NO_STORE };
      },
    },
    {
      method: 'DELETE', path: `${ADMIN}/:id`, tag: TAG, summary: 'Delete a person with their sessions and personal tokens', permission: 'ADMIN',
      responses: { 200: 'Deleted', 400: 'The last active Admin', 404: 'Unknown person' },
      handler: async ({ params, actor }) => {
        await engine.run(actor, deletePerson(params.id));
        return { status: 200, headers: NO_STORE };
      },
    },
    {
      method: 'POST', path: `${ADMIN}/:id/change-password`, tag: TAG, summary: "Set a person's password; ends their sessions", body: peopleSchemas.passwordSchema, permission: 'ADMIN',
      responses: { 200: 'Set', 400: 'Too short or too common', 404: 'Unknown person' },
      handler: async ({ params, body, actor }) => {
        const user = requireUser(state(), params.id);
        await engine.run(actor, setPassword(user.id, await newPassword((body as { password: string }).password), null));
        return { status: 200, headers: NO_STORE };
      },
    },
    {
      method: 'GET', path: `${ADMIN}/:id/tokens`, tag: TAG, summary: "A person's personal access tokens (without their secrets)", reply: peopleReplies.patsSchema, permission: 'ADMIN',
      responses: { 200: 'Their tokens', 404: 'Unknown person' },
      handler: ({ params }) => ({ status: 200, body: { pats: patsOf(state(), requireUser(state(), params.id).id) }, headers: NO_STORE }),
    },
    {
      method: 'DELETE', path: `${ADMIN}/:id/tokens/:tokenId`, tag: TAG, summary: "Revoke a person's personal access token", permission: 'ADMIN',
      responses: { 200: 'Revoked', 404: 'Unknown person or token' },
      handler: async ({ params, actor }) => {
        const user = requireUser(state(), params.id);
        await engine.run(actor, deletePersonalToken(params.tokenId, user.id));
        return { status: 200, headers: NO_STORE };
      },
    },
  ];
  if (oidc) {
    const back = (res: ServerResponse, cookies: string[], location: string) => {
      res.writeHead(302, [['Location', location], ['Cache-Control', 'no-store'], ...cookies.map((c) => ['Set-Cookie', c])].flat());
      res.end();
    };
    const forget = (req: IncomingMessage) => cookieHeader(req, config.http.trustProxy, OIDC_COOKIE, null);
    /** Back to the console's sign-in page, saying why (nothing secret: it shows in the address bar). */
    const refused = (req: IncomingMessage, res: ServerResponse, message: string) => back(res, [forget(req)], `/#/signin?error=${encodeURIComponent(message)}`);
    routes.push(
      {
        method: 'GET', path: '/auth/oidc/login', tag: TAG, summary: `Sign in with ${oidc.displayName}: goes to the provider (authorization code with PKCE)`,
        responses: { 302: "To the provider's sign-in page", 429: 'Too many attempts' },
        handler: async ({ req, res }) => {
          guard.attempt(address(req));
          let started: { url: string; state: string };
          try {
            started = await oidc.start();
          } catch {
            refused(req, res, `${oidc.displayName} cannot be reached right now; try again later.`);
            return;
          }
          back(res, [cookieHeader(req, config.http.trustProxy, OIDC_COOKIE, started.state, OIDC_PENDING_MS)], started.url);
        },
      },
      {
        method: 'GET', path: '/auth/oidc/callback', tag: TAG, summary: 'Where the provider sends people back; opens their session',
        responses: { 302: 'Signed in: to the console (or back to sign-in with the reason)' },
        handler: async ({ req, res }) => {
          const at = (req.url ?? '').indexOf('?');
          let user: User;
          try {
            const { identity, role } = await oidc.finish(at < 0 ? '' : req.url!.slice(at), cookieOf(req, OIDC_COOKIE));
            user = await engine.run({ name: 'single-sign-on', userId: null }, ssoPerson(identity, role, oidc.creation));
          } catch (err) {
            if (err instanceof FanionError) refused(req, res, err.message);
            else {
              ctx.log.warn({ err: (err as Error).message }, 'single sign-on: the provider refused or answered wrongly');
              refused(req, res, `${oidc.displayName} did not confirm who you are; try again.`);
            }
            return;
          }
          const id = await signIn(req, user, 'oidc');
          back(res, [forget(req), cookieHeader(req, config.http.trustProxy, SESSION_COOKIE, id, config.signIn.sessionMaxAgeMs)], '/');
        },
      },
    );
  }
  return routes;
}

function patsOf(state: State, userId: number) {
  return [...state.personalTokens.values()].filter((t) => t.userId === userId).sort((a, b) => a.id - b.id).map(patView);
}
