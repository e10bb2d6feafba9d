// @insightedge/sdk: the types of every Insight Edge wire shape. types.d.ts
// is generated from the Go types (go generate ./sdk/...; npm run generate);
// this file adds the AI SDK's typed UIMessage for useChat.
import type { UIMessage as AIUIMessage, UIMessageChunk } from 'ai';
import type { DataParts, MessageMetadata, MessagesResponse } from './types';

export * from './types';

/** The data-part map of the conversation stream, for the AI SDK's generics:
 * `data-quiz-question` parts carry DataParts['quiz-question'], and so on. */
export type InsightDataParts = { [K in keyof DataParts]: DataParts[K] };

/** The message useChat holds: `useChat<InsightUIMessage>()` types message.parts
 * (text, reasoning, step-start and every data-* part) and message.metadata. */
export type InsightUIMessage = AIUIMessage<MessageMetadata, InsightDataParts>;

/** One chunk of the conversation stream (POST /api/conversation/stream). */
export type InsightUIMessageChunk = UIMessageChunk<MessageMetadata, InsightDataParts>;

/** GET /api/conversation/{id}/messages with the messages typed for useChat. */
export type InsightMessagesResponse = Omit<MessagesResponse, 'messages'> & { messages: InsightUIMessage[] };
