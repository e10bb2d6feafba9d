// proxy.test.ts drives the example proxy (the route handlers of app/, served
// by test/serve.ts as next start would) in front of a real Insight Edge
// server with AUTH_JWT_SECRET set: EDGE_URL and AUTH_JWT_SECRET name it
// (local/e2e's TestNextJSProxyExample starts one and runs npm test). The
// conversation is driven by the AI SDK's own chat client (test/aisdk/chat.mjs:
// what useChat runs) and every conversation stream is checked by the SDK's
// parser (test/aisdk/uistream.mjs).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { serve, type Served } from './serve.js';
import { signSession, SESSION_COOKIE } from '../lib/session.js';

const edge = (process.env.EDGE_URL ?? '').replace(/\/$/, '');
const secret = process.env.AUTH_JWT_SECRET ?? '';
if (!edge || !secret) throw new Error('EDGE_URL and AUTH_JWT_SECRET must name a running server (go test ./local/e2e -run TestNextJSProxyExample)');
process.env.SESSION_SECRET = randomBytes(32).toString('hex');

const repo = (p: string): URL => new URL('../../../../' + p, import.meta.url);
// Chat ids of this run: a server kept from an earlier run has those ids already.
const run = randomBytes(4).toString('hex');
const cookie = (teacherId: string): string => `${SESSION_COOKIE}=${signSession(teacherId, process.env.SESSION_SECRET!)}`;

interface ChatStep { do: string; text?: string; stopOnText?: boolean; stopped?: boolean; status?: string; error?: string | null; httpStatus?: number; messages?: any[] }

// chat runs test/aisdk/chat.mjs (the AI SDK's AbstractChat with its
// DefaultChatTransport) against base as chat chatId.
function chat(base: string, chatId: string, headers: Record<string, string>, steps: ChatStep[]): Promise<ChatStep[]> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [repo('test/aisdk/chat.mjs').pathname], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => { out += d; });
    p.stderr.on('data', (d) => { err += d; });
    p.on('close', (code) => (code === 0 ? resolve(JSON.parse(out).steps) : reject(new Error(`chat.mjs exited ${code}: ${err}`))));
    p.stdin.end(JSON.stringify({ base, chatId, headers, steps }));
  });
}

async function checkStream(body: ReadableStream<Uint8Array>): Promise<{ chunks: string[]; message: any }> {
  const { checkStream } = await import(repo('test/aisdk/uistream.mjs').href);
  return checkStream(body);
}

interface SSE { id?: string; event?: string; data: string }

function parseSSE(text: string): SSE[] {
  const out: SSE[] = [];
  for (const block of text.split('\n\n')) {
    const e: SSE = { data: '' };
    for (const line of block.split('\n')) {
      if (line.startsWith('id: ')) e.id = line.slice(4);
      else if (line.startsWith('event: ')) e.event = line.slice(7);
      else if (line.startsWith('data: ')) e.data += line.slice(6);
    }
    if (e.data) out.push(e);
  }
  return out;
}

function assertStreamHeaders(res: Response): void {
  assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
  assert.equal(res.headers.get('x-accel-buffering'), 'no');
  assert.match(res.headers.get('cache-control') ?? '', /no-transform/);
  assert.equal(res.headers.get('content-encoding'), null);
}

let proxy: Served;
before(async () => { proxy = await serve(); });
after(async () => { await proxy?.close(); });

const post = (path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(proxy.url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

describe('through the proxy', () => {
  it('carries a stock useChat turn, and a reloaded page resumes it', async () => {
    const headers = { cookie: cookie('t-proxy-1') };
    const [sent] = await chat(proxy.url, `chat-proxy-1-${run}`, headers, [{ do: 'send', text: '出 2 道牛顿第一定律的选择题' }]);
    assert.equal(sent.error, null);
    assert.equal(sent.status, 'ready');
    const answer = sent.messages!.at(-1);
    assert.equal(answer.role, 'assistant');
    assert.equal(answer.parts.filter((p: any) => p.type === 'data-quiz-question').length, 2);
    assert.ok(answer.parts.some((p: any) => p.type === 'text' && p.text.length > 0));

    // A turn still running when the page reloads: the first chunks arrive, the
    // page goes away, the reloaded page loads /messages and resumes the stream.
    const chatId = `chat-proxy-2-${run}`;
    const res = await post('/api/conversation/stream', {
      id: chatId, trigger: 'submit-message',
      messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'What is photosynthesis? [[offline:slow]]' }] }],
    }, headers);
    assert.equal(res.status, 200);
    assertStreamHeaders(res);
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    assert.match(first, /"type":"start"/);
    await reader.cancel();
    const [loaded, resumed] = await chat(proxy.url, chatId, headers, [{ do: 'load' }, { do: 'resume' }]);
    assert.equal(loaded.httpStatus, 200);
    assert.equal(resumed.error, null);
    const last = resumed.messages!.at(-1);
    assert.equal(last.role, 'assistant');
    assert.match(last.parts.filter((p: any) => p.type === 'text').map((p: any) => p.text).join(''), /[Pp]hotosynthesis/);
    // The stored conversation is the same answer, once.
    const stored = await (await fetch(`${proxy.url}/api/conversation/${chatId}/messages`, { headers })).json();
    assert.deepEqual(stored.messages.map((m: any) => m.id), resumed.messages!.map((m: any) => m.id));
  });

  it('passes a stop on: stop() and the stop route, then a new message is not refused', async () => {
    // useChat's stop() aborts only its fetch; the guide's stop also posts
    // the stop route (docs/frontend.md §4), which ends the turn at once,
    // whatever the connection between the proxy and the edge still does.
    const headers = { cookie: cookie('t-proxy-1') };
    const id = `chat-proxy-stop-${run}`;
    const [stopped] = await chat(proxy.url, id, headers, [
      { do: 'send', text: 'What is photosynthesis? [[offline:slow]]', stopOnText: true },
    ]);
    assert.equal(stopped.stopped, true);
    const stop = await post(`/api/conversation/${id}/stop`, {}, headers);
    assert.equal(stop.status, 200);
    const [next] = await chat(proxy.url, id, headers, [{ do: 'send', text: '出 2 道牛顿第一定律的选择题' }]);
    assert.equal(next.error, null);
    assert.equal(next.status, 'ready');
    assert.equal(next.messages!.at(-1).parts.filter((p: any) => p.type === 'data-quiz-question').length, 2);
  });

  it('streams a conversation the AI SDK parser accepts, with a download link that works', async () => {
    const headers = { cookie: cookie('t-proxy-1') };
    const res = await post('/api/conversation/stream', { message: "Write a lesson plan on Newton's first law" }, headers);
    assert.equal(res.status, 200);
    assertStreamHeaders(res);
    assert.equal(res.headers.get('x-vercel-ai-ui-message-stream'), 'v1');
    const { message } = await checkStream(res.body!);
    const file = message.parts.find((p: any) => p.type === 'data-file-ready');
    assert.ok(file, 'a data-file-ready part');
    assert.match(file.data.url, /^\/files\//, 'links are relative (no PUBLIC_BASE_URL)');
    const download = await fetch(proxy.url + file.data.url);
    assert.equal(download.status, 200);
    const bytes = new Uint8Array(await download.arrayBuffer());
    assert.equal(bytes.length, file.data.size);
    assert.deepEqual([...bytes.slice(0, 2)], [0x50, 0x4b], 'a .docx is a zip');
    const forged = await fetch(proxy.url + file.data.url.replace(/sig=[^&]+/, 'sig=AAAA'));
    assert.notEqual(forged.status, 200, 'a link with a wrong signature is refused by the edge');
  });

  it('plans and builds a page, and resumes the build', async () => {
    const headers = { cookie: cookie('t-001') };
    const planned = await post('/api/workflow/generate', { message: '分析 1A 班英语成绩' }, headers);
    assert.equal(planned.status, 200);
    const blueprint = await planned.json();
    const res = await post('/api/page/generate', { blueprint }, headers);
    assert.equal(res.status, 200);
    assertStreamHeaders(res);
    const buildId = res.headers.get('x-build-id');
    assert.ok(buildId);
    const events = parseSSE(await res.text()).map((e) => JSON.parse(e.data));
    assert.ok(events.some((e) => e.type === 'BLOCK_START'));
    assert.equal(events.at(-1).type, 'COMPLETE');
    assert.ok(events.at(-1).result.page.tabs.length > 0);
    const again = await fetch(`${proxy.url}/api/page/${buildId}/stream`, { headers });
    assert.equal(again.status, 200);
    assert.equal(parseSSE(await again.text()).map((e) => JSON.parse(e.data)).at(-1).type, 'COMPLETE');
  });

  it('proposes and streams a research timeline', async () => {
    const headers = { cookie: cookie('t-proxy-1') };
    const proposed = await post('/api/research', { topic: '牛顿力学的发展' }, headers);
    assert.equal(proposed.status, 200);
    const { session_id } = await proposed.json();
    const res = await fetch(`${proxy.url}/api/research/${session_id}/stream`, { headers });
    assert.equal(res.status, 200);
    assertStreamHeaders(res);
    const events = parseSSE(await res.text());
    assert.ok(events.some((e) => e.event === 'skeleton' && JSON.parse(e.data).nodes.length > 0));
    assert.equal(events.at(-1)!.event, 'complete');
  });

  it("keeps an old caller's body teacherId working when it is the session's, and refuses another", async () => {
    const headers = { cookie: cookie('t-proxy-3') };
    const ok = await post('/api/conversation', { message: 'What is photosynthesis?', teacherId: 't-proxy-3' }, headers);
    assert.equal(ok.status, 200);
    const answer = await ok.json();
    assert.ok(answer.conversationId);
    // The conversation is the session teacher's: the token named them.
    const mine = await (await fetch(`${proxy.url}/api/conversation/${answer.conversationId}/messages`, { headers })).json();
    assert.equal(mine.messages.length, 2);
    const theirs = await (await fetch(`${proxy.url}/api/conversation/${answer.conversationId}/messages`, { headers: { cookie: cookie('t-proxy-4') } })).json();
    assert.equal(theirs.messages.length, 0, "another teacher's session sees nothing");
    const other = await post('/api/conversation', { message: 'hi', teacherId: 't-someone-else' }, headers);
    assert.equal(other.status, 403);
    assert.equal((await other.json()).error.code, 'AUTH_ERROR');
    const anonymous = await post('/api/conversation', { message: 'hi', teacherId: 't-proxy-3' });
    assert.equal(anonymous.status, 401);
  });
});

describe('the proxy alone', () => {
  it('answers a seed-004 error when the edge cannot be reached, and 401 without a session', async () => {
    const { proxy: forward, configFromEnv } = await import('../lib/proxy.js');
    const cfg = { ...configFromEnv(), edgeURL: 'http://127.0.0.1:1' };
    const down = await forward(new Request('http://app.example/api/health', { headers: { cookie: cookie('t-001') } }), cfg);
    assert.equal(down.status, 503);
    assert.equal((await down.json()).error.code, 'SERVICE_UNAVAILABLE');
    const anonymous = await forward(new Request('http://app.example/api/conversation/c1/messages'), cfg);
    assert.equal(anonymous.status, 401);
  });
});

describe('straight to the edge', () => {
  const key = new TextEncoder().encode(secret);
  const token = (teacherId: string, exp: string | number, k = key): Promise<string> =>
    new SignJWT({ teacherId }).setProtectedHeader({ alg: 'HS256' }).setSubject(teacherId).setIssuedAt(typeof exp === 'number' ? exp - 60 : undefined).setExpirationTime(exp).sign(k);
  const send = (body: unknown, auth?: string): Promise<Response> =>
    fetch(edge + '/api/conversation', { method: 'POST', headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${auth}` } : {}) }, body: JSON.stringify(body) });

  it('refuses a forged token, an expired token and a body teacherId', async () => {
    const cases: [string, Promise<Response>, number][] = [
      ['a token signed with another secret', token('t-001', '60s', new TextEncoder().encode('x'.repeat(32))).then((t) => send({ message: 'hi' }, t)), 401],
      ['an expired token', token('t-001', Math.floor(Date.now() / 1000) - 600).then((t) => send({ message: 'hi' }, t)), 401],
      ['a body teacherId without a token', send({ message: 'hi', teacherId: 't-001' }), 401],
      ["a body teacherId that is not the token's", token('t-002', '60s').then((t) => send({ message: 'hi', teacherId: 't-001' }, t)), 403],
    ];
    for (const [name, res, status] of cases) {
      const r = await res;
      assert.equal(r.status, status, name);
      assert.equal((await r.json()).error.code, 'AUTH_ERROR', name);
    }
    const good = await send({ message: 'What is photosynthesis?' }, await token('t-001', '60s'));
    assert.equal(good.status, 200, 'the same request with a valid token');
  });
});
