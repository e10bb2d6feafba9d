// proxy.ts: the Next.js route handlers in front of the Insight Edge API.
// Every /api/... and /files/... request of the product goes through them:
//
//   - /api/...: the caller's session names the teacher (lib/session.ts); the
//     proxy signs a short-lived HS256 JWT for that teacher (sub and teacherId
//     claims, iat, exp; iss/aud when configured) and forwards the request
//     with `Authorization: Bearer <jwt>`. A body `teacherId` (seed 004's old
//     callers) must be the session's teacher and is taken out of the body:
//     the token carries the identity, the edge never trusts a body id.
//   - /files/...: download links are capabilities signed by the edge (they
//     expire); they are forwarded as they are, without a session, so that a
//     sandboxed frame or a new tab opens them.
//
// Responses stream through untouched (the body is the upstream ReadableStream),
// and an event stream is marked `X-Accel-Buffering: no` and
// `Cache-Control: no-cache, no-transform` so that no proxy or compression
// layer buffers it.
import { SignJWT } from 'jose';
import { readSession } from './session.js';

export interface ProxyConfig {
  /** EDGE_URL: where the Insight Edge API listens (the stream Function URL in AWS). */
  edgeURL: string;
  /** AUTH_JWT_SECRET: the edge's HS256 secret (at least 32 bytes). */
  jwtSecret: string;
  /** AUTH_JWT_ISSUER, AUTH_JWT_AUDIENCE: set when the edge checks them. */
  issuer?: string;
  audience?: string;
  /** PROXY_TOKEN_TTL: seconds a token lives (60); the edge checks it once, when a request starts. */
  tokenTTL: number;
  /** SESSION_SECRET: the stand-in session's key. */
  sessionSecret: string;
}

export function configFromEnv(env: Record<string, string | undefined> = process.env): ProxyConfig {
  const need = (k: string): string => {
    const v = env[k];
    if (!v) throw new Error(`${k} is not set`);
    return v;
  };
  return {
    edgeURL: need('EDGE_URL').replace(/\/$/, ''),
    jwtSecret: need('AUTH_JWT_SECRET'),
    issuer: env.AUTH_JWT_ISSUER || undefined,
    audience: env.AUTH_JWT_AUDIENCE || undefined,
    tokenTTL: Number(env.PROXY_TOKEN_TTL || 60),
    sessionSecret: need('SESSION_SECRET'),
  };
}

/** signToken returns the JWT the edge verifies for teacherId. */
export async function signToken(teacherId: string, cfg: ProxyConfig): Promise<string> {
  let jwt = new SignJWT({ teacherId })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(teacherId)
    .setIssuedAt()
    .setExpirationTime(`${cfg.tokenTTL}s`);
  if (cfg.issuer) jwt = jwt.setIssuer(cfg.issuer);
  if (cfg.audience) jwt = jwt.setAudience(cfg.audience);
  return jwt.sign(new TextEncoder().encode(cfg.jwtSecret));
}

// The request headers the edge reads; cookies and the caller's own
// Authorization stay here.
const forwardRequestHeaders = ['accept', 'content-type', 'last-event-id', 'x-conversation-id', 'x-trace-id', 'range', 'if-none-match'];
// Hop-by-hop headers, and what fetch already undid (it decompresses).
const dropResponseHeaders = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-encoding', 'content-length']);
// The largest JSON body the proxy reads to check its teacherId (a page patch carries the page and its data).
const maxJSONBody = 8 << 20;

function errorResponse(status: number, code: string, message: string): Response {
  return Response.json({ error: { code, message } }, { status });
}

/** proxy forwards one request to the edge and streams its answer back. */
export async function proxy(req: Request, cfg: ProxyConfig = configFromEnv()): Promise<Response> {
  const url = new URL(req.url);
  const isFile = url.pathname.startsWith('/files/');
  if (!isFile && !url.pathname.startsWith('/api/')) return errorResponse(404, 'ENTITY_NOT_FOUND', 'no route');
  const headers = new Headers();
  for (const h of forwardRequestHeaders) {
    const v = req.headers.get(h);
    if (v !== null) headers.set(h, v);
  }
  let body: BodyInit | undefined;
  if (!isFile) {
    const session = readSession(req, cfg.sessionSecret);
    if (!session) return errorResponse(401, 'AUTH_ERROR', 'sign in first');
    const checked = await checkedBody(req, session.teacherId);
    if (checked instanceof Response) return checked;
    body = checked;
    headers.set('authorization', `Bearer ${await signToken(session.teacherId, cfg)}`);
  }
  let upstream: Response;
  try {
    upstream = await fetch(cfg.edgeURL + url.pathname + url.search, {
      method: req.method, headers, body, redirect: 'manual', signal: req.signal,
    });
  } catch (e) {
    if (req.signal.aborted) throw e; // the caller left: nobody reads an answer
    return errorResponse(503, 'SERVICE_UNAVAILABLE', 'the assistant cannot be reached');
  }
  return relay(upstream);
}

// checkedBody returns the body to forward: a JSON object without its
// teacherId (which must be the session's), or the bytes as they came.
async function checkedBody(req: Request, teacherId: string): Promise<BodyInit | undefined | Response> {
  if (req.method === 'GET' || req.method === 'HEAD') return undefined;
  const bytes = new Uint8Array(await req.arrayBuffer());
  if (bytes.length > maxJSONBody) return errorResponse(413, 'VALIDATION_ERROR', 'the request body is too large');
  if (!(req.headers.get('content-type') ?? '').includes('json') || bytes.length === 0) return bytes.length ? bytes : undefined;
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return bytes; // the edge answers malformed JSON with its own 400
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value) || !('teacherId' in value)) return bytes;
  const { teacherId: bodyTeacher, ...rest } = value as Record<string, unknown>;
  if (bodyTeacher !== teacherId && bodyTeacher !== '' && bodyTeacher != null) {
    return errorResponse(403, 'AUTH_ERROR', 'teacherId does not match the signed-in teacher');
  }
  return JSON.stringify(rest);
}

// relay returns the edge's answer with its body streaming through.
function relay(upstream: Response): Response {
  const headers = new Headers();
  upstream.headers.forEach((v, k) => {
    if (!dropResponseHeaders.has(k)) headers.set(k, v);
  });
  if ((headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    headers.set('cache-control', 'no-cache, no-transform');
    headers.set('x-accel-buffering', 'no');
  }
  const empty = upstream.status === 204 || upstream.status === 304;
  return new Response(empty ? null : upstream.body, { status: upstream.status, statusText: upstream.statusText, headers });
}

export const GET = (req: Request): Promise<Response> => proxy(req);
export const HEAD = (req: Request): Promise<Response> => proxy(req);
export const POST = (req: Request): Promise<Response> => proxy(req);
export const DELETE = (req: Request): Promise<Response> => proxy(req);
