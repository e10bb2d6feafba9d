// chat.mjs drives the AI SDK's own chat client (AbstractChat with its
// DefaultChatTransport: what useChat runs, minus React) against a running
// server, as a stock useChat app configured for this API would:
//
//   new DefaultChatTransport({
//     api: `${base}/api/conversation/stream`,
//     prepareReconnectToStreamRequest: ({ id }) => ({ api: `${base}/api/conversation/${id}/stream` }),
//   })
//
// It reads a script as JSON on stdin:
//
//   {"base": "http://127.0.0.1:1234", "chatId": "c1", "headers": {...},
//    "steps": [{"do": "load"}, {"do": "resume"}, {"do": "send", "text": "..."},
//              {"do": "send", "text": "...", "stopOnText": true},
//              {"do": "regenerate", "messageId": "..."}, {"do": "get", "url": "..."}]}
//
// load is the page's own fetch of GET /messages into the chat (what an app
// passes as its initial messages); resume is useChat's resume: true on
// mount; stopOnText calls stop() as soon as the answer shows text; get
// fetches a URL (a test's hook). After each step it records the chat's
// status, error and messages; it prints {"steps": [...]} on stdout.
import { AbstractChat, DefaultChatTransport } from 'ai';

class State {
  constructor(messages = []) {
    this.status = 'ready';
    this.error = undefined;
    this.messages = messages;
    this.listeners = new Set();
  }
  pushMessage = (m) => { this.messages = this.messages.concat([m]); this.changed(); };
  popMessage = () => { this.messages = this.messages.slice(0, -1); this.changed(); };
  replaceMessage = (i, m) => { this.messages = [...this.messages.slice(0, i), m, ...this.messages.slice(i + 1)]; this.changed(); };
  snapshot = (x) => structuredClone(x);
  changed() { for (const f of this.listeners) f(this.messages); }
}

class Chat extends AbstractChat {
  constructor(opts) {
    const state = new State();
    super({ ...opts, state });
    this.ui = state;
  }
}

async function main() {
  const script = JSON.parse(await new Response(process.stdin).text());
  const { base, chatId } = script;
  const headers = script.headers ?? {};
  const transport = new DefaultChatTransport({
    api: `${base}/api/conversation/stream`,
    headers,
    prepareReconnectToStreamRequest: ({ id, headers }) => ({ api: `${base}/api/conversation/${encodeURIComponent(id)}/stream`, headers }),
  });
  const errors = [];
  const chat = new Chat({ id: chatId, transport, onError: (e) => errors.push(String(e?.message ?? e)) });
  const out = [];
  for (const step of script.steps) {
    const rec = { do: step.do };
    switch (step.do) {
      case 'load': {
        const res = await fetch(`${base}/api/conversation/${encodeURIComponent(chatId)}/messages`, { headers });
        rec.httpStatus = res.status;
        const body = await res.json();
        if (res.ok) chat.messages = body.messages;
        break;
      }
      case 'resume':
        await chat.resumeStream();
        break;
      case 'send': {
        let stopped;
        const watch = (msgs) => {
          const last = msgs[msgs.length - 1];
          if (!stopped && last?.role === 'assistant' && last.parts.some((p) => p.type === 'text' && p.text.length > 0)) {
            stopped = chat.stop();
          }
        };
        if (step.stopOnText) chat.ui.listeners.add(watch);
        await chat.sendMessage({ text: step.text });
        await stopped;
        chat.ui.listeners.delete(watch);
        rec.stopped = Boolean(stopped);
        break;
      }
      case 'regenerate':
        await chat.regenerate(step.messageId ? { messageId: step.messageId } : {});
        break;
      case 'get': {
        const res = await fetch(step.url);
        rec.httpStatus = res.status;
        rec.body = await res.text();
        break;
      }
      default:
        throw new Error('unknown step ' + step.do);
    }
    rec.status = chat.status;
    rec.error = chat.error ? String(chat.error.message ?? chat.error) : null;
    rec.messages = structuredClone(chat.messages);
    out.push(rec);
  }
  process.stdout.write(JSON.stringify({ steps: out, errors }));
}

main().catch((e) => { process.stderr.write(String(e?.stack || e) + '\n'); process.exit(1); });
