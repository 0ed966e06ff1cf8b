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
export type Role = 'user' | 'assistant' | 'system' | 'tool';

/** Plain text from the user or the model. */
export interface TextBlock {
  type: 'text';
  text: string;
  annotations?: unknown[];
}

/** The model asks for a tool; a ToolNode answers it with a `tool_result` of the same id. */
export interface ToolCallBlock {
  type: 'tool_call';
  id: string;
  name: string;
  args: unknown;
  tool_type?: string | null;
}

/**
 * A ToolNode hands a call to the client (a remote tool): the run pauses until the client sends
 * its result. It travels in a `role: "tool"` message whose `metadata.is_remote` is true.
 */
export interface RemoteToolCallBlock {
  type: 'remote_tool_call';
  id: string;
  name: string;
  args: unknown;
  tool_type: 'remote';
}

/**
 * The outcome of one tool call. A failure has `is_error: true`, `status: "failed"` and its
 * reason in `output.error` (read it with `failureReasonOf`).
 */
export interface ToolResultBlock {
  type: 'tool_result';
  call_id: string;
  output: unknown;
  is_error: boolean;
  status: 'completed' | 'failed';
}

/** One piece of a message's content. */
export type Block = TextBlock | ToolCallBlock | RemoteToolCallBlock | ToolResultBlock;

/** A tool call in the OpenAI shape, as an assistant message's `tools_calls` repeats its `tool_call` blocks. */
export interface OpenAIToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** One message of a thread. */
export interface Message {
  /** Sent as "0" (or left out) by a client that lets the server assign it. */
  message_id: string;
  role: Role;
  content: Block[];
  /** A piece of a message still being written (a stream's token delta); the whole message follows. */
  delta?: boolean;
  tools_calls?: OpenAIToolCall[] | null;
  /** When the message was made, in seconds since the epoch. */
  timestamp?: number;
  metadata?: Record<string, unknown>;
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

/** One problem of a refused request: where (`loc`, a path into the request), what, and its kind. */
export interface ErrorDetail {
  loc: Array<string | number>;
  msg: string;
  type: string;
}

/** A refused or failed request: `{error: {code, message, details}, metadata}`; codes are UPPER_SNAKE_CASE. */
export interface ErrorEnvelope {
  error: { code: string; message: string; details: ErrorDetail[] };
  metadata: ResponseMetadata;
}

/** How much of the graph's state an answer carries: `low` (messages only, the default), `partial` or `full`. */
export type ResponseGranularity = 'low' | 'partial' | 'full';

/** The body of `POST /v1/graph/invoke` and `POST /v1/graph/stream`. */
export interface RunRequestBody {
  messages: Message[];
  initial_state?: Record<string, unknown> | null;
  config?: { thread_id?: string; [key: string]: unknown } | null;
  recursion_limit?: number;
  response_granularity?: ResponseGranularity;
}

/** The `meta` of a run's answer: the thread it ran on, and whether this run made it. */
export interface RunMeta {
  is_new_thread: boolean;
  thread_id: string;
  thread_name?: string;
}

/** The `execution_meta` of a thread's state: where the graph stands. */
export interface ExecutionMeta {
  current_node: string;
  step: number;
  status: 'running' | 'interrupted_before' | 'interrupted_after' | 'completed' | 'error';
  interrupted_node: string | null;
  interrupt_reason: string | null;
  interrupt_data: Record<string, unknown> | null;
  thread_id: string | null;
  stop_current_execution: 'none' | 'stop_requested' | 'stopped';
  internal_data: Record<string, unknown>;
  [key: string]: unknown;
}

/** A thread's state as the API shows it: its messages (`context`), and the graph's other values. */
export interface AgentState {
  context: Message[];
  context_summary: string | null;
  execution_meta: ExecutionMeta;
  [key: string]: unknown;
}

/**
 * The `data` of `POST /v1/graph/invoke`: the request's messages (their ids assigned) and those
 * the run added, the remote calls among them as `remote_tool_call` blocks; `state` and `context`
 * at `full` granularity.
 */
export interface InvokeData {
  messages: Message[];
  state: AgentState | null;
  context: Message[] | null;
  summary: string | null;
  meta: RunMeta;
}

/** The events of a stream chunk; `low` granularity sends only `message` and `error`. */
export type StreamEvent = 'message' | 'updates' | 'state' | 'error';

/**
 * A line of `POST /v1/graph/stream` or a frame of `WS /v1/graph/ws`. Every key is present; the
 * ones an event does not use are null. `metadata` carries the run's `meta` (`thread_id`,
 * `is_new_thread`) on every chunk.
 */
export interface StreamChunk {
  event: StreamEvent;
  message: Message | null;
  state: AgentState | null;
  data: Record<string, unknown> | null;
  thread_id: string | null;
  run_id: string | null;
  metadata: Record<string, unknown> | null;
  timestamp: number;
}

/** The event names of `StreamChunk`, for readers that check what they receive. */
export const STREAM_EVENTS: ReadonlySet<StreamEvent> = new Set(['message', 'updates', 'state', 'error']);

/** The frames a client sends on `WS /v1/graph/ws`: a run (`fresh`), or the tool results of a paused one (`resume`). */
export type WsRunFrame = ({ invoke_type: 'fresh' } & RunRequestBody) | ({ invoke_type: 'resume'; tool_result: Message[] } & Omit<RunRequestBody, 'messages'>);

/** The `data` of the chunk the WebSocket sends after every run: `{status: "done"}`. */
export const WS_DONE_STATUS = 'done';

/** The kind of a node, as `GET /v1/graph` reports it. */
export type WireNodeType = 'tool_node' | 'model_node' | 'function_node';

/** The `data` of `GET /v1/graph`. */
export interface GraphDescription {
  info: {
    node_count: number;
    edge_count: number;
    checkpointer?: boolean;
    checkpointer_type?: string | null;
    publisher?: boolean;
    store?: boolean;
    is_realtime?: boolean;
    interrupt_before?: string[] | null;
    interrupt_after?: string[] | null;
    context_type?: string | null;
    id_generator?: string | null;
    id_type?: string | null;
    state_type?: string | null;
    state_fields?: string[] | null;
    /** This server's own: the graph's name, the server's version and the entry node. */
    name?: string;
    version?: string;
    entry_point?: string;
    [key: string]: unknown;
  };
  /** `type` is this server's own (missing from the Python server). */
  nodes: Array<{ id: string; name: string; type?: WireNodeType }>;
  /** `conditional` is this server's own. */
  edges: Array<{ id: string; source: string; target: string; conditional?: boolean }>;
}

/** A tool as `GET /v1/graph/tools` lists it. */
export interface GraphToolInfo {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  source: 'local' | 'remote' | 'mcp';
}

/** The `data` of `GET /v1/graph/tools`. */
export interface GraphTools {
  node_count: number;
  tool_count: number;
  nodes: Array<{ node_name: string; tool_count: number; tools: GraphToolInfo[] }>;
}

/** The `data` of `POST /v1/graph/stop`. */
export interface StopData {
  ok: boolean;
  running?: boolean;
  /** `not-running` (nothing ran; remote calls it waited for are cancelled), `no-state` (no such thread). */
  reason?: string;
}

/** The `data` of `POST /v1/graph/fix`: how many messages with unanswered tool calls were removed. */
export interface FixData {
  success: boolean;
  message: string;
  removed_count: number;
  /** The thread's state after the fix, as a JSON text; null without a thread. */
  state: string | null;
}

/** A thread as `GET /v1/threads` lists it. */
export interface ThreadInfo {
  thread_id: string;
  thread_name: string | null;
  user_id: string | null;
  metadata: Record<string, unknown> | null;
  updated_at: string | null;
  run_id: string | null;
  [key: string]: unknown;
}

/** The `data` of `GET /v1/threads`. */
export interface ThreadsData {
  threads: ThreadInfo[];
}

/** The `data` of `GET /v1/threads/{id}`. */
export interface ThreadDetailsData {
  thread_data: { thread: ThreadInfo | null };
}

/** The `data` of `GET` and `PUT /v1/threads/{id}/state`. */
export interface ThreadStateData {
  state: AgentState | null;
}

/** The `data` of `GET /v1/threads/{id}/messages`. */
export interface ThreadMessagesData {
  messages: Message[] | null;
}

/** The `data` of the writes on threads (delete, clear the state, put messages, delete a message). */
export interface ActionData {
  success: boolean;
  message: string;
  data?: unknown;
}

// ---- builders --------------------------------------------------------------------------------

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

/** The `tool_result` of a call that succeeded. */
export function completedResult(callId: string, output: unknown): ToolResultBlock {
  return { type: 'tool_result', call_id: callId, output: output === undefined ? null : output, is_error: false, status: 'completed' };
}

/** The `tool_result` of a call that failed: `reason` travels as `output.error`, which the model reads. */
export function failedResult(callId: string, reason: string): ToolResultBlock {
  return { type: 'tool_result', call_id: callId, output: { error: reason }, is_error: true, status: 'failed' };
}

/** Whether a result reports a failure (`is_error`, or `status: "failed"`). */
export function isFailedResult(block: Pick<ToolResultBlock, 'is_error' | 'status'>): boolean {
  return block.is_error === true || block.status === 'failed';
}

/**
 * Why a failed call failed: `output.error` when it is text, else the older `error` field, else
 * the output itself as JSON (what a client chose to send).
 */
export function failureReasonOf(block: ToolResultBlock): string {
  const output = block.output as { error?: unknown } | null | undefined;
  if (typeof output === 'object' && output !== null && typeof output.error === 'string') return output.error;
  const legacy = (block as { error?: unknown }).error;
  if (typeof legacy === 'string') return legacy;
  if (typeof block.output === 'string') return block.output;
  if (block.output === null || block.output === undefined) return 'the tool failed without saying why';
  try {
    return JSON.stringify(block.output) ?? String(block.output);
  } catch {
    return String(block.output);
  }
}

/**
 * The `message_id` a client sends when it lets the server assign one (the Python client sends
 * "0"); the server replaces it, and a missing or empty id, with a fresh one.
 */
export const UNASSIGNED_MESSAGE_ID = '0';

/** Whether a message's id asks the server for one: missing, empty, `"0"` or `0`. */
export function isUnassignedMessageId(id: unknown): boolean {
  return id === undefined || id === null || id === '' || id === UNASSIGNED_MESSAGE_ID || id === 0;
}

/**
 * A thread id as a request gives it, as the Python server reads one: a positive whole number is
 * its digits, text is trimmed; anything else is returned as it is, for the caller to refuse.
 */
export function threadIdText(value: unknown): unknown {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return String(value);
  return typeof value === 'string' ? value.trim() : value;
}

/**
 * The subprotocol that says "the next subprotocol is the bearer token": browsers cannot set
 * headers on a WebSocket, and a token in the URL ends up in logs and histories. A server answers
 * with this entry, never with the token.
 */
export const WS_BEARER_PROTOCOL = '10xgraph-bearer';

/** The older name of `WS_BEARER_PROTOCOL`, which the Python client still sends and servers take. */
export const WS_LEGACY_BEARER_PROTOCOL = 'agentflow-bearer';

/**
 * The remote calls `messages` ask the client to run: their `remote_tool_call` blocks that no
 * `tool_result` among the messages answers, in order, each once.
 */
export function pendingRemoteCalls(messages: readonly Message[]): RemoteToolCallBlock[] {
  const answered = new Set<string>();
  for (const message of messages) for (const block of message.content ?? []) if (block?.type === 'tool_result') answered.add(block.call_id);
  const seen = new Set<string>();
  const calls: RemoteToolCallBlock[] = [];
  for (const message of messages) {
    if (message?.delta === true) continue;
    for (const block of message.content ?? []) {
      if (block?.type !== 'remote_tool_call' || answered.has(block.id) || seen.has(block.id)) continue;
      seen.add(block.id);
      calls.push(block);
    }
  }
  return calls;
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
