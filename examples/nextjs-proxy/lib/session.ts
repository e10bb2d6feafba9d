// session.ts: a stand-in for the app's own sign-in. A session is the cookie
// `ie_session` = base64url({teacherId, exp}) "." base64url(HMAC-SHA256) under
// SESSION_SECRET. Replace readSession with your auth library's check
// (NextAuth's auth(), iron-session, …): the proxy only needs the signed-in
// teacher's id from it.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SESSION_COOKIE = 'ie_session';

export interface Session {
  teacherId: string;
}

function mac(payload: string, secret: string): string {
  return createHmac('sha256', secret).update(payload).digest('base64url');
}

/** signSession returns the cookie value of a session for teacherId that lasts ttlSeconds. */
export function signSession(teacherId: string, secret: string, ttlSeconds = 8 * 3600): string {
  const payload = Buffer.from(JSON.stringify({ teacherId, exp: Math.floor(Date.now() / 1000) + ttlSeconds })).toString('base64url');
  return `${payload}.${mac(payload, secret)}`;
}

/** readSession returns the request's session, or null when it has none that is valid. */
export function readSession(req: Request, secret: string): Session | null {
  const cookie = req.headers.get('cookie') ?? '';
  const raw = cookie.split(/;\s*/).find((c) => c.startsWith(SESSION_COOKIE + '='))?.slice(SESSION_COOKIE.length + 1);
  if (!raw) return null;
  const [payload, sig] = raw.split('.');
  if (!payload || !sig) return null;
  const want = Buffer.from(mac(payload, secret));
  const got = Buffer.from(sig);
  if (want.length !== got.length || !timingSafeEqual(want, got)) return null;
  try {
    const s = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    if (typeof s.teacherId !== 'string' || typeof s.exp !== 'number' || s.exp * 1000 < Date.now()) return null;
    return { teacherId: s.teacherId };
  } catch {
    return null;
  }
}
