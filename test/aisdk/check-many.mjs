// check-many.mjs checks many UI message streams in one process (the eval
// suite has hundreds): stdin is a JSON array of raw SSE texts; stdout is a
// JSON array, one {"ok": true} or {"ok": false, "error": "..."} per stream.
import { checkStream } from './uistream.mjs';

async function main() {
  const streams = JSON.parse(await new Response(process.stdin).text());
  const out = [];
  for (const s of streams) {
    try {
      await checkStream(new Response(s).body);
      out.push({ ok: true });
    } catch (e) {
      out.push({ ok: false, error: String(e?.message || e) });
    }
  }
  process.stdout.write(JSON.stringify(out));
}

main().catch((e) => { process.stderr.write(String(e?.stack || e) + '\n'); process.exit(1); });
