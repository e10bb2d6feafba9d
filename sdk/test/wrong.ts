// wrong.ts: shapes the server never sends. Each line below must be a type
// error: if the types accepted one, its @ts-expect-error would be unused and
// tsc would fail, so `npm test` proves the types reject wrong shapes.
import type * as T from '../index';

// @ts-expect-error a quiz question part without its question
export const w1: T.InsightUIMessageChunk = { type: 'data-quiz-question', id: 'q1', data: { total: 1 } };
// @ts-expect-error a data part name the stream does not have
export const w2: T.InsightUIMessageChunk = { type: 'data-quiz', id: 'q1', data: {} };
// @ts-expect-error a tool-progress part missing its status
export const w3: T.InsightUIMessageChunk = { type: 'data-tool-progress', id: 'c1', data: { tool: 'x', message: 'm' } };
// @ts-expect-error a page event with a field of another event
export const w4: T.PageEvent = { type: 'PHASE', phase: 'data', message: 'm', blockId: 'b' };
// @ts-expect-error a page event type that does not exist
export const w5: T.PageEvent = { type: 'DONE', message: 'm' };
// @ts-expect-error total_nodes is a number
export const w6: T.ResearchEvents['complete'] = { total_nodes: '3', duration_seconds: 1 };
// @ts-expect-error a template envelope whose content belongs to another event
export const w7: T.TemplateServerEnvelope = { event: 'solver.start', session_id: '1', content: { question: 'q' } };
// @ts-expect-error an error code outside seed 004's table
export const w8: T.ErrorBody = { error: { code: 'NOT_FOUND', message: 'm' } };
// @ts-expect-error the JSON answer's artifacts are data parts
export const w9: T.ConversationResponse['artifacts'] = [{ type: 'text', text: 'hi' }];
// @ts-expect-error a tool status outside running, success, empty, error
export const w10: T.DataParts['tool-progress'] = { tool: 'x', status: 'done', message: 'm' };
// @ts-expect-error a chat mode the server does not have
export const w11: T.ConversationRequest = { message: 'hi', mode: 'fast' };

// A useChat message's parts are typed by the data-part map.
declare const m: T.InsightUIMessage;
for (const p of m.parts) {
  if (p.type === 'data-file-ready') {
    const url: string = p.data.url;
    // @ts-expect-error a file-ready part has no slides
    void p.data.slides;
    void url;
  }
}
