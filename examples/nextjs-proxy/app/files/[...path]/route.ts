// The generated files' download links (/files/..., relative unless the edge
// has PUBLIC_BASE_URL): capability links, forwarded without a session.
export { GET, HEAD } from '../../../lib/proxy.js';
export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';
