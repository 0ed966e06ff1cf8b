import { brokenBody, normaliseMessage, preview, readNdjson } from './chunks';
import { CLIENT_ERROR_CODES, TenxGraphError } from './errors';
import { Message } from './message';
import { ToolExecutor } from './toolExecutor';
import type { AnyToolArgs, ToolHandler, ToolHandlerOptions } from './toolExecutor';
import {
  DEFAULT_RECURSION_LIMIT,
  isThreadId,
  newId,
  pendingRemoteCalls,
  THREAD_ID_RULE,
  WS_DONE_STATUS,
  type ActionData,
  type ErrorDetail,
  type FixData,
  type GraphDescription,
  type GraphTools,
  type InvokeData,
  type Message as WireMessage,
  type RemoteToolCall,
  type ResponseGranularity,
  type RunRequestBody,
  type StopData,
  type StreamChunk,
  type ThreadDetailsData,
  type ThreadMessagesData,
  type ThreadsData,
  type ThreadStateData,
} from './wire';
import { webSocketProtocols, WsRun } from './wsConnection';
import type { WebSocketConstructor } from './wsConnection';

/** Where a client connects when no `baseUrl` is given: `10xgraph api`'s default address. */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:8000';

/** A fetch function: the platform's, or one passed in. */
export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

/** Options of a `TenxGraphClient`. */
export interface TenxGraphClientOptions {
  /** The server's base URL (default `http://127.0.0.1:8000`); a path prefix is kept. */
  baseUrl?: string;
  /**
   * Sent as `Authorization: Bearer <token>`, and on the WebSocket (whose headers browsers cannot
   * set) as the subprotocols `10xgraph-bearer, <token>`, so it stays out of URLs and logs.
   */
  token?: string;
  /** The fetch to use (default `globalThis.fetch`). */
  fetch?: FetchLike;
  /** The WebSocket constructor to use (default `globalThis.WebSocket`; pass `ws`'s in Node 20). */
  WebSocket?: WebSocketConstructor;
  /** Default time-out of every tool handler, in milliseconds (none when absent). */
  handlerTimeoutMs?: number;
}

/** Options of `invoke` and `stream`. */
export interface RunOptions {
  /** `thread_id` continues a thread; without it the server starts a new one (its id comes back in `meta`). */
  config?: { thread_id?: string; [key: string]: unknown };
  /** Sent to the server (its graph-step limit per run) and the cap on the client's remote-tool rounds. Default 25. */
  recursion_limit?: number;
  /** Values set on the thread's state before the first run (not with the tool results of later rounds). */
  initial_state?: Record<string, unknown>;
  /** How much state the answers carry: `low` (the default), `partial` or `full`. */
  response_granularity?: ResponseGranularity;
  /**
   * Aborts the requests and the running handlers, and stops the thread (`POST /v1/graph/stop`):
   * a run the server still goes on with is stopped, and remote calls it waits for are cancelled,
   * so the thread takes new messages. With a signal and no `thread_id`, the client names the new
   * thread itself, so it can stop it.
   */
  signal?: AbortSignal;
}

/** Options of `threads` and `threadMessages`: a page, and a text to look for. */
export interface PageOptions {
  search?: string;
  /** The index of the first item (default 0). */
  offset?: number;
  /** How many items at most (default 100, at most 1000). */
  limit?: number;
  signal?: AbortSignal;
}

/** Options of `stream`. */
export interface StreamOptions extends RunOptions {
  /** `http` (default) reads `POST /v1/graph/stream`; `ws` uses `WS /v1/graph/ws`. */
  transport?: 'http' | 'ws';
}

/** What `invoke` resolves to: the last run's answer, with every message of the whole loop. */
export interface InvokeResult extends InvokeData {
  /** The thread the loop ran on (`meta.thread_id`). */
  thread_id: string;
  /** How many times the client ran handlers and sent results. */
  rounds: number;
}

/** A run's body as the client sends it: its `config` always there, to carry the thread. */
type RunBody = RunRequestBody & { config: { thread_id?: string; [key: string]: unknown } };

/**
 * A client of a 10xgraph server (`10xgraph api`). It runs in browsers and in Node: it uses only
 * fetch, WebSocket and AbortController. Register a handler for each remote tool of the server's
 * 10xgraph.json; `invoke` and `stream` then run the remote-tool loop: when the graph stops on
 * remote calls, the client runs their handlers concurrently, sends the results on the same
 * thread and goes on until the graph finishes.
 *
 * `Tools` maps each remote tool's name to its arguments (`TenxGraphClient<RemoteTools>` with the
 * types `10xgraph types` generates): a misspelt tool name or a wrong argument type is then a
 * compile error. Without it any name is accepted and arguments are loosely typed.
 */
/** What `registerTool` takes: the tool's name and handler; `node`, `description` and `parameters` are accepted and not used. */
export interface ToolRegistration<Name extends string = string, Args = AnyToolArgs> {
  name: Name;
  handler: ToolHandler<Args>;
  node?: string;
  description?: string;
  parameters?: unknown;
}

export class TenxGraphClient<Tools extends object = Record<string, AnyToolArgs>> {
  /** The executor behind `registerToolHandler`: usable directly to run calls by hand. */
  readonly tools: ToolExecutor;
  private readonly baseUrl: string;
  private readonly token?: string;
  private readonly fetchImpl?: FetchLike;
  private readonly WebSocketImpl?: WebSocketConstructor;

  constructor(options: TenxGraphClientOptions = {}) {
    const base = options.baseUrl ?? DEFAULT_BASE_URL;
    if (!/^https?:\/\//i.test(base)) {
      throw new TypeError(`baseUrl must be an http:// or https:// URL such as ${DEFAULT_BASE_URL}, not '${base}'.`);
    }
    this.baseUrl = trimTrailingSlashes(base);
    if (options.token !== undefined && options.token !== '') this.token = options.token;
    const globalFetch = (globalThis as { fetch?: FetchLike }).fetch;
    // Wrapped so that browsers see fetch called on the global object ("Illegal invocation" otherwise).
    this.fetchImpl = options.fetch ?? (globalFetch ? (input, init) => globalFetch.call(globalThis, input, init) : undefined);
    this.WebSocketImpl = options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    this.tools = new ToolExecutor(options.handlerTimeoutMs === undefined ? {} : { timeoutMs: options.handlerTimeoutMs });
  }

  /** Registers the handler of remote tool `name` (replacing an earlier one). Returns the client, for chaining. */
  registerToolHandler<Name extends keyof Tools & string>(name: Name, handler: ToolHandler<Tools[Name]>, options: ToolHandlerOptions = {}): this {
    // The executor runs calls by name whatever their arguments; the model's arguments are trusted
    // to match the schema the server offered it, as the generated types assume.
    this.tools.register(name, handler as ToolHandler, options);
    return this;
  }

  /**
   * Registers a handler in the form `@10xscale/agentflow-client`'s `registerTool` takes it:
   * `{ name, handler }`, with the `node`, `description` and `parameters` that client also takes
   * (they are not sent: the server reads them from `remote_tools` in its config). The same as
   * `registerToolHandler(name, handler)`. Returns the client, for chaining.
   */
  registerTool<Name extends keyof Tools & string>(registration: ToolRegistration<Name, Tools[Name]>): this {
    if (registration === null || typeof registration !== 'object' || typeof registration.name !== 'string' || typeof registration.handler !== 'function') {
      throw new TypeError('registerTool takes { name, handler }: a tool name (a string) and its handler (a function).');
    }
    return this.registerToolHandler(registration.name, registration.handler);
  }

  /** `GET /ping`: resolves to `"pong"` when the server is up. */
  async ping(options: { signal?: AbortSignal } = {}): Promise<string> {
    return this.request<string>('GET', '/ping', undefined, options.signal);
  }

  /** `GET /v1/graph`: the graph's nodes (with their type), edges and `info.version`. */
  async graph(options: { signal?: AbortSignal } = {}): Promise<GraphDescription> {
    return this.request<GraphDescription>('GET', '/v1/graph', undefined, options.signal);
  }

  /** `GET /v1/graph/tools`: the tools of each ToolNode, server (`local`) and `remote` alike. */
  async graphTools(options: { signal?: AbortSignal } = {}): Promise<GraphTools> {
    return this.request<GraphTools>('GET', '/v1/graph/tools', undefined, options.signal);
  }

  /** `GET /v1/graph:StateSchema`: the JSON Schema of the graph's state. */
  async graphStateSchema(options: { signal?: AbortSignal } = {}): Promise<Record<string, unknown>> {
    return this.request<Record<string, unknown>>('GET', '/v1/graph:StateSchema', undefined, options.signal);
  }

  /**
   * Runs the graph on `messages` (`POST /v1/graph/invoke`) and the remote-tool loop: while the
   * answer holds `remote_tool_call` blocks, the client runs their handlers and sends the results
   * on the same thread. Resolves to the last answer with every message of the loop (the results
   * the client sent included) and the thread's id. Rejects with a TenxGraphError on an API
   * error, or when `recursion_limit` rounds did not end the loop.
   */
  async invoke(messages: Message[] | string, options: RunOptions = {}): Promise<InvokeResult> {
    const limit = checkLimit(options.recursion_limit);
    const collected: Message[] = [];
    const seen = new Set<string>();
    const keep = (message: Message) => {
      if (message.message_id !== '' && seen.has(message.message_id)) return;
      seen.add(message.message_id);
      collected.push(message);
    };
    const body = this.firstBody(messages, options);
    try {
      return await this.invokeLoop(body, options, limit, keep, collected);
    } catch (error) {
      throw await this.afterAbort(error, body.config.thread_id, options.signal);
    }
  }

  private async invokeLoop(first: RunBody, options: RunOptions, limit: number, keep: (message: Message) => void, collected: Message[]): Promise<InvokeResult> {
    let body = first;
    const where = `POST ${this.baseUrl}/v1/graph/invoke`;
    let isNew = false;
    for (let rounds = 0; ; rounds++) {
      const data = await this.request<InvokeData>('POST', '/v1/graph/invoke', body, options.signal);
      if (!data || typeof data !== 'object' || !Array.isArray(data.messages) || typeof data.meta !== 'object' || data.meta === null) {
        throw new TenxGraphError(0, CLIENT_ERROR_CODES.unexpectedResponse, `The answer of ${where} has no messages or meta; is the URL a 10xgraph server?`);
      }
      const threadId = acceptThreadId(data.meta.thread_id || body.config.thread_id, where);
      first.config.thread_id = threadId;
      // The loop made the thread when its first answer says so.
      isNew ||= rounds === 0 && data.meta.is_new_thread === true;
      const answered = data.messages.map(normaliseMessage);
      answered.forEach(keep);
      const calls = remoteCallsOf(answered);
      if (calls.length === 0) return { ...data, meta: { ...data.meta, thread_id: threadId, is_new_thread: isNew }, messages: collected, thread_id: threadId, rounds };
      if (rounds >= limit) throw limitError(threadId, limit, calls);
      const toolMessage = await this.answer(calls, threadId, options.signal);
      keep(toolMessage);
      body = this.resumeBody(toolMessage, threadId, options);
    }
  }

  /**
   * Runs the graph on `messages` and yields its chunks as they come, over
   * `POST /v1/graph/stream` or, with `transport: 'ws'`, the WebSocket. The remote-tool loop
   * runs inside: when a run ends with `remote_tool_call` blocks unanswered, the client runs the
   * handlers, yields the tool-result message it sends as a `message` chunk, and goes on with the
   * next run's chunks. An `error` chunk from the server is yielded like any other and ends the
   * loop; failures outside the stream (HTTP errors, a lost connection, the loop's limit) throw
   * a TenxGraphError.
   */
  async *stream(messages: Message[] | string, options: StreamOptions = {}): AsyncGenerator<StreamChunk, void, undefined> {
    const limit = checkLimit(options.recursion_limit);
    const transport = options.transport ?? 'http';
    if (transport !== 'http' && transport !== 'ws') throw new TypeError(`transport must be 'http' or 'ws', not '${String(transport)}'.`);
    const body = this.firstBody(messages, options);
    const state = { threadId: body.config.thread_id };
    let socket: WsRun | undefined;
    try {
      if (transport === 'ws') socket = await this.openSocket();
      yield* this.streamLoop(body, options, socket, limit, state);
    } catch (error) {
      throw await this.afterAbort(error, state.threadId, options.signal);
    } finally {
      socket?.close();
    }
  }

  private async *streamLoop(
    first: RunBody,
    options: StreamOptions,
    socket: WsRun | undefined,
    limit: number,
    state: { threadId?: string | undefined },
  ): AsyncGenerator<StreamChunk, void, undefined> {
    const where = `the stream of ${this.baseUrl}`;
    let body = first;
    /** The tool-result messages the client yielded itself: the server's echo of them is not yielded again. */
    const sent = new Set<string>();
    for (let rounds = 0; ; rounds++) {
      const runMessages: Message[] = [];
      let failed = false;
      const chunks = socket ? this.wsRun(socket, body, rounds === 0, options.signal) : this.httpRun(body, options.signal);
      for await (const chunk of chunks) {
        const threadId = chunk.thread_id ?? (chunk.metadata?.thread_id as unknown);
        if (threadId !== undefined && threadId !== null && threadId !== '') state.threadId = first.config.thread_id = acceptThreadId(threadId, where);
        if (chunk.event === 'message' && chunk.message && chunk.message.delta !== true) runMessages.push(chunk.message);
        if (chunk.event === 'error') failed = true;
        if (chunk.event === 'message' && chunk.message && sent.has(chunk.message.message_id)) continue;
        yield chunk;
      }
      const calls = failed ? [] : remoteCallsOf(runMessages);
      if (calls.length === 0) return;
      const threadId = state.threadId;
      if (threadId === undefined) {
        throw new TenxGraphError(0, CLIENT_ERROR_CODES.unexpectedResponse, `The stream asked for remote tool calls but named no thread; is the URL a 10xgraph server?`);
      }
      if (rounds >= limit) throw limitError(threadId, limit, calls);
      const toolMessage = await this.answer(calls, threadId, options.signal);
      sent.add(toolMessage.message_id);
      yield {
        event: 'message',
        message: toolMessage,
        state: null,
        data: null,
        thread_id: threadId,
        run_id: null,
        metadata: { thread_id: threadId, is_new_thread: false },
        timestamp: Date.now() / 1000,
      };
      body = this.resumeBody(toolMessage, threadId, options);
    }
  }

  /** `GET /v1/threads`: the threads, most recently updated first; `search` looks in their ids. */
  async threads(options: PageOptions = {}): Promise<ThreadsData> {
    return this.request<ThreadsData>('GET', `/v1/threads${pageQuery(options)}`, undefined, options.signal);
  }

  /** `GET /v1/threads/{id}`: the thread (`thread_data.thread`), or null in it when there is none. */
  async threadDetails(threadId: string, options: { signal?: AbortSignal } = {}): Promise<ThreadDetailsData> {
    return this.request<ThreadDetailsData>('GET', threadPath(threadId), undefined, options.signal);
  }

  /** `GET /v1/threads/{id}/state`: the thread's state (its messages as `context`), or null. */
  async threadState(threadId: string, options: { signal?: AbortSignal } = {}): Promise<ThreadStateData> {
    return this.request<ThreadStateData>('GET', `${threadPath(threadId)}/state`, undefined, options.signal);
  }

  /** `PUT /v1/threads/{id}/state`: merges `state` into the thread's (values replaced, `context` messages appended). */
  async updateThreadState(threadId: string, state: Record<string, unknown>, options: { config?: Record<string, unknown>; signal?: AbortSignal } = {}): Promise<ThreadStateData> {
    return this.request<ThreadStateData>('PUT', `${threadPath(threadId)}/state`, { config: options.config ?? {}, state }, options.signal);
  }

  /** `DELETE /v1/threads/{id}/state`: empties the thread's state and messages; the thread stays. */
  async clearThreadState(threadId: string, options: { config?: Record<string, unknown>; signal?: AbortSignal } = {}): Promise<ActionData> {
    return this.request<ActionData>('DELETE', `${threadPath(threadId)}/state`, { config: options.config ?? {} }, options.signal);
  }

  /** `GET /v1/threads/{id}/messages`: a page of the thread's messages; `search` looks in their text. */
  async threadMessages(threadId: string, options: PageOptions = {}): Promise<ThreadMessagesData> {
    return this.request<ThreadMessagesData>('GET', `${threadPath(threadId)}/messages${pageQuery(options)}`, undefined, options.signal);
  }

  /** `POST /v1/threads/{id}/messages`: appends user messages to the thread without running the graph. */
  async addThreadMessages(
    threadId: string,
    messages: Message[],
    options: { config?: Record<string, unknown>; metadata?: Record<string, unknown>; signal?: AbortSignal } = {},
  ): Promise<ActionData> {
    return this.request<ActionData>('POST', `${threadPath(threadId)}/messages`, { config: options.config ?? {}, messages, metadata: options.metadata ?? {} }, options.signal);
  }

  /** `GET /v1/threads/{id}/messages/{message_id}`: one message. */
  async threadMessage(threadId: string, messageId: string, options: { signal?: AbortSignal } = {}): Promise<WireMessage> {
    return normaliseMessage(await this.request<WireMessage>('GET', messagePath(threadId, messageId), undefined, options.signal));
  }

  /** `DELETE /v1/threads/{id}/messages/{message_id}`: removes one message from the thread. */
  async deleteThreadMessage(threadId: string, messageId: string, options: { config?: Record<string, unknown>; signal?: AbortSignal } = {}): Promise<ActionData> {
    return this.request<ActionData>('DELETE', messagePath(threadId, messageId), { config: options.config ?? {} }, options.signal);
  }

  /** `DELETE /v1/threads/{id}`: deletes the thread and its messages. Rejects with `THREAD_BUSY` while a run holds it. */
  async deleteThread(threadId: string, options: { config?: Record<string, unknown>; signal?: AbortSignal } = {}): Promise<ActionData> {
    return this.request<ActionData>('DELETE', threadPath(threadId), { config: options.config ?? {} }, options.signal);
  }

  /**
   * `POST /v1/graph/stop`: stops the thread's run if one goes on (`running: true`), or else
   * cancels the remote calls it waits for, answering each with a failed result the model reads.
   */
  async stopGraph(threadId: string, options: { config?: Record<string, unknown>; signal?: AbortSignal } = {}): Promise<StopData> {
    return this.request<StopData>('POST', '/v1/graph/stop', { thread_id: checkThreadId(threadId, 'threadId'), config: options.config ?? {} }, options.signal);
  }

  /** `POST /v1/graph/fix`: removes the thread's tool calls that were never answered (after a crash or a lost client). */
  async fixGraph(threadId: string, options: { config?: Record<string, unknown>; signal?: AbortSignal } = {}): Promise<FixData> {
    return this.request<FixData>('POST', '/v1/graph/fix', { thread_id: checkThreadId(threadId, 'threadId'), config: options.config ?? {} }, options.signal);
  }

  /** After `invoke` or `stream` failed: when their signal aborted them, stops the thread, then hands back the error to throw. */
  private async afterAbort(error: unknown, threadId: string | undefined, signal: AbortSignal | undefined): Promise<unknown> {
    if (!signal?.aborted || threadId === undefined) return error;
    await this.request('POST', '/v1/graph/stop', { thread_id: threadId, config: {} }, undefined, true).catch(() => undefined);
    return error;
  }

  /** `stream` over the WebSocket endpoint (`WS /v1/graph/ws`). */
  streamWs(messages: Message[] | string, options: RunOptions = {}): AsyncGenerator<StreamChunk, void, undefined> {
    return this.stream(messages, { ...options, transport: 'ws' });
  }

  /** Nothing to close: each WebSocket run closes its socket when it ends. Kept for callers that close clients. */
  close(): void {}

  private firstBody(messages: Message[] | string, options: RunOptions): RunBody {
    const list = typeof messages === 'string' ? [Message.text_message(messages)] : messages;
    if (!Array.isArray(list)) throw new TypeError('messages must be an array of messages (or a string, sent as one user message).');
    const config = { ...(options.config ?? {}) };
    const given = config.thread_id;
    if (given !== undefined) checkThreadId(given, 'config.thread_id');
    // With a signal, a new thread is named here, so an abort can stop it whenever it comes.
    const threadId = given ?? (options.signal ? `thread_${newId()}` : undefined);
    if (threadId !== undefined) config.thread_id = threadId;
    const body: RunBody = { messages: list, config };
    if (options.initial_state !== undefined) body.initial_state = options.initial_state;
    if (options.recursion_limit !== undefined) body.recursion_limit = options.recursion_limit;
    if (options.response_granularity !== undefined) body.response_granularity = options.response_granularity;
    return body;
  }

  /** The body that sends a round's tool results on the thread. */
  private resumeBody(toolMessage: Message, threadId: string, options: RunOptions): RunBody {
    const body: RunBody = { messages: [toolMessage], config: { ...(options.config ?? {}), thread_id: threadId } };
    if (options.recursion_limit !== undefined) body.recursion_limit = options.recursion_limit;
    if (options.response_granularity !== undefined) body.response_granularity = options.response_granularity;
    return body;
  }

  private async answer(calls: RemoteToolCall[], threadId: string, signal: AbortSignal | undefined): Promise<Message> {
    const results = await this.tools.executeAll(calls, signal ? { thread_id: threadId, signal } : { thread_id: threadId });
    signal?.throwIfAborted();
    return Message.tool_message(results);
  }

  private headers(json: boolean, accept: string): Record<string, string> {
    const headers: Record<string, string> = { accept };
    if (json) headers['content-type'] = 'application/json';
    if (this.token !== undefined) headers.authorization = `Bearer ${this.token}`;
    return headers;
  }

  private async send(method: string, path: string, body: unknown, signal: AbortSignal | undefined, accept: string, keepalive = false): Promise<Response> {
    if (!this.fetchImpl) {
      throw new TenxGraphError(0, CLIENT_ERROR_CODES.unsupported, 'This platform has no fetch: pass one as the `fetch` option of TenxGraphClient.');
    }
    const init: RequestInit = { method, headers: this.headers(body !== undefined, accept) };
    if (body !== undefined) init.body = JSON.stringify(body);
    if (signal) init.signal = signal;
    // A cancel sent as a page closes must outlive the page.
    if (keepalive) init.keepalive = true;
    try {
      return await this.fetchImpl(this.baseUrl + path, init);
    } catch (error) {
      if (signal?.aborted) throw signal.reason ?? error;
      const cause = error instanceof Error ? ((error as { cause?: { message?: string } }).cause?.message ?? error.message) : String(error);
      throw new TenxGraphError(
        0,
        CLIENT_ERROR_CODES.network,
        `Could not reach the 10xgraph server at ${this.baseUrl} (${method} ${path}: ${cause}); check that \`10xgraph api\` is running there.`,
      );
    }
  }

  private async request<T>(method: string, path: string, body: unknown, signal: AbortSignal | undefined, keepalive = false): Promise<T> {
    const response = await this.send(method, path, body, signal, 'application/json', keepalive);
    const { text, payload } = await readJson(response);
    if (!response.ok) throw errorFromResponse(response, payload, text, method, path);
    if (typeof payload !== 'object' || payload === null || !('data' in payload)) {
      throw new TenxGraphError(
        0,
        CLIENT_ERROR_CODES.unexpectedResponse,
        `The answer of ${method} ${this.baseUrl}${path} is not a 10xgraph envelope (${preview(text) || 'empty body'}); is the URL a 10xgraph server?`,
      );
    }
    return (payload as { data: T }).data;
  }

  private async *httpRun(body: RunBody, signal: AbortSignal | undefined): AsyncGenerator<StreamChunk> {
    const path = '/v1/graph/stream';
    const response = await this.send('POST', path, body, signal, 'application/x-ndjson, text/event-stream, application/json');
    if (!response.ok) {
      const { text, payload } = await readJson(response);
      throw errorFromResponse(response, payload, text, 'POST', path);
    }
    if (!response.body) {
      throw new TenxGraphError(0, CLIENT_ERROR_CODES.unexpectedResponse, `The answer of POST ${this.baseUrl}${path} has no body to stream.`);
    }
    yield* readNdjson(response.body, `stream at ${this.baseUrl}${path}`);
  }

  /** One run on the socket: a `fresh` frame (or `resume` with the round's tool results), its chunks up to `done`. */
  private async *wsRun(socket: WsRun, body: RunBody, fresh: boolean, signal: AbortSignal | undefined): AsyncGenerator<StreamChunk> {
    const { messages, ...rest } = body;
    socket.send(fresh ? { invoke_type: 'fresh', messages, ...rest } : { invoke_type: 'resume', tool_result: messages, ...rest });
    const onAbort = () => socket.chunks.fail(signal?.reason);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    try {
      for await (const chunk of socket.chunks) {
        if (chunk.event === 'updates' && chunk.data?.status === WS_DONE_STATUS) return;
        yield chunk;
        // The Python server sends no `done` after refusing a frame: an error ends the run either way.
        if (chunk.event === 'error') return;
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  private async openSocket(): Promise<WsRun> {
    if (!this.WebSocketImpl) {
      throw new TenxGraphError(
        0,
        CLIENT_ERROR_CODES.unsupported,
        "This platform has no WebSocket: pass one as the `WebSocket` option (in Node 20: `import WebSocket from 'ws'`), or stream over HTTP.",
      );
    }
    const url = new URL(`${this.baseUrl}/v1/graph/ws`);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    return WsRun.open(url.toString(), url.toString(), this.WebSocketImpl, webSocketProtocols(this.token));
  }
}

/** The remote calls of a run's messages, as the handlers take them (the ToolNode from the message's metadata when it says). */
function remoteCallsOf(messages: readonly Message[]): RemoteToolCall[] {
  const nodes = new Map<string, string>();
  for (const message of messages) {
    const node = message.metadata?.node_name;
    if (typeof node === 'string') for (const block of message.content) if (block?.type === 'remote_tool_call') nodes.set(block.id, node);
  }
  return pendingRemoteCalls(messages).map((block) => ({
    id: block.id,
    name: block.name,
    args: typeof block.args === 'object' && block.args !== null && !Array.isArray(block.args) ? (block.args as Record<string, unknown>) : {},
    node: nodes.get(block.id) ?? '',
  }));
}

function pageQuery(options: PageOptions): string {
  const query = new URLSearchParams();
  if (options.search !== undefined && options.search !== '') query.set('search', options.search);
  if (options.offset !== undefined) query.set('offset', String(options.offset));
  if (options.limit !== undefined) query.set('limit', String(options.limit));
  const search = query.toString();
  return search ? `?${search}` : '';
}

function messagePath(threadId: string, messageId: string): string {
  if (typeof messageId !== 'string' || messageId === '') throw new TypeError('messageId must be a non-empty string.');
  return `${threadPath(threadId)}/messages/${encodeURIComponent(messageId)}`;
}

function threadPath(threadId: string): string {
  return `/v1/threads/${encodeURIComponent(checkThreadId(threadId, 'threadId'))}`;
}

/**
 * Returns `value` when it is a thread id (docs/spec.md §4); else throws before anything is sent,
 * since the server would refuse it (and `.` or `..` would not even reach a thread route).
 */
function checkThreadId(value: unknown, name: string): string {
  if (isThreadId(value)) return value;
  const shown = typeof value === 'string' ? (value.length > 40 ? `a string of ${value.length} characters` : JSON.stringify(value)) : typeof value;
  throw new TypeError(`${name} must be a thread id: ${THREAD_ID_RULE}; got ${shown}.`);
}

/** A thread id from an answer: one the client could not send back (not a thread id) means the answer is not the server's. */
function acceptThreadId(value: unknown, where: string): string {
  if (isThreadId(value)) return value;
  throw new TenxGraphError(
    0,
    CLIENT_ERROR_CODES.unexpectedResponse,
    `The answer of ${where} names a thread_id that is not a thread id (${THREAD_ID_RULE}); is the URL a 10xgraph server?`,
  );
}

function checkLimit(value: number | undefined): number {
  if (value === undefined) return DEFAULT_RECURSION_LIMIT;
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`recursion_limit must be a whole number of at least 1, not ${String(value)}.`);
  return value;
}

function limitError(threadId: string, limit: number, pending: RemoteToolCall[]): TenxGraphError {
  const names = [...new Set(pending.map((call) => call.name))].join(', ');
  return new TenxGraphError(
    0,
    CLIENT_ERROR_CODES.recursionLimit,
    `Thread ${threadId} still waits on remote calls (${names}) after ${limit} rounds of tool results, the recursion_limit; raise recursion_limit or check why the model keeps calling tools.`,
    { threadId },
  );
}

/**
 * `text` without the slashes it ends with. A loop, not `/\/+$/`, which backtracks quadratically
 * on a long run of slashes that is not at the end (the same loop as runtime/src/live/urls.ts;
 * this package depends on nothing, so it keeps its own copy).
 */
function trimTrailingSlashes(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x2f) end--;
  return text.slice(0, end);
}

function errorFromResponse(response: Response, payload: unknown, text: string, method: string, path: string): TenxGraphError {
  const envelope = payload as { error?: { code?: unknown; message?: unknown; details?: unknown }; metadata?: { request_id?: unknown } } | undefined;
  const requestId = typeof envelope?.metadata?.request_id === 'string' ? envelope.metadata.request_id : undefined;
  const extra = requestId === undefined ? {} : { requestId };
  if (envelope && typeof envelope.error === 'object' && envelope.error !== null && typeof envelope.error.code === 'string') {
    const message = typeof envelope.error.message === 'string' ? envelope.error.message : `${method} ${path} failed with ${response.status}.`;
    const details = Array.isArray(envelope.error.details) ? (envelope.error.details.filter((entry) => typeof entry === 'object' && entry !== null) as ErrorDetail[]) : [];
    return new TenxGraphError(response.status, envelope.error.code, message, { ...extra, details });
  }
  return new TenxGraphError(
    response.status,
    `HTTP_${response.status}`,
    `${method} ${path} answered ${response.status} ${response.statusText} without a 10xgraph error (${preview(text) || 'empty body'}); is the URL a 10xgraph server?`,
    extra,
  );
}

/** A response's text and, when it is JSON, its value. */
async function readJson(response: Response): Promise<{ text: string; payload: unknown }> {
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    throw brokenBody(error, `answer of ${response.url || 'the server'}`);
  }
  try {
    return { text, payload: text === '' ? undefined : JSON.parse(text) };
  } catch {
    return { text, payload: undefined };
  }
}
