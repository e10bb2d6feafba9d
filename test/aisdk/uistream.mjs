// uistream.mjs checks one UI message stream (the raw SSE bytes as a
// ReadableStream) with the AI SDK's own client code: every chunk must pass the
// SDK's uiMessageChunkSchema, carry no key the SDK does not define (PROTOCOL.md:
// the SDK's schemas are strict in the versions our frontend pins), and
// readUIMessageStream must assemble a message that validateUIMessages accepts.
// It resolves to {chunks: [...types], message: UIMessage, errorText} and
// rejects with the reason otherwise.
import {
  parseJsonEventStream, uiMessageChunkSchema, readUIMessageStream, validateUIMessages,
} from 'ai';

const allowed = {
  'start': ['messageId', 'messageMetadata'],
  'finish': ['finishReason', 'messageMetadata'],
  'start-step': [], 'finish-step': [],
  'text-start': ['id', 'providerMetadata'], 'text-delta': ['id', 'delta', 'providerMetadata'],
  'text-end': ['id', 'providerMetadata'],
  'error': ['errorText'], 'message-metadata': ['messageMetadata'], 'abort': ['reason'],
};
const dataKeys = ['id', 'data', 'transient'];

export async function checkStream(bytes) {
  const types = [];
  const sentErrors = [];
  const parsed = parseJsonEventStream({ stream: bytes, schema: uiMessageChunkSchema });
  const chunks = parsed.pipeThrough(new TransformStream({
    transform(result, controller) {
      if (!result.success) throw new Error('chunk rejected by uiMessageChunkSchema: ' + result.error?.message + ' raw=' + JSON.stringify(result.rawValue));
      const c = result.value;
      const keys = c.type.startsWith('data-') ? dataKeys : allowed[c.type];
      if (!keys) throw new Error('chunk type not in our vocabulary: ' + c.type);
      for (const k of Object.keys(result.rawValue)) {
        if (k !== 'type' && !keys.includes(k)) throw new Error(`extra key ${k} on ${c.type}`);
      }
      types.push(c.type);
      if (c.type === 'error') sentErrors.push(c.errorText);
      controller.enqueue(c);
    },
  }));
  let last;
  let errorText = null; // an error chunk is part of the protocol: useChat shows it
  const onError = (e) => { errorText = String(e?.message ?? e); };
  for await (const m of readUIMessageStream({ stream: chunks, onError })) last = m;
  if (errorText !== null && !sentErrors.includes(errorText)) throw new Error('stream rejected: ' + errorText);
  if (!last) throw new Error('no message assembled');
  await validateUIMessages({ messages: [last] });
  return { chunks: types, message: last, errorText };
}
