// usechat.ts: the sdk's message type fits the AI SDK's generics the way
// useChat<InsightUIMessage>() uses them (index.d.ts itself is a declaration
// file, which skipLibCheck leaves unchecked: this file is checked).
import type { ChatInit, UIMessage, UIMessageChunk, UIDataTypes } from 'ai';
import type * as T from '../index';

type Fits<M extends UIMessage> = M;
export type Message = Fits<T.InsightUIMessage>;
export type Init = ChatInit<T.InsightUIMessage>;
export type Parts = T.InsightDataParts extends UIDataTypes ? true : never;
export const parts: Parts = true;
export type Chunk = UIMessageChunk<T.MessageMetadata, T.InsightDataParts>;
export const same: T.InsightUIMessageChunk extends Chunk ? true : never = true;

// What a page does with a message: every data part's payload is typed.
export function render(m: T.InsightUIMessage): string[] {
  return m.parts.map((p) => {
    switch (p.type) {
      case 'text': return p.text;
      case 'data-quiz-question': return p.data.question.question;
      case 'data-file-ready': return p.data.url;
      case 'data-tool-progress': return `${p.data.tool}: ${p.data.status}`;
      case 'data-blueprint': return p.data.name;
      default: return '';
    }
  });
}
