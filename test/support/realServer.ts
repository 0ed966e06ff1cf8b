/**
 * A stand-in of the real 10xGraph Python server (`10xgraph-api`) for client tests, on loopback. It
 * answers in the real server's shapes, status codes and framing, and runs a small deterministic graph
 * like the quick start's: a model node `agent` and a ToolNode `TOOL` with the server tool `get_time`
 * and the remote (client-run) tools `get_user_location` and `read_clipboard`.
 *
 * The sources it follows are the real server's (10xHub/agentflow-cli, package tenxgraph_api/src/app/:
 * routers/graph, routers/checkpointer, routers/store, routers/ping, core/auth, core/exceptions,
 * utils/response_helper.py) and the graph library's (10xGraph/10xGraph, tenxgraph/core/). The shapes
 * are checked by test/fixtures/wire/*.schema.json (test/support/wireContract.ts).
 *
 * The model, per turn, looks at the last message: tool results give "Location: <JSON>", "Clipboard:
 * <JSON>" or "The time is <output>." ("The tool failed: <output.error>" for a failed one); a user text
 * with "location" calls `get_user_location`, "clipboard" `read_clipboard`, "time" `get_time`, anything
 * else answers "No tool needed.". A remote call pauses the thread after `TOOL` with its placeholder
 * message, and the client resumes it with `tool_result` blocks.
 *
 * Where the real server's behaviour depends on its checkpointer, the stand-in does what a persistent
 * one does: `is_new_thread` is true only for a thread this request created, and DELETE of a thread
 * removes its info, state and messages. Not served: files, observability, evals, AG-UI, rate limits.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';

/** Options of the stand-in. */
export interface RealServerOptions {
  /** A bearer token every route but /ping requires (compared as is; the real server verifies a JWT). */
  token?: string;
  /** A pause inside each model step, so that a test can call POST /v1/graph/stop mid-run. */
  delayMs?: number;
}

/** A request the stand-in received: HTTP requests, WebSocket upgrades (GET) and WebSocket frames (method `WS`). */
export interface RecordedRequest {
  method: string;
  /** The path with its query string. */
  path: string;
  /** The parsed JSON body or frame; its text when it is not JSON; undefined when empty. */
  body: unknown;
  headers: IncomingMessage['headers'];
}

/** A running stand-in. */
export interface RealServer {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  /** Every request received so far, in order. */
  requests: RecordedRequest[];
  /** Closes every connection and the server; a run in its model pause ends at once. */
  close(): Promise<void>;
}

type Json = Record<string, unknown>;
type Granularity = 'low' | 'partial' | 'full';

/** A content block; the server dumps every field of its pydantic model. */
type Block = Json & { type: string };

/** A Message as the real server dumps it: every field, always (tenxgraph/core/state/message.py). */
interface WireMessage {
  message_id: string | number;
  role: string;
  content: Block[];
  delta: boolean;
  tools_calls: Json[] | null;
  reasoning: string | null;
  timestamp: number | null;
  metadata: Json;
  usages: Json | null;
  raw: Json | null;
  parsed_content: Json | null;
}

/** ExecutionState and AgentState (tenxgraph/core/state/execution_state.py, agent_state.py). */
interface ExecutionMeta {
  current_node: string;
  step: number;
  status: 'running' | 'interrupted_before' | 'interrupted_after' | 'completed' | 'error';
  interrupted_node: string | null;
  interrupt_reason: string | null;
  interrupt_data: Json | null;
  thread_id: string | null;
  stop_current_execution: 'none' | 'stop_requested' | 'stopped';
  internal_data: Json;
}
interface AgentState {
  context: WireMessage[];
  context_summary: string | null;
  execution_meta: ExecutionMeta;
}

/** StreamChunk (tenxgraph/core/state/stream_chunks.py), its keys in the order model_dump_json writes them. */
interface StreamChunk {
  event: 'message' | 'updates' | 'state' | 'error';
  message: WireMessage | null;
  state: AgentState | null;
  data: Json | null;
  thread_id: string | null;
  run_id: string | null;
  metadata: Json | null;
  timestamp: number;
}

interface ThreadInfo {
  thread_id: string;
  thread_name: string | null;
  user_id: string | null;
  metadata: Json | null;
  updated_at: string | null;
  run_id: string | null;
}

/** One pydantic error, as ErrorSchemas carries it. */
interface Issue {
  loc: Array<string | number>;
  msg: string;
  type: string;
}

const START = '__start__';
const END = '__end__';
const BEARER_SENTINELS = ['10xgraph-bearer', 'agentflow-bearer'];
const ROLES = ['user', 'assistant', 'system', 'tool'];
const GRANULARITIES = ['full', 'partial', 'low'];
const BLOCK_TYPES = ['text', 'image', 'audio', 'video', 'document', 'data', 'tool_call', 'remote_tool_call', 'tool_result', 'reasoning', 'annotation', 'error'];
/** The fields each block requires (message_block.py), `type` aside. */
const BLOCK_REQUIRED: Record<string, string[]> = {
  text: ['text'],
  image: ['media'],
  audio: ['media'],
  video: ['media'],
  document: ['media'],
  data: ['mime_type'],
  tool_call: ['id', 'name'],
  remote_tool_call: ['id', 'name'],
  tool_result: ['call_id'],
  reasoning: ['summary'],
  error: ['message'],
};
const NO_PARAMETERS = { type: 'object', properties: {}, required: [] };
const TOOLS = [
  { name: 'get_time', description: 'The time on the server.', source: 'local', parameters: NO_PARAMETERS },
  { name: 'get_user_location', description: "Get the user's current location.", source: 'remote', parameters: NO_PARAMETERS },
  { name: 'read_clipboard', description: "Read the text on the user's clipboard.", source: 'remote', parameters: NO_PARAMETERS },
];
const REMOTE_TOOLS = new Set(TOOLS.filter((tool) => tool.source === 'remote').map((tool) => tool.name));
const RESULT_LABELS: Record<string, string> = { get_user_location: 'Location', read_clipboard: 'Clipboard' };

/** An error answered through the app's exception handlers (handle_errors.py): the standard error envelope. */
class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Issue[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** A ValueError inside the graph service: invoke answers 422 `HTTPException`, the stream an error chunk. */
class ServiceInputError extends Error {
  constructor(
    message: string,
    readonly meta: Json,
  ) {
    super(message);
  }
}

/** An unhandled exception (the in-memory checkpointer's IndexError): Starlette's plain-text 500. */
class UnhandledError extends Error {}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `datetime.now().isoformat()`: local time, microseconds, no zone. */
function localIsoNow(): string {
  const d = new Date();
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const micro = d.getMilliseconds() === 0 ? '' : `.${p(d.getMilliseconds(), 3)}000`;
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}${micro}`;
}

/** `str()` of a parsed JSON body in Python, which the 422 handler answers as its message in development. */
function pythonRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') {
    const escaped = value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t');
    return escaped.includes("'") && !escaped.includes('"') ? `"${escaped}"` : `'${escaped.replace(/'/g, "\\'")}'`;
  }
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(', ')}]`;
  return `{${Object.entries(value as Json)
    .map(([key, item]) => `${pythonRepr(key)}: ${pythonRepr(item)}`)
    .join(', ')}}`;
}

/** `client_config()` (core/auth/request_config.py): the client's config without the server-owned keys. */
function clientConfig(config: unknown): Json {
  if (!isObject(config)) return {};
  return Object.fromEntries(Object.entries(config).filter(([key]) => !['authz', 'user', 'user_id', 'remote_tools'].includes(key) && !key.startsWith('_')));
}

/** `normalize_thread_id()`: trimmed text; null for a missing or blank id (a new thread). */
function normalizeThreadId(value: unknown): string | null {
  if (value === null || value === undefined || typeof value === 'boolean') return null;
  const text = String(value).trim();
  return text === '' ? null : text;
}

/** `client_tool_call_error()`: only the model may request a tool. */
function clientToolCallError(messages: unknown): string | null {
  if (!Array.isArray(messages)) return null;
  for (const [index, message] of messages.entries()) {
    if (!isObject(message)) continue;
    const blocks = Array.isArray(message.content) ? message.content : [];
    const callsTool =
      (Array.isArray(message.tools_calls) && message.tools_calls.length > 0) || blocks.some((b) => isObject(b) && (b.type === 'tool_call' || b.type === 'remote_tool_call'));
    if (callsTool) return `messages[${index}] carries a tool call; only the model may request tools`;
  }
  return null;
}

/** Checks a Message as pydantic does, for the errors a client can make. */
function checkMessage(value: unknown, loc: Array<string | number>, issues: Issue[]): void {
  if (!isObject(value)) {
    issues.push({ loc, msg: 'Input should be a valid dictionary or instance of Message', type: 'model_type' });
    return;
  }
  const id = value.message_id;
  if ('message_id' in value && typeof id !== 'string' && !Number.isInteger(id)) {
    issues.push({ loc: [...loc, 'message_id', 'str'], msg: 'Input should be a valid string', type: 'string_type' });
    issues.push({ loc: [...loc, 'message_id', 'int'], msg: 'Input should be a valid integer', type: 'int_type' });
  }
  if (!('role' in value)) issues.push({ loc: [...loc, 'role'], msg: 'Field required', type: 'missing' });
  else if (!ROLES.includes(value.role as string)) issues.push({ loc: [...loc, 'role'], msg: "Input should be 'user', 'assistant', 'system' or 'tool'", type: 'literal_error' });
  if (!('content' in value)) issues.push({ loc: [...loc, 'content'], msg: 'Field required', type: 'missing' });
  else if (!Array.isArray(value.content)) issues.push({ loc: [...loc, 'content'], msg: 'Input should be a valid list', type: 'list_type' });
  else value.content.forEach((block, i) => checkBlock(block, [...loc, 'content', i], issues));
}

/** Checks a content block of the union discriminated on `type` (message_block.py). */
function checkBlock(value: unknown, loc: Array<string | number>, issues: Issue[]): void {
  if (!isObject(value)) {
    issues.push({ loc, msg: 'Input should be a valid dictionary or object to extract fields from', type: 'model_attributes_type' });
    return;
  }
  const tag = value.type;
  if (tag === undefined) {
    issues.push({ loc, msg: "Unable to extract tag using discriminator 'type'", type: 'union_tag_not_found' });
  } else if (typeof tag !== 'string' || !BLOCK_TYPES.includes(tag)) {
    const expected = BLOCK_TYPES.map((t) => `'${t}'`).join(', ');
    issues.push({ loc, msg: `Input tag '${String(tag)}' found using 'type' does not match any of the expected tags: ${expected}`, type: 'union_tag_invalid' });
  } else {
    for (const field of BLOCK_REQUIRED[tag] ?? []) {
      if (!(field in value)) issues.push({ loc: [...loc, tag, field], msg: 'Field required', type: 'missing' });
      else if (field !== 'media' && typeof value[field] !== 'string') issues.push({ loc: [...loc, tag, field], msg: 'Input should be a valid string', type: 'string_type' });
    }
  }
}

/** Checks a list of messages at `loc`; true when it is one. */
function checkMessageList(value: unknown, loc: Array<string | number>, issues: Issue[]): boolean {
  if (!Array.isArray(value)) {
    issues.push({ loc, msg: 'Input should be a valid list', type: 'list_type' });
    return false;
  }
  const before = issues.length;
  value.forEach((message, i) => checkMessage(message, [...loc, i], issues));
  return issues.length === before;
}

/** Checks the fields GraphInputSchema and WsGraphInputSchema share (graph_schemas.py), under `prefix`. */
function checkRunFields(body: Json, prefix: Array<string | number>, issues: Issue[]): void {
  for (const key of ['initial_state', 'config']) {
    if (key in body && body[key] !== null && !isObject(body[key])) issues.push({ loc: [...prefix, key], msg: 'Input should be a valid dictionary', type: 'dict_type' });
  }
  if ('recursion_limit' in body) {
    const raw = body.recursion_limit;
    const limit = typeof raw === 'string' && /^\s*-?\d+\s*$/.test(raw) ? Number(raw) : raw;
    if (typeof limit !== 'number' || !Number.isInteger(limit)) issues.push({ loc: [...prefix, 'recursion_limit'], msg: 'Input should be a valid integer', type: 'int_type' });
    else if (limit < 1) issues.push({ loc: [...prefix, 'recursion_limit'], msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal' });
    else if (limit > 100) issues.push({ loc: [...prefix, 'recursion_limit'], msg: 'Input should be less than or equal to 100', type: 'less_than_equal' });
  }
  if ('response_granularity' in body && !GRANULARITIES.includes(body.response_granularity as string)) {
    issues.push({ loc: [...prefix, 'response_granularity'], msg: "Input should be 'full', 'partial' or 'low'", type: 'enum' });
  }
}

/** GraphInputSchema of POST /v1/graph/invoke and /stream. */
function checkGraphInput(body: unknown): Issue[] {
  if (body === undefined) return [{ loc: ['body'], msg: 'Field required', type: 'missing' }];
  if (!isObject(body)) return [{ loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', type: 'model_attributes_type' }];
  const issues: Issue[] = [];
  if ('messages' in body && checkMessageList(body.messages, ['body', 'messages'], issues)) {
    const error = clientToolCallError(body.messages);
    if (error) issues.push({ loc: ['body', 'messages'], msg: `Value error, ${error}`, type: 'value_error' });
  }
  checkRunFields(body, ['body'], issues);
  const messages = Array.isArray(body.messages) ? body.messages : [];
  if (issues.length === 0 && messages.length === 0 && !('resume' in body)) {
    issues.push({ loc: ['body'], msg: 'Value error, messages must contain at least one message', type: 'value_error' });
  }
  return issues;
}

/** WsGraphInputSchema of a /v1/graph/ws frame; its locations have no `body`. */
function checkWsInput(frame: Json): Issue[] {
  const issues: Issue[] = [];
  if ('invoke_type' in frame && frame.invoke_type !== 'fresh' && frame.invoke_type !== 'resume')
    issues.push({ loc: ['invoke_type'], msg: "Input should be 'fresh' or 'resume'", type: 'literal_error' });
  if ('messages' in frame) checkMessageList(frame.messages, ['messages'], issues);
  if ('tool_result' in frame && frame.tool_result !== null) checkMessageList(frame.tool_result, ['tool_result'], issues);
  checkRunFields(frame, [], issues);
  if (issues.length > 0) return issues;
  const valueError = (msg: string) => [{ loc: [], msg: `Value error, ${msg}`, type: 'value_error' }];
  const messages = Array.isArray(frame.messages) ? frame.messages : [];
  const results = Array.isArray(frame.tool_result) ? frame.tool_result : [];
  if (frame.invoke_type === 'resume') {
    if (results.length === 0) return valueError("tool_result must not be empty for invoke_type='resume'");
    if (!(isObject(frame.config) && frame.config.thread_id)) return valueError("config.thread_id is required for invoke_type='resume'");
  } else if (messages.length === 0) {
    return valueError("messages must not be empty for invoke_type='fresh'");
  }
  const error = clientToolCallError(messages) ?? clientToolCallError(results);
  return error ? valueError(error) : [];
}

/** `str()` of a pydantic ValidationError (without its input_value and documentation link). */
function pydanticText(model: string, issues: Issue[]): string {
  const lines = issues.map((issue) => `${issue.loc.length > 0 ? `${issue.loc.join('.')}\n` : ''}  ${issue.msg} [type=${issue.type}]`);
  return `${issues.length} validation error${issues.length === 1 ? '' : 's'} for ${model}\n${lines.join('\n')}`;
}

/** A ConfigSchema body (DELETE of a thread or message) or StateSchema (PUT state): `config` dict or null. */
function checkConfigBody(body: unknown, required: string[] = []): Issue[] {
  if (body === undefined) return [{ loc: ['body'], msg: 'Field required', type: 'missing' }];
  if (!isObject(body)) return [{ loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', type: 'model_attributes_type' }];
  const issues: Issue[] = [];
  if ('config' in body && body.config !== null && !isObject(body.config)) issues.push({ loc: ['body', 'config'], msg: 'Input should be a valid dictionary', type: 'dict_type' });
  for (const key of required) {
    if (!(key in body)) issues.push({ loc: ['body', key], msg: 'Field required', type: 'missing' });
    else if (key === 'state' && !isObject(body.state)) issues.push({ loc: ['body', key], msg: 'Input should be a valid dictionary', type: 'dict_type' });
  }
  return issues;
}

/** GraphStopSchema / FixGraphRequestSchema: a non-blank `thread_id` (answered stripped). */
function checkThreadIdBody(body: unknown): Issue[] {
  const issues = checkConfigBody(body);
  if (issues.length > 0 && issues[0].loc.length === 1) return issues;
  const id = (body as Json).thread_id;
  if (!('thread_id' in (body as Json))) issues.unshift({ loc: ['body', 'thread_id'], msg: 'Field required', type: 'missing' });
  else if (typeof id !== 'string') issues.unshift({ loc: ['body', 'thread_id'], msg: 'Input should be a valid string', type: 'string_type' });
  else if (id.length === 0) issues.unshift({ loc: ['body', 'thread_id'], msg: 'String should have at least 1 character', type: 'string_too_short' });
  else if (id.trim() === '') issues.unshift({ loc: ['body', 'thread_id'], msg: 'Value error, thread_id cannot be empty or whitespace', type: 'value_error' });
  return issues;
}

/** Snowflake-like thread ids, as the real server's default `generated_id` binding makes them. */
let snowflakeSequence = 0;
function newThreadId(): string {
  const sequence = BigInt(snowflakeSequence++ & 0x3fffff);
  return String(((BigInt(Date.now()) - 1288834974657n) << 22n) | sequence);
}

/** A Message with every field its pydantic dump has; `message_id` "0", 0 or absent gets a new id. */
function normalizeMessage(raw: Json): WireMessage {
  const id = raw.message_id;
  const content = (raw.content as Json[]).map((block) => normalizeBlock(block));
  return {
    message_id: id === undefined || id === '0' || id === 0 ? randomUUID() : (id as string | number),
    role: raw.role as string,
    content,
    delta: typeof raw.delta === 'boolean' ? raw.delta : false,
    tools_calls: Array.isArray(raw.tools_calls) ? (raw.tools_calls as Json[]) : null,
    reasoning: typeof raw.reasoning === 'string' ? raw.reasoning : null,
    timestamp: typeof raw.timestamp === 'number' ? raw.timestamp : Date.now() / 1000,
    metadata: isObject(raw.metadata) ? raw.metadata : {},
    usages: isObject(raw.usages) ? raw.usages : null,
    raw: isObject(raw.raw) ? raw.raw : null,
    parsed_content: isObject(raw.parsed_content) ? raw.parsed_content : null,
  };
}

/** A block with its model's defaults filled in, as the dump has them. */
function normalizeBlock(block: Json): Block {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text, annotations: Array.isArray(block.annotations) ? block.annotations : [] };
    case 'tool_call':
      return { type: 'tool_call', id: block.id, name: block.name, args: isObject(block.args) ? block.args : {}, tool_type: block.tool_type ?? null };
    case 'tool_result':
      return { type: 'tool_result', call_id: block.call_id, output: block.output ?? null, is_error: block.is_error === true, status: block.status ?? null };
    default:
      return block as Block;
  }
}

/** A message the stand-in's nodes produce. */
function makeMessage(role: string, content: Block[], fields: Partial<WireMessage> = {}): WireMessage {
  return {
    message_id: randomUUID(),
    role,
    content,
    delta: false,
    tools_calls: null,
    reasoning: null,
    timestamp: Date.now() / 1000,
    metadata: {},
    usages: null,
    raw: null,
    parsed_content: null,
    ...fields,
  };
}

function textBlock(text: string): Block {
  return { type: 'text', text, annotations: [] };
}

function makeChunk(event: StreamChunk['event'], fields: Partial<Omit<StreamChunk, 'event'>> = {}): StreamChunk {
  return { event, message: null, state: null, data: null, thread_id: null, run_id: null, metadata: null, timestamp: Date.now() / 1000, ...fields };
}

function newState(threadId: string | null): AgentState {
  return {
    context: [],
    context_summary: null,
    execution_meta: {
      current_node: START,
      step: 0,
      status: 'running',
      interrupted_node: null,
      interrupt_reason: null,
      interrupt_data: null,
      thread_id: threadId,
      stop_current_execution: 'none',
      internal_data: {},
    },
  };
}

/** `unanswered_tool_calls()`: call id -> tool name for the calls of assistant messages with no result in `context`. */
function unansweredToolCalls(context: WireMessage[]): Map<string, string> {
  const calls = new Map<string, string>();
  for (const message of context.filter((m) => m.role === 'assistant')) {
    for (const call of message.tools_calls ?? []) {
      const fn = isObject(call.function) ? call.function : {};
      if (call.id && !calls.has(String(call.id))) calls.set(String(call.id), String(fn.name ?? call.name ?? ''));
    }
    for (const block of message.content) {
      if ((block.type === 'tool_call' || block.type === 'remote_tool_call') && block.id && !calls.has(String(block.id))) calls.set(String(block.id), String(block.name ?? ''));
    }
  }
  for (const message of context) for (const block of message.content) if (block.type === 'tool_result') calls.delete(String(block.call_id));
  return calls;
}

/** The text of a message's text blocks. */
function textOf(message: WireMessage | undefined): string {
  return (message?.content ?? [])
    .filter((block) => block.type === 'text')
    .map((block) => String(block.text))
    .join('');
}

/** The input of one graph run, after the request was validated. */
interface RunRequest {
  messages: Json[];
  config: unknown;
  initialState: unknown;
  resume: boolean;
  granularity: Granularity;
  recursionLimit: number;
}

interface RunResult {
  meta: Json;
  /** The run's messages for invoke: the input echoed, node outputs, then placeholders. */
  messages: WireMessage[];
  state: AgentState;
}

interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  params: string[];
  query: URLSearchParams;
  body: unknown;
}

interface Route {
  method: string;
  pattern: RegExp;
  /** Whether the route has a body parameter (FastAPI then reads and decodes the body). */
  body: boolean;
  handle: (ctx: RouteContext) => Promise<unknown> | unknown;
}

/** The stand-in's state and routes; `startRealServer` wires it to a socket. */
class StandIn {
  readonly requests: RecordedRequest[] = [];
  private readonly routes: Route[] = [];
  private readonly infos = new Map<string, ThreadInfo>();
  private readonly states = new Map<string, AgentState>();
  private readonly stores = new Map<string, WireMessage[]>();
  private readonly pauses = new Set<() => void>();

  constructor(private readonly options: RealServerOptions) {
    // One registration per route: the path decides 404, the method 405, then the handler answers.
    this.route('GET', /^\/ping$/, false, () => 'pong');
    this.route('POST', /^\/v1\/graph\/invoke$/, true, (ctx) => this.invoke(ctx.body));
    this.route('POST', /^\/v1\/graph\/stream$/, true, (ctx) => this.stream(ctx));
    this.route('GET', /^\/v1\/graph$/, false, () => this.graphDetails());
    this.route('GET', /^\/v1\/graph\/tools$/, false, () => ({ node_count: 1, tool_count: TOOLS.length, nodes: [{ node_name: 'TOOL', tool_count: TOOLS.length, tools: TOOLS }] }));
    this.route('GET', /^\/v1\/graph:StateSchema$/, false, () => STATE_SCHEMA);
    this.route('POST', /^\/v1\/graph\/stop$/, true, (ctx) => this.stop(ctx.body));
    this.route('POST', /^\/v1\/graph\/fix$/, true, (ctx) => this.fix(ctx.body));
    this.route('GET', /^\/v1\/threads\/([^/]+)\/state$/, false, (ctx) => ({ state: this.states.get(this.pathThread(ctx)) ?? null }));
    this.route('PUT', /^\/v1\/threads\/([^/]+)\/state$/, true, (ctx) => this.putState(ctx));
    this.route('DELETE', /^\/v1\/threads\/([^/]+)\/state$/, false, (ctx) => this.clearState(ctx));
    this.route('POST', /^\/v1\/threads\/([^/]+)\/messages$/, true, (ctx) => this.putMessages(ctx));
    this.route('GET', /^\/v1\/threads\/([^/]+)\/messages\/([^/]+)$/, false, (ctx) => this.findMessage(ctx, false));
    this.route('GET', /^\/v1\/threads\/([^/]+)\/messages$/, false, (ctx) => this.listMessages(ctx));
    this.route('DELETE', /^\/v1\/threads\/([^/]+)\/messages\/([^/]+)$/, true, (ctx) => this.findMessage(ctx, true));
    this.route('GET', /^\/v1\/threads\/([^/]+)$/, false, (ctx) => ({ thread_data: { thread: this.infos.get(this.pathThread(ctx)) ?? null } }));
    this.route('GET', /^\/v1\/threads$/, false, (ctx) => this.listThreads(ctx.query));
    this.route('DELETE', /^\/v1\/threads\/([^/]+)$/, true, (ctx) => this.deleteThread(ctx));
    // No store is bound: every store route answers 503 (routers/store/services/store_service.py).
    const noStore = () => {
      throw new HttpError(503, 'HTTPException', 'Store is not configured');
    };
    this.route('POST', /^\/v1\/store\/(memories|search|memories\/list|memories\/forget)$/, true, noStore);
    this.route('POST', /^\/v1\/store\/memories\/[^/]+$/, true, noStore);
    this.route('PUT', /^\/v1\/store\/memories\/[^/]+$/, true, noStore);
    this.route('DELETE', /^\/v1\/store\/memories\/[^/]+$/, false, noStore);
  }

  private route(method: string, pattern: RegExp, body: boolean, handle: Route['handle']): void {
    this.routes.push({ method, pattern, body, handle });
  }

  /** Answers one HTTP request: routing (404/405), body decoding, authentication, then the route. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = randomUUID();
    const timestamp = localIsoNow();
    // RequestIDMiddleware's headers, on every answer that passes through it.
    res.setHeader('X-Request-ID', requestId);
    res.setHeader('X-Timestamp', timestamp);
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const text = await readBody(req);
    const recorded: RecordedRequest = { method: req.method ?? 'GET', path: url.pathname + url.search, body: parseRecorded(text), headers: req.headers };
    this.requests.push(recorded);
    const meta = { request_id: requestId, timestamp };
    // Starlette routes on the percent-decoded path.
    const path = safeDecode(url.pathname);
    try {
      const candidates = this.routes.filter((route) => route.pattern.test(path));
      const route = candidates.find((candidate) => candidate.method === req.method);
      if (!route) throw candidates.length > 0 ? new HttpError(405, 'HTTPException', 'Method Not Allowed') : new HttpError(404, 'HTTPException', 'Not Found');
      // FastAPI decodes the body before it resolves the dependencies (authentication).
      const body = route.body ? decodeBody(req, text) : undefined;
      if (path !== '/ping') this.authenticate(req.headers.authorization);
      const params = (route.pattern.exec(path) ?? []).slice(1);
      const data = await route.handle({ req, res, params, query: url.searchParams, body });
      if (!res.headersSent) sendJson(res, 200, { data, metadata: { ...meta, message: 'OK' } });
    } catch (error) {
      if (res.headersSent) throw error;
      if (error instanceof HttpError) {
        const body = { error: { code: error.code, message: error.message, details: error.details }, metadata: { ...meta, message: error.message } };
        sendJson(res, error.status, body, error.headers);
      } else {
        // ServerErrorMiddleware answers outside RequestIDMiddleware: no request headers.
        res.removeHeader('X-Request-ID');
        res.removeHeader('X-Timestamp');
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('Internal Server Error');
        if (!(error instanceof UnhandledError)) console.error('realServer: a route failed:', error);
      }
    }
  }

  /** RequirePermission + JwtAuth (core/auth/permissions.py, jwt_auth.py): 401, REVOKED_TOKEN without a credential, INVALID_TOKEN for a wrong one. */
  private authenticate(authorization: string | undefined): void {
    if (!this.options.token) return;
    const [scheme, token] = (authorization ?? '').split(' ', 2);
    const credential = scheme?.toLowerCase() === 'bearer' && token ? token : undefined;
    const headers = { 'WWW-Authenticate': 'Bearer realm="auth_required"' };
    if (credential === undefined) throw new HttpError(401, 'REVOKED_TOKEN', 'Invalid token, please login again', [], headers);
    if (credential !== this.options.token) throw new HttpError(401, 'INVALID_TOKEN', 'Invalid token, please login again', [], headers);
  }

  /** The WebSocket credential, tried as the real server does: Authorization header, then [sentinel, token] subprotocols, then ?token=. */
  wsAuthorized(req: IncomingMessage, url: URL): boolean {
    if (!this.options.token) return true;
    const [scheme, header] = (req.headers.authorization ?? '').split(' ', 2);
    const parts = String(req.headers['sec-websocket-protocol'] ?? '')
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean);
    const credential =
      (scheme?.toLowerCase() === 'bearer' && header) || (parts.length >= 2 && BEARER_SENTINELS.includes(parts[0]) && parts[1]) || url.searchParams.get('token') || undefined;
    return credential === this.options.token;
  }

  // --- Graph runs -------------------------------------------------------------------------------

  private async invoke(body: unknown): Promise<Json> {
    const request = this.runRequest(body);
    try {
      const result = await this.run(request, () => undefined);
      const state = result.state;
      return {
        // At partial the core answers `message` (singular), so the server reads no messages.
        messages: request.granularity === 'partial' ? [] : result.messages,
        state: request.granularity === 'full' ? state : null,
        context: request.granularity === 'low' ? null : state.context,
        summary: request.granularity === 'low' ? null : state.context_summary,
        meta: result.meta,
      };
    } catch (error) {
      if (error instanceof ServiceInputError) throw new HttpError(422, 'HTTPException', error.message);
      throw error;
    }
  }

  /** POST /v1/graph/stream: NDJSON under text/event-stream; a failure inside the run is an error chunk, still HTTP 200. */
  private async stream(ctx: RouteContext): Promise<void> {
    const request = this.runRequest(ctx.body);
    const { res } = ctx;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      'content-encoding': 'identity',
    });
    const write = (chunk: StreamChunk) => {
      if (!res.destroyed && !res.writableEnded) res.write(JSON.stringify(chunk) + '\n');
    };
    await this.runStreaming(request, write);
    if (!res.destroyed && !res.writableEnded) res.end();
  }

  /** Runs with a granularity filter; a service error becomes the error chunk stream_chunks() yields. */
  private async runStreaming(request: RunRequest, write: (chunk: StreamChunk) => void): Promise<void> {
    const wanted = (chunk: StreamChunk) =>
      chunk.event === 'message' ||
      chunk.event === 'error' ||
      (request.granularity !== 'low' && chunk.event === 'state') ||
      (request.granularity === 'full' && chunk.event === 'updates');
    try {
      await this.run(request, (chunk) => {
        if (wanted(chunk)) write(chunk);
      });
    } catch (error) {
      if (!(error instanceof ServiceInputError)) throw error;
      write(makeChunk('error', { data: { reason: error.message }, metadata: error.meta }));
    }
  }

  private runRequest(body: unknown): RunRequest {
    const issues = checkGraphInput(body);
    if (issues.length > 0) throw validationError(issues, body);
    const input = body as Json;
    return {
      messages: (Array.isArray(input.messages) ? input.messages : []) as Json[],
      config: input.config,
      initialState: input.initial_state,
      resume: 'resume' in input,
      granularity: (input.response_granularity as Granularity | undefined) ?? 'low',
      recursionLimit: Number(input.recursion_limit ?? 25),
    };
  }

  /**
   * One graph run, as GraphService.stream_chunks drives the core's stream handler: every chunk goes
   * to `emit` (the caller filters by granularity), the result is what invoke answers.
   */
  private async run(request: RunRequest, emit: (chunk: StreamChunk) => void): Promise<RunResult> {
    const config = clientConfig(request.config);
    let threadId = normalizeThreadId(config.thread_id);
    const meta: Json = {};
    if (isObject(request.initialState) && request.initialState.current_node === 'TOOL')
      throw new ServiceInputError("current_node 'TOOL' is a tool node; runs cannot start there", meta);
    meta.is_new_thread = threadId === null;
    threadId ??= newThreadId();
    meta.thread_id = threadId;
    const incoming = request.messages.map(normalizeMessage);
    const existing = this.states.get(threadId);
    this.checkToolResults(incoming, existing, meta);
    if (!existing && incoming.length === 0) throw new ServiceInputError("Input data must contain 'messages' for new execution.", meta);
    // _save_thread: a persistent checkpointer reports whether the thread is new.
    if (!this.infos.has(threadId)) meta.is_new_thread = true;
    const runId = randomUUID();
    this.infos.set(threadId, { thread_id: threadId, thread_name: null, user_id: null, metadata: {}, updated_at: localIsoNow(), run_id: runId });

    const state = existing ?? newState(threadId);
    const exec = state.execution_meta;
    Object.assign(exec, { status: 'running', interrupted_node: null, interrupt_reason: null, interrupt_data: null, stop_current_execution: 'none', thread_id: threadId, step: 0 });
    // initial_state is merged into the state; AgentState ignores fields it does not declare.
    if (isObject(request.initialState) && 'context_summary' in request.initialState) state.context_summary = summaryOf(request.initialState.context_summary, state.context_summary);
    this.states.set(threadId, state);
    const ids = { thread_id: threadId, run_id: runId };
    const send = (event: StreamChunk['event'], fields: Partial<StreamChunk>) => emit(makeChunk(event, { ...ids, ...fields, metadata: { ...(fields.metadata ?? {}), ...meta } }));
    const known = new Set(state.context.map((m) => m.message_id));
    const produced: WireMessage[] = [];
    for (const message of incoming) {
      if (!known.has(message.message_id)) state.context.push(message);
      produced.push(message);
      send('message', { message, metadata: { status: 'invoking_graph', reason: 'initial human message' } });
    }
    const maxSteps = request.recursionLimit;
    let node = 'agent';
    let step = 0;
    const placeholders: WireMessage[] = [];
    send('updates', { data: { status: 'invoking_graph', node, step, max_steps: maxSteps } });
    while (node !== END) {
      // The core checks the stop flag before every node (stream_handler.py _check_stop_requested).
      if (exec.stop_current_execution === 'stop_requested') {
        Object.assign(exec, {
          status: 'interrupted_after',
          interrupted_node: node,
          interrupt_reason: 'stop_requested',
          interrupt_data: { source: 'stop', info: 'requested via is_stopped_requested' },
        });
        send('updates', { data: { status: 'invoking_node', node, step, max_steps: maxSteps, reason: 'Graph execution stopped by request' } });
        break;
      }
      exec.current_node = node;
      exec.step = step;
      let next: string;
      if (node === 'agent') {
        await this.pause();
        const reply = this.modelTurn(state, threadId);
        for (const piece of reply.deltas) send('message', { message: piece, metadata: { node, step } });
        state.context.push(reply.message);
        produced.push(reply.message);
        send('message', { message: reply.message, metadata: { node, step } });
        next = reply.message.tools_calls ? 'TOOL' : END;
      } else {
        next = this.toolTurn(state, (message, data) => {
          if (message.metadata.is_remote) placeholders.push(message);
          else {
            state.context.push(message);
            produced.push(message);
          }
          send('message', { message, data, metadata: { node, step } });
        });
      }
      send('state', { state: structuredClone(state), metadata: { node, step } });
      if (placeholders.length > 0) {
        // A remote call pauses the graph after the ToolNode; the placeholder stays out of the context.
        Object.assign(exec, { status: 'interrupted_after', interrupted_node: node, interrupt_reason: 'remote_tool_call', current_node: node });
        send('updates', { data: { status: 'node_invoked', node, step, max_steps: maxSteps, reason: 'Remote tool call - graph interrupted' } });
        break;
      }
      send('updates', { data: { status: 'node_invoked', node, step, max_steps: maxSteps } });
      node = next;
      step += 1;
    }
    if (exec.status === 'running') Object.assign(exec, { status: 'completed', current_node: END, step });
    const interrupted = exec.status === 'interrupted_after';
    send('updates', { data: { status: 'graph_invoked', reason: 'Graph execution finished', is_interrupted: interrupted, total_messages: produced.length } });
    this.messageStore(threadId).push(...produced);
    return { meta, messages: [...produced, ...placeholders], state };
  }

  /** `_check_tool_results`: each result answers a pending remote call, once. */
  private checkToolResults(messages: WireMessage[], state: AgentState | undefined, meta: Json): void {
    const ids = messages.flatMap((m) => m.content.filter((b) => b.type === 'tool_result').map((b) => String(b.call_id)));
    if (ids.length === 0) return;
    if (new Set(ids).size !== ids.length) throw new ServiceInputError('Each tool call can be answered only once', meta);
    const pending = unansweredToolCalls(state?.context ?? []);
    for (const id of ids) {
      if (!REMOTE_TOOLS.has(pending.get(id) ?? '')) throw new ServiceInputError(`No remote tool call '${id}' is waiting for a result`, meta);
    }
  }

  /** The scripted model: the next assistant message and, for a text answer, its per-word deltas. */
  private modelTurn(state: AgentState, threadId: string): { message: WireMessage; deltas: WireMessage[] } {
    const last = state.context[state.context.length - 1];
    const metadata = { provider: 'stand-in', model: 'scripted', node_name: 'agent', thread_id: threadId };
    const usages = {
      completion_tokens: 1,
      prompt_tokens: state.context.length,
      total_tokens: state.context.length + 1,
      reasoning_tokens: 0,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      image_tokens: 0,
      audio_tokens: 0,
    };
    const tool = last?.role === 'user' ? pickTool(textOf(last)) : undefined;
    if (tool) {
      const id = `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
      return {
        message: makeMessage('assistant', [{ type: 'tool_call', id, name: tool, args: {}, tool_type: null }], {
          tools_calls: [{ id, type: 'function', function: { name: tool, arguments: '{}' } }],
          metadata: { ...metadata, finish_reason: 'tool_calls' },
          usages,
        }),
        deltas: [],
      };
    }
    const text = last?.role === 'tool' ? this.describeResults(state) : 'No tool needed.';
    const message = makeMessage('assistant', [textBlock(text)], { metadata: { ...metadata, finish_reason: 'stop' }, usages });
    const deltas = (text.match(/\S+\s*/g) ?? [text]).map((piece) => makeMessage('assistant', [textBlock(piece)], { message_id: message.message_id, delta: true }));
    return { message, deltas };
  }

  /** The answer to the tool results after the last assistant message. */
  private describeResults(state: AgentState): string {
    const lastCall = state.context.map((m) => m.role).lastIndexOf('assistant');
    const names = new Map<string, string>();
    for (const block of state.context[lastCall]?.content ?? []) if (block.type === 'tool_call') names.set(String(block.id), String(block.name));
    const results = state.context.slice(lastCall + 1).flatMap((m) => m.content.filter((b) => b.type === 'tool_result'));
    return results
      .map((block) => {
        const output = block.output;
        if (block.is_error === true || block.status === 'failed')
          return `The tool failed: ${isObject(output) && typeof output.error === 'string' ? output.error : JSON.stringify(output)}`;
        const name = names.get(String(block.call_id)) ?? '';
        return name === 'get_time' ? `The time is ${String(output)}.` : `${RESULT_LABELS[name] ?? 'Result'}: ${JSON.stringify(output)}`;
      })
      .join(' ');
  }

  /** The ToolNode: runs `get_time` on the server, answers a remote call with its placeholder (tool_node/base.py). */
  private toolTurn(state: AgentState, output: (message: WireMessage, data: Json | null) => void): string {
    const call = [...state.context].reverse().find((m) => m.role === 'assistant');
    for (const block of call?.content.filter((b) => b.type === 'tool_call') ?? []) {
      const id = String(block.id);
      const name = String(block.name);
      const args = isObject(block.args) ? block.args : {};
      if (REMOTE_TOOLS.has(name)) {
        output(makeMessage('tool', [{ type: 'remote_tool_call', id, name, args, tool_type: 'remote' }], { metadata: { is_remote: true } }), null);
      } else {
        const result = makeMessage('tool', [{ type: 'tool_result', call_id: id, output: '12:00', is_error: false, status: 'completed' }]);
        output(result, { status: 'tool_result', tool_name: name, args, tool_call_id: id, node: 'TOOL' });
      }
    }
    return 'agent';
  }

  /** The pause inside a model step; close() ends it at once. */
  private pause(): Promise<void> {
    const ms = this.options.delayMs ?? 0;
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.pauses.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.pauses.add(wake);
    });
  }

  /** Ends every pause (used by close()). */
  wakeAll(): void {
    for (const wake of [...this.pauses]) wake();
  }

  // --- Other graph routes -----------------------------------------------------------------------

  private graphDetails(): Json {
    const nodes = ['agent', 'TOOL'].map((name) => ({ id: randomUUID(), name }));
    const edges = [
      [START, 'agent'],
      ['agent', 'TOOL'],
      ['agent', END],
      ['TOOL', 'agent'],
    ].map(([source, target]) => ({ id: randomUUID(), source, target }));
    const info = {
      node_count: nodes.length,
      edge_count: edges.length,
      is_realtime: false,
      checkpointer: true,
      checkpointer_type: 'InMemoryCheckpointer',
      publisher: false,
      store: false,
      interrupt_before: [],
      interrupt_after: [],
      context_type: 'NoneType',
      id_generator: 'DefaultIDGenerator',
      id_type: 'string',
      state_type: 'AgentState',
      state_fields: ['context', 'context_summary', 'execution_meta'],
    };
    return { info, nodes, edges };
  }

  /** CompiledGraph.astop(): sets the flag a running thread checks before its next node. */
  private stop(body: unknown): Json {
    const issues = checkThreadIdBody(body);
    if (issues.length > 0) throw validationError(issues, body);
    const state = this.states.get(String((body as Json).thread_id).trim());
    if (!state) return { ok: false, running: false, reason: 'no-state' };
    if (state.execution_meta.status !== 'running') return { ok: true, running: false, reason: 'not-running' };
    state.execution_meta.stop_current_execution = 'stop_requested';
    return { ok: true, running: true };
  }

  /** fix_graph: drops the messages with a tool call whose `content` is empty; an OpenAI-shaped call has none, so every tool-calling message goes, as on the real server. */
  private fix(body: unknown): Json {
    const issues = checkThreadIdBody(body);
    if (issues.length > 0) throw validationError(issues, body);
    const threadId = String((body as Json).thread_id).trim();
    const state = this.states.get(threadId);
    if (!state) return { success: false, message: `No state found for thread: ${threadId}`, removed_count: 0, state: null };
    if (state.context.length === 0) return { success: true, message: 'No messages found in state', removed_count: 0, state: JSON.stringify(state) };
    const kept = state.context.filter((m) => !(m.tools_calls ?? []).some((call) => call.content === undefined || call.content === null || call.content === ''));
    const removed = state.context.length - kept.length;
    state.context = kept;
    const message = removed > 0 ? `Successfully removed ${removed} message(s)` : 'No messages with empty tool calls found';
    return { success: true, message, removed_count: removed, state: JSON.stringify(state) };
  }

  // --- Threads (routers/checkpointer) -----------------------------------------------------------

  /** The path's thread id; a blank one is refused as validate_thread_id does. */
  private pathThread(ctx: RouteContext): string {
    const id = ctx.params[0];
    if (id.trim() === '') throw new HttpError(422, 'HTTPException', 'thread_id cannot be empty or whitespace');
    return id;
  }

  private messageStore(threadId: string): WireMessage[] {
    let store = this.stores.get(threadId);
    if (!store) this.stores.set(threadId, (store = []));
    return store;
  }

  /** `_merge_states`: context appended, nulls ignored, execution_meta kept; AgentState drops the fields it does not declare. */
  private putState(ctx: RouteContext): Json {
    const issues = checkConfigBody(ctx.body, ['state']);
    if (issues.length > 0) throw validationError(issues, ctx.body);
    const threadId = this.pathThread(ctx);
    const update = (ctx.body as Json).state as Json;
    const error = clientToolCallError(update.context);
    if (error) throw new HttpError(422, 'HTTPException', error);
    const state = this.states.get(threadId) ?? newState(null);
    if (update.context !== undefined && update.context !== null) {
      const contextIssues: Issue[] = [];
      if (Array.isArray(update.context)) update.context.forEach((m, i) => checkMessage(m, ['context', i], contextIssues));
      else contextIssues.push({ loc: ['context'], msg: 'Input should be a valid list', type: 'list_type' });
      // A pydantic ValidationError is a ValueError: the ValueError handler answers it, without details.
      if (contextIssues.length > 0) throw new HttpError(422, 'VALIDATION_ERROR', pydanticText('AgentState', contextIssues));
      state.context.push(...(update.context as Json[]).map(normalizeMessage));
    }
    state.context_summary = summaryOf(update.context_summary, state.context_summary);
    this.states.set(threadId, state);
    return { state };
  }

  private clearState(ctx: RouteContext): Json {
    const existed = this.states.delete(this.pathThread(ctx));
    return { success: true, message: 'State cleared successfully', data: existed };
  }

  private putMessages(ctx: RouteContext): Json {
    const body = ctx.body;
    const issues = checkConfigBody(body);
    if (issues.length === 0) {
      const messages = (body as Json).messages;
      if (!('messages' in (body as Json))) issues.push({ loc: ['body', 'messages'], msg: 'Field required', type: 'missing' });
      else if (checkMessageList(messages, ['body', 'messages'], issues)) {
        const error = clientToolCallError(messages);
        if (error) issues.push({ loc: ['body', 'messages'], msg: `Value error, ${error}`, type: 'value_error' });
      }
      const metadata = (body as Json).metadata;
      if (metadata !== undefined && metadata !== null && !isObject(metadata))
        issues.push({ loc: ['body', 'metadata'], msg: 'Input should be a valid dictionary', type: 'dict_type' });
    }
    if (issues.length > 0) throw validationError(issues, body);
    const threadId = this.pathThread(ctx);
    const messages = (body as Json).messages as Json[];
    if (messages.length === 0) throw new HttpError(422, 'HTTPException', 'messages must not be empty');
    this.messageStore(threadId).push(...messages.map(normalizeMessage));
    return { success: true, message: 'Messages put successfully', data: true };
  }

  /** GET or DELETE of one stored message; an unknown id is the in-memory checkpointer's IndexError, a plain 500. */
  private findMessage(ctx: RouteContext, remove: boolean): Json {
    if (remove) {
      const issues = checkConfigBody(ctx.body);
      if (issues.length > 0) throw validationError(issues, ctx.body);
    }
    const threadId = this.pathThread(ctx);
    const messageId = ctx.params[1];
    if (messageId.trim() === '') throw new HttpError(422, 'HTTPException', 'message_id is required and cannot be empty');
    const store = this.messageStore(threadId);
    const index = store.findIndex((m) => String(m.message_id) === messageId);
    if (index < 0) throw new UnhandledError(`Message with ID ${messageId} not found`);
    if (!remove) return store[index] as unknown as Json;
    store.splice(index, 1);
    return { success: true, message: 'Message deleted successfully' };
  }

  private listMessages(ctx: RouteContext): Json {
    const threadId = this.pathThread(ctx);
    const { search, offset, limit } = readPaging(ctx.query, 'messages');
    let messages = this.messageStore(threadId);
    if (search) messages = messages.filter((m) => JSON.stringify(m.content).toLowerCase().includes(search.toLowerCase()));
    return { messages: messages.slice(offset, offset + limit) };
  }

  private listThreads(query: URLSearchParams): Json {
    const { search, offset, limit } = readPaging(query, 'threads');
    let threads = [...this.infos.values()];
    if (search) threads = threads.filter((info) => Object.values(info).some((value) => String(value).toLowerCase().includes(search.toLowerCase())));
    return { threads: threads.slice(offset, offset + limit) };
  }

  private deleteThread(ctx: RouteContext): Json {
    const issues = checkConfigBody(ctx.body);
    if (issues.length > 0) throw validationError(issues, ctx.body);
    const threadId = this.pathThread(ctx);
    const existed = this.infos.delete(threadId);
    this.states.delete(threadId);
    this.stores.delete(threadId);
    return { success: true, message: 'Thread deleted successfully', data: existed };
  }

  // --- WebSocket (routers/graph/router.py websocket_graph, realtime_graph_ws) --------------------

  /** /v1/graph/ws: one frame at a time; each run's chunks (with their "\n"), then the done frame. */
  serveGraphSocket(ws: WebSocket, path: string, headers: IncomingMessage['headers']): void {
    let queue = Promise.resolve();
    ws.on('message', (data: RawData, isBinary: boolean) => {
      const text = isBinary ? null : rawText(data);
      this.requests.push({ method: 'WS', path, body: text === null ? undefined : parseRecorded(text), headers });
      queue = queue.then(() => this.handleFrame(ws, text)).catch(() => closeSocket(ws, 1011));
    });
  }

  private async handleFrame(ws: WebSocket, text: string | null): Promise<void> {
    const send = (payload: string) => {
      if (ws.readyState === ws.OPEN) ws.send(payload);
    };
    // receive_json() raises on a binary or non-JSON frame: the handler closes with 1011.
    if (text === null) throw new Error('binary frame');
    const frame = JSON.parse(text) as unknown;
    const issues = isObject(frame) ? checkWsInput(frame) : null;
    if (issues === null || issues.length > 0) {
      const reason = issues === null ? `WsGraphInputSchema() argument after ** must be a mapping, not ${pythonTypeName(frame)}` : pydanticText('WsGraphInputSchema', issues);
      send(JSON.stringify(makeChunk('error', { data: { reason: `Invalid request: ${reason}` } })));
      return;
    }
    const input = frame as Json;
    const config = isObject(input.config) ? { ...input.config } : {};
    // "new", blank or missing starts a fresh thread.
    const threadId = normalizeThreadId(config.thread_id);
    if (threadId === null || threadId === 'new') delete config.thread_id;
    else config.thread_id = threadId;
    const request: RunRequest = {
      messages: (input.invoke_type === 'resume' ? input.tool_result : (input.messages ?? [])) as Json[],
      config,
      initialState: input.initial_state,
      resume: false,
      granularity: (input.response_granularity as Granularity | undefined) ?? 'low',
      recursionLimit: Number(input.recursion_limit ?? 25),
    };
    await this.runStreaming(request, (chunk) => send(JSON.stringify(chunk) + '\n'));
    send(JSON.stringify(makeChunk('updates', { data: { status: 'done' } })));
  }

  /** /v1/graph/live on a turn-based graph: a fatal `not_live` error event, then close 1008. */
  serveLiveSocket(ws: WebSocket): void {
    const message = 'This graph is not a live (realtime) agent; use the turn-based /v1/graph/ws endpoint instead of /v1/graph/live.';
    ws.send(JSON.stringify({ type: 'error', code: 'not_live', message, fatal: true }));
    closeSocket(ws, 1008);
  }
}

/** `limit` defaults to 100 and is capped at 1000; `offset` >= 0, `limit` > 0 (422 HTTPException otherwise). */
function readPaging(query: URLSearchParams, route: 'threads' | 'messages'): { search: string | null; offset: number; limit: number } {
  const issues: Issue[] = [];
  const integer = (key: string): number | null => {
    const raw = query.get(key);
    if (raw === null) return null;
    if (!/^\s*[-+]?\d+\s*$/.test(raw)) issues.push({ loc: ['query', key], msg: 'Input should be a valid integer, unable to parse string as an integer', type: 'int_parsing' });
    return Number(raw);
  };
  const offset = integer('offset');
  const limit = integer('limit');
  if (issues.length > 0) throw validationError(issues, undefined);
  const checks: Array<[boolean, string]> = [
    [offset !== null && offset < 0, 'offset must be >= 0'],
    [limit !== null && limit <= 0, 'limit must be > 0'],
  ];
  // list_threads checks the limit first, list_messages the offset.
  if (route === 'threads') checks.reverse();
  for (const [failed, message] of checks) if (failed) throw new HttpError(422, 'HTTPException', message);
  return { search: query.get('search'), offset: offset ?? 0, limit: Math.min(limit ?? 100, 1000) };
}

/** A RequestValidationError as the 422 handler answers it in development: the body (Python repr) as its message. */
function validationError(issues: Issue[], body: unknown): HttpError {
  const message = body === undefined || body === null || body === '' ? 'Validation error' : pythonRepr(body);
  return new HttpError(422, 'VALIDATION_ERROR', message, issues);
}

/** A context_summary update: null or absent keeps the old one. */
function summaryOf(update: unknown, current: string | null): string | null {
  return update === undefined || update === null ? current : String(update);
}

function pythonTypeName(value: unknown): string {
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'string') return 'str';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (typeof value === 'boolean') return 'bool';
  return 'NoneType';
}

/** The tool a user text asks for, checked in this order. */
function pickTool(text: string): string | undefined {
  if (/location/i.test(text)) return 'get_user_location';
  if (/clipboard/i.test(text)) return 'read_clipboard';
  if (/\btime\b/i.test(text)) return 'get_time';
  return undefined;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

function rawText(data: RawData): string {
  return Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8');
}

function parseRecorded(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** FastAPI's body decoding: JSON when the content type says so (or says nothing); malformed JSON is a 422 json_invalid. */
function decodeBody(req: IncomingMessage, text: string): unknown {
  if (text === '') return undefined;
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  const isJson = type === '' || type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
  if (!isJson) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const position = Number(/position (\d+)/.exec(String(error))?.[1] ?? 0);
    throw new HttpError(422, 'VALIDATION_ERROR', text, [{ loc: ['body', position], msg: 'JSON decode error', type: 'json_invalid' }]);
  }
}

function sendJson(res: ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(payload));
}

function closeSocket(ws: WebSocket, code: number): void {
  if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(code);
}

/** A reduced AgentState.model_json_schema(): the real one also defines every content block under $defs. */
const STATE_SCHEMA = {
  $defs: {
    ExecutionState: {
      properties: {
        current_node: { title: 'Current Node', type: 'string' },
        step: { default: 0, title: 'Step', type: 'integer' },
        status: { $ref: '#/$defs/ExecutionStatus', default: 'running' },
        interrupted_node: { anyOf: [{ type: 'string' }, { type: 'null' }], default: null, title: 'Interrupted Node' },
        interrupt_reason: { anyOf: [{ type: 'string' }, { type: 'null' }], default: null, title: 'Interrupt Reason' },
        interrupt_data: { anyOf: [{ additionalProperties: true, type: 'object' }, { type: 'null' }], default: null, title: 'Interrupt Data' },
        thread_id: { anyOf: [{ type: 'string' }, { type: 'null' }], default: null, title: 'Thread Id' },
        stop_current_execution: { $ref: '#/$defs/StopRequestStatus', default: 'none' },
        internal_data: { additionalProperties: true, title: 'Internal Data', type: 'object' },
      },
      required: ['current_node'],
      title: 'ExecutionState',
      type: 'object',
    },
    ExecutionStatus: { enum: ['running', 'interrupted_before', 'interrupted_after', 'completed', 'error'], title: 'ExecutionStatus', type: 'string' },
    StopRequestStatus: { enum: ['none', 'stop_requested', 'stopped'], title: 'StopRequestStatus', type: 'string' },
    Message: {
      properties: {
        message_id: { anyOf: [{ type: 'string' }, { type: 'integer' }], title: 'Message Id' },
        role: { enum: ROLES, title: 'Role', type: 'string' },
        content: { items: { type: 'object' }, title: 'Content', type: 'array' },
        delta: { default: false, title: 'Delta', type: 'boolean' },
        tools_calls: { anyOf: [{ items: { additionalProperties: true, type: 'object' }, type: 'array' }, { type: 'null' }], default: null, title: 'Tools Calls' },
        timestamp: { anyOf: [{ type: 'number' }, { type: 'null' }], title: 'Timestamp' },
        metadata: { additionalProperties: true, title: 'Metadata', type: 'object' },
      },
      required: ['role', 'content'],
      title: 'Message',
      type: 'object',
    },
  },
  properties: {
    context: { items: { $ref: '#/$defs/Message' }, title: 'Context', type: 'array' },
    context_summary: { anyOf: [{ type: 'string' }, { type: 'null' }], default: null, title: 'Context Summary' },
    execution_meta: { $ref: '#/$defs/ExecutionState' },
  },
  title: 'AgentState',
  type: 'object',
};

/**
 * Starts the stand-in on 127.0.0.1 (a free port). WebSocket upgrades to /v1/graph/ws and
 * /v1/graph/live accept the bearer sentinel `10xgraph-bearer` or `agentflow-bearer` (echoed as the
 * chosen subprotocol); a refused credential or an unknown path is refused before the upgrade with
 * HTTP 403, as uvicorn answers a WebSocketException raised before accept().
 */
export async function startRealServer(options: RealServerOptions = {}): Promise<RealServer> {
  const standIn = new StandIn(options);
  const server = createServer((req, res) => {
    standIn.handle(req, res).catch((error: unknown) => {
      console.error('realServer: a response failed:', error);
      res.destroy();
    });
  });
  const wss = new WebSocketServer({
    noServer: true,
    handleProtocols: (protocols: Set<string>) => {
      const first = [...protocols][0];
      return first !== undefined && BEARER_SENTINELS.includes(first) ? first : false;
    },
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    standIn.requests.push({ method: 'GET', path: url.pathname + url.search, body: undefined, headers: req.headers });
    const known = url.pathname === '/v1/graph/ws' || url.pathname === '/v1/graph/live';
    if (!known || !standIn.wsAuthorized(req, url)) {
      socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      if (url.pathname === '/v1/graph/live') standIn.serveLiveSocket(ws);
      else standIn.serveGraphSocket(ws, url.pathname, req.headers);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the stand-in server has no TCP address');
  return {
    url: `http://127.0.0.1:${address.port}`,
    requests: standIn.requests,
    close: async () => {
      standIn.wakeAll();
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
