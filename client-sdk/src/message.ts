import { type Message as WireMessage, textMessage, textOf, toolResultMessage, type ToolResultBlock } from './wire';

/**
 * Builders and readers for messages, the wire's own (`./wire`). `Message` is both the wire type
 * and this value, so `Message.text_message('hi')` reads as in the other 10xgraph clients.
 */
export const Message = {
  /** Makes a user text message with a fresh `message_id`. */
  text_message(text: string): WireMessage {
    return textMessage(text);
  },

  /** Makes the `role: "tool"` message that answers remote calls, one `tool_result` block each. */
  tool_message(results: ToolResultBlock[]): WireMessage {
    return toolResultMessage(results);
  },

  /** Joins the text blocks of a message (an empty string when it has none). */
  text(message: WireMessage): string {
    return textOf(message);
  },
};

/** A message, as the API sends and receives it. */
export type Message = WireMessage;
