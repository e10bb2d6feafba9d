// serve.ts runs the app's route handlers behind a node:http server, as
// `next start` does: each request becomes a Web Request (with a signal that
// aborts when the client goes away) and the handler's Response streams back
// chunk by chunk. Only the routes of app/ are served.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as api from '../app/api/[...path]/route.js';
import * as files from '../app/files/[...path]/route.js';

type Handler = (req: Request) => Promise<Response>;
type Routes = Partial<Record<string, Handler>>;

const apiRoutes: Routes = { GET: api.GET, HEAD: api.HEAD, POST: api.POST, DELETE: api.DELETE };
const fileRoutes: Routes = { GET: files.GET, HEAD: files.HEAD };

function routeOf(path: string): Routes | null {
  if (path.startsWith('/api/')) return apiRoutes;
  if (path.startsWith('/files/')) return fileRoutes;
  return null;
}

async function toRequest(req: IncomingMessage, base: string, signal: AbortSignal): Promise<Request> {
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
  let body: ArrayBuffer | undefined;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const all = Buffer.concat(chunks);
    body = all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength) as ArrayBuffer;
  }
  return new Request(new URL(req.url ?? '/', base), { method: req.method, headers, body, signal });
}

async function handle(req: IncomingMessage, res: ServerResponse, base: string): Promise<void> {
  const ac = new AbortController();
  res.on('close', () => { if (!res.writableFinished) ac.abort(); });
  const path = new URL(req.url ?? '/', base).pathname;
  const h = routeOf(path)?.[req.method ?? 'GET'];
  if (!h) {
    res.writeHead(405).end();
    return;
  }
  const answer = await h(await toRequest(req, base, ac.signal));
  const headers: Record<string, string> = {};
  answer.headers.forEach((v, k) => { headers[k] = v; });
  res.writeHead(answer.status, headers);
  const reader = answer.body?.getReader();
  for (;;) {
    const next = await reader?.read();
    if (!next || next.done) break;
    res.write(next.value);
  }
  res.end();
}

export interface Served {
  url: string;
  close(): Promise<void>;
}

export async function serve(): Promise<Served> {
  let base = '';
  const server = createServer((req, res) => {
    handle(req, res, base).catch((e) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(e));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
