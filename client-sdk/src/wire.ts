/**
 * Messages and content blocks as the 10xgraph API speaks them (SPEC §4), shared by the graph,
 * the server and the browser-compatible client. Types only: nothing here runs.
 * Field names stay snake_case, exactly as they travel.
 */

/** Who wrote a message. */
export type Role = 'user' | 'assistant' | 'tool';

/** Plain text from the user or the model. */
export interface TextBlock {
  type: 'text';
  text: string;
}

/** The model asks for a server tool; a ToolNode answers it with a `tool_result` of the same id. */
export interface ToolCallBlock {
  type: 'tool_call';
  id: string;
  name: string;
  args: unknown;
}

/** A ToolNode hands a call to the client: the run stops until the client sends its result. */
export interface RemoteToolCallBlock {
  type: 'remote_tool_call';
  id: string;
  name: string;
  args: unknown;
}

/** The outcome of one tool call; `error` says what went wrong when `status` is `failed`. */
export interface ToolResultBlock {
  type: 'tool_result';
  call_id: string;
  output: unknown;
  status: 'completed' | 'failed';
  error?: string;
}

/** One piece of a message's content. */
export type Block = TextBlock | ToolCallBlock | RemoteToolCallBlock | ToolResultBlock;

/** One message of a thread. */
export interface Message {
  message_id: string;
  role: Role;
  content: Block[];
}
