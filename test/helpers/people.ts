// Signing people in against a real server: the session cookie out of Set-Cookie, and callers that
// send it back, the way a browser does (but without the browser's Origin or Sec-Fetch-Site, like
// any program).
import { client, type Res } from './server.js';

export const STRONG = 'a long unusual passphrase';

/** The session id a sign-in answer sets (fanion-session=…), or null. */
export function sessionCookie(res: Res): string | null {
  const header = res.headers.getSetCookie().find((c) => c.startsWith('fanion-session='));
  const value = header?.slice('fanion-session='.length).split(';')[0] ?? '';
  return value === '' ? null : value;
}

/** Signs in with a password; throws unless it worked. Returns the session id. */
export async function signInAs(base: string, username: string, password: string, headers: Record<string, string> = {}): Promise<string> {
  const res = await client(base)('POST', '/auth/simple/login', { username, password }, headers);
  const id = sessionCookie(res);
  if (res.status !== 200 || id === null) throw new Error(`sign-in as ${username} → ${res.status} ${res.text}`);
  return id;
}

/** A client that sends the session cookie `id`. */
export const withSession = (base: string, id: string) => client(base, { cookie: `fanion-session=${id}` });

/** The first Admin's generated password, as printed once on standard error. */
export function printedPassword(output: string): string {
  const m = /FANION FIRST ADMIN \(shown only this once[^\n]*with the password (\S+)\n/.exec(output);
  if (!m) throw new Error('no first Admin password was printed');
  return m[1];
}
