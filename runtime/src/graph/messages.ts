/**
 * Messages and content blocks, in the shape the API speaks (SPEC §4). The graph keeps its
 * conversation in exactly this shape, so the server stores and sends it without translation.
 */
import { randomUUID } from 'node:crypto';

export type { Role, TextBlock, ToolCallBlock, RemoteToolCallBlock, ToolResultBlock, Block, Message } from '10xgraph-client/wire';
import type { Block, Message, Role, TextBlock, ToolResultBlock } from '10xgraph-client/wire';

/** A remote tool call the thread waits for, as the API reports it. */
export interface RemoteCall {
  id: string;
  name: string;
  args: unknown;
  /** The ToolNode that carries the tool. */
  node: string;
}

/** Makes a fresh message id. */
export function newMessageId(): string {
  return `msg_${randomUUID()}`;
}

/** Makes a fresh tool call id, unique across threads so results can never be mixed up. */
export function newCallId(): string {
  return `call_${randomUUID().replace(/-/g, '')}`;
}

/** Makes a text message (a user message unless `role` says otherwise) with a fresh id. */
export function textMessage(text: string, role: Role = 'user'): Message {
  return { message_id: newMessageId(), role, content: [{ type: 'text', text }] };
}

/** Makes a `tool` message carrying one result per call. */
export function toolResultMessage(results: ToolResultBlock[]): Message {
  return { message_id: newMessageId(), role: 'tool', content: results };
}

/** Joins the text blocks of a message (empty when it has none). */
export function textOf(message: Message | undefined): string {
  if (!message) return '';
  return message.content
    .filter((block): block is TextBlock => block.type === 'text')
    .map((block) => block.text)
    .join('');
}

/** Lists the blocks of one type across messages, in order. */
export function blocksOf<T extends Block['type']>(messages: readonly Message[], type: T): Array<Extract<Block, { type: T }>> {
  const out: Array<Extract<Block, { type: T }>> = [];
  for (const message of messages) {
    for (const block of message.content) {
      if (block.type === type) out.push(block as Extract<Block, { type: T }>);
    }
  }
  return out;
}
