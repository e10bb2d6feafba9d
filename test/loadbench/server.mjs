// The load benchmark's reference: a chat endpoint as the Vercel AI SDK's
// documentation writes it (streamText -> toUIMessageStreamResponse), on
// Node's own HTTP server, against the same OpenAI-compatible mock as the
// product. Started by `go run ./test/loadbench`; PORT and MOCK_BASE_URL
// come from the harness.
import http from 'node:http';
import { Readable } from 'node:stream';
import { convertToModelMessages, streamText } from 'ai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';

const provider = createOpenAICompatible({
  name: 'mock',
  baseURL: process.env.MOCK_BASE_URL,
  apiKey: 'loadbench',
  includeUsage: true,
});
const model = provider.chatModel('mock');

const server = http.createServer(async (req, res) => {
  try {
    if (req.method !== 'POST') {
      res.writeHead(404).end();
      return;
    }
    let body = '';
    for await (const chunk of req) body += chunk;
    const { messages } = JSON.parse(body);
    const result = streamText({ model, messages: await convertToModelMessages(messages) });
    const response = result.toUIMessageStreamResponse();
    res.writeHead(response.status, Object.fromEntries(response.headers));
    Readable.fromWeb(response.body).pipe(res);
  } catch (err) {
    if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { code: 'INTERNAL', message: String(err) } }));
  }
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT), '127.0.0.1');
