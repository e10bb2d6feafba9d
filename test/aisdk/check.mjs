// check.mjs reads one UI message stream (the raw SSE bytes) on stdin and
// checks it with the AI SDK's own client code (uistream.mjs).
// It prints {"chunks": [...types], "message": UIMessage, "errorText"} on success, exits 1 with
// the reason otherwise.
import { checkStream } from './uistream.mjs';

async function main() {
  const input = await new Response(process.stdin).arrayBuffer();
  const res = await checkStream(new Response(input).body);
  process.stdout.write(JSON.stringify(res));
}

main().catch((e) => { process.stderr.write(String(e?.stack || e) + '\n'); process.exit(1); });
