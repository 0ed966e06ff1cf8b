/**
 * Every shape that travels between a 10xgraph server and its clients (docs/spec.md §3 and §4):
 * messages and their blocks, remote tool calls, the answers' envelope, stream chunks, the
 * graph and tools answers, the limits both sides apply, and the builders of messages. The
 * server, the graph library, the live-graph fetch and the TypeScript client all use these, so
 * a field cannot be spelt two ways. Browser-compatible: no Node built-in is used.
 * Field names stay snake_case, exactly as they travel.
 */

// ---- messages ------------------------------------------------------------------------------

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

/**
 * A remote tool call a thread waits for. The ToolNode hands a call to the client only when its
 * arguments are a JSON object, so `args` always is one.
 */
export interface RemoteToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
  /** The ToolNode that carries the tool. */
  node: string;
}

// ---- limits ----------------------------------------------------------------------------------

/** The `recursion_limit` of a run when the request names none; also the client's cap on remote-tool rounds. */
export const DEFAULT_RECURSION_LIMIT = 25;

/** The largest `recursion_limit` the server accepts. */
export const MAX_RECURSION_LIMIT = 10_000;

/** The longest thread id: a UUID is 36 characters, the client's `thread_<uuid>` 43, a snowflake number at most 20. */
export const MAX_THREAD_ID_LENGTH = 128;

/** What a thread id is, worded to follow "must be" in the messages of both sides. */
export const THREAD_ID_RULE = `1 to ${MAX_THREAD_ID_LENGTH} characters of ASCII letters, digits, '_', '-', '.' and ':', and not '.' or '..' alone`;

// Only characters a URL path carries as they are, a database stores as they are and a log shows
// as they are: an id with others could be merged with another (lone surrogates), refused by the
// database (NUL) or forge a log line. `.` and `..` alone are path segments ("here", "the folder
// above") that URL parsing removes, so no thread route could name such a thread.
const THREAD_ID_PATTERN = /^[A-Za-z0-9_.:-]+$/;

/**
 * Whether `value` is a thread id (docs/spec.md §4): the ids servers and clients make (UUIDs,
 * `thread_<uuid>`, snowflake numbers written as digits) all are.
 */
export function isThreadId(value: unknown): value is string {
  return typeof value === 'string' && value.length >= 1 && value.length <= MAX_THREAD_ID_LENGTH && value !== '.' && value !== '..' && THREAD_ID_PATTERN.test(value);
}

// ---- answers -----------------------------------------------------------------------------------

/** The `metadata` of every answer. */
export interface ResponseMetadata {
  request_id: string;
  timestamp: string;
  message: string;
}

/** A successful answer: `{data, metadata}`. */
export interface DataEnvelope<T> {
  data: T;
  metadata: ResponseMetadata;
}

/** A refused or failed request: `{error: {code, message}, metadata}`. */
export interface ErrorEnvelope {
  error: { code: string; message: string };
  metadata: ResponseMetadata;
}

/** How a run ended: `waiting` when remote tool calls are pending. */
export type RunStatus = 'completed' | 'waiting';

/** The `data` of `POST /v1/graph/invoke`: one run of the graph, up to its end or its remote calls. */
export interface InvokeData {
  thread_id: string;
  status: RunStatus;
  /** The messages this run added. */
  messages: Message[];
  pending_remote_calls: RemoteToolCall[];
}

/** A chunk of `POST /v1/graph/stream` or of `WS /v1/graph/ws` (the latter adds `request_id`). */
export type StreamChunk =
  | { event: 'metadata'; data: { thread_id: string; run_id: string }; request_id?: string }
  | { event: 'message'; data: Message; request_id?: string }
  | { event: 'remote_tool_calls'; data: { thread_id: string; calls: RemoteToolCall[] }; request_id?: string }
  | { event: 'error'; data: { code: string; message: string }; request_id?: string }
  | { event: 'end'; data: { thread_id: string | null; status: RunStatus | 'error' }; request_id?: string };

/** The event names of `StreamChunk`, for readers that check what they receive. */
export const STREAM_EVENTS: ReadonlySet<StreamChunk['event']> = new Set(['metadata', 'message', 'remote_tool_calls', 'error', 'end']);

/** The kind of a node, as `GET /v1/graph` reports it. */
export type WireNodeType = 'tool_node' | 'model_node' | 'function_node';

/** The `data` of `GET /v1/graph`. */
export interface GraphDescription {
  info: { name: string; version?: string; node_count: number; edge_count: number; entry_point: string };
  /** `type` is missing only from servers older than this one. */
  nodes: Array<{ id: string; name: string; type?: WireNodeType }>;
  edges: Array<{ id: string; source: string; target: string; conditional: boolean }>;
}

/** A tool as `GET /v1/graph/tools` lists it. */
export interface GraphToolInfo {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  source: 'local' | 'remote';
}

/** The `data` of `GET /v1/graph/tools`. */
export interface GraphTools {
  node_count: number;
  tool_count: number;
  nodes: Array<{ node_name: string; tool_count: number; tools: GraphToolInfo[] }>;
}

// ---- builders --------------------------------------------------------------------------------

/** The `data` of `GET /v1/threads/{id}`: the thread's status and one page of its messages. */
export interface ThreadData {
  thread_id: string;
  /** `new` (no run finished yet), `completed` or `waiting` (for `pending_remote_calls`). */
  status: 'new' | 'completed' | 'waiting';
  /** Whether a run holds the thread now. */
  running: boolean;
  message_count: number;
  /** The messages from `page.offset` on, at most `page.limit`. */
  messages: Message[];
  pending_remote_calls: RemoteToolCall[];
  last_error: { code: string; message: string } | null;
  created_at: string;
  updated_at: string;
  /** `next_offset` is the offset of the next page, or null on the last one. */
  page: { offset: number; limit: number; next_offset: number | null };
}

/** The `data` of `POST /v1/threads/{id}/cancel`. */
export interface CancelThreadData {
  thread_id: string;
  status: 'new' | 'completed' | 'waiting';
  /** The ids of the calls answered with a failed "cancelled" result (empty when none waited). */
  cancelled_calls: string[];
  /** The tool message holding those results, or null. */
  message: Message | null;
}

/** The `data` of `DELETE /v1/threads/{id}`. */
export interface DeleteThreadData {
  thread_id: string;
  deleted: true;
}

/** A fresh random identifier: `crypto.randomUUID` where the platform has it, random hex elsewhere. */
export function newId(): string {
  const cryptoApi = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (cryptoApi && typeof cryptoApi.randomUUID === 'function') return cryptoApi.randomUUID();
  // Older browsers without randomUUID: uniqueness per thread is all the server needs.
  let hex = '';
  for (let i = 0; i < 32; i++) hex += Math.floor(Math.random() * 16).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20)}`;
}

/** Makes a fresh message id. */
export function newMessageId(): string {
  return `msg_${newId()}`;
}

/** Makes a fresh tool call id, unique across threads so results can never be mixed up. */
export function newCallId(): string {
  return `call_${newId().replace(/-/g, '')}`;
}

/** Makes a text message (a user message unless `role` says otherwise) with a fresh id. */
export function textMessage(text: string, role: Role = 'user'): Message {
  return { message_id: newMessageId(), role, content: [{ type: 'text', text }] };
}

/** Makes the `role: "tool"` message that answers tool calls, one `tool_result` block each. */
export function toolResultMessage(results: readonly ToolResultBlock[]): Message {
  return { message_id: newMessageId(), role: 'tool', content: results.map((result) => ({ ...result })) };
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
