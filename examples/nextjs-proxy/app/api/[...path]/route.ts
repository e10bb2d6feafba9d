// Every /api/... route of the product, forwarded to the Insight Edge API
// (lib/proxy.ts). Node runtime: the proxy signs with node:crypto's HMAC for
// sessions; dynamic: never cached, never pre-rendered.
export { GET, HEAD, POST, DELETE } from '../../../lib/proxy.js';
export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';
