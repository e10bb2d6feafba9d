// Every /api/... route of the product, forwarded to the Insight Edge API
// (lib/proxy.ts). Node runtime: the proxy signs with node:crypto's HMAC for
// sessions; dynamic: never cached, never pre-rendered; maxDuration (Vercel):
// a turn streams for up to 5 minutes, a resumed one longer.
export { GET, HEAD, POST, DELETE } from '../../../lib/proxy.js';
export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';
export const maxDuration = 300;
