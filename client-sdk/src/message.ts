import type { Message as WireMessage, ToolResultBlock } from './types';

/** A fresh identifier: `crypto.randomUUID` where the platform has it, random hex elsewhere. */
export function newId(): string {
  const cryptoApi = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (cryptoApi && typeof cryptoApi.randomUUID === 'function') return cryptoApi.randomUUID();
  // Older browsers without randomUUID: uniqueness per thread is all the server needs.
  let hex = '';
  for (let i = 0; i < 32; i++) hex += Math.floor(Math.random() * 16).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20)}`;
}

/**
 * Builders and readers for messages. `Message` is both the wire type and this value, so
 * `Message.text_message('hi')` reads as in the other 10xgraph clients.
 */
export const Message = {
  /** Makes a user text message with a fresh `message_id`. */
  text_message(text: string): WireMessage {
    return { message_id: newId(), role: 'user', content: [{ type: 'text', text }] };
  },

  /** Makes the `role: "tool"` message that answers remote calls, one `tool_result` block each. */
  tool_message(results: ToolResultBlock[]): WireMessage {
    return { message_id: newId(), role: 'tool', content: results.map((result) => ({ ...result })) };
  },

  /** Joins the text blocks of a message (an empty string when it has none). */
  text(message: WireMessage): string {
    return message.content
      .filter((block): block is { type: 'text'; text: string } => block.type === 'text')
      .map((block) => block.text)
      .join('');
  },
};

/** A message, as the API sends and receives it. */
export type Message = WireMessage;
