import { preview, readNdjson } from './chunks';
import { CLIENT_ERROR_CODES, TenxGraphError } from './errors';
import { Message } from './message';
import { ToolExecutor } from './toolExecutor';
import type { AnyToolArgs, ToolHandler, ToolHandlerOptions } from './toolExecutor';
import {
  DEFAULT_RECURSION_LIMIT,
  isThreadId,
  newId,
  THREAD_ID_RULE,
  type CancelThreadData,
  type DeleteThreadData,
  type GraphDescription,
  type GraphTools,
  type InvokeData,
  type RemoteToolCall,
  type StreamChunk,
  type ThreadData,
} from './wire';
import { webSocketProtocols, WsConnection } from './wsConnection';
import type { WebSocketConstructor } from './wsConnection';

/** Where a client connects when no `baseUrl` is given: `10xgraph api`'s default address. */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:8000';

/** How long an aborted `invoke` or `stream` keeps asking to cancel a thread a run still holds. */
const ABORT_CANCEL_MS = 10_000;

/** A fetch function: the platform's, or one passed in. */
export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

/** Options of a `TenxGraphClient`. */
export interface TenxGraphClientOptions {
  /** The server's base URL (default `http://127.0.0.1:8000`); a path prefix is kept. */
  baseUrl?: string;
  /**
   * Sent as `Authorization: Bearer <token>`, and on the WebSocket (whose headers browsers cannot
   * set) as the subprotocol `10xgraph.bearer.<base64url token>`, so it stays out of URLs and logs.
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
  /** `thread_id` continues a thread; without it the server starts a new one. */
  config?: { thread_id?: string };
  /** Sent to the server (its graph-step limit per run) and the cap on the client's remote-tool rounds. Default 25. */
  recursion_limit?: number;
  /**
   * Aborts the requests and the running handlers, and cancels the remote calls the thread is
   * left waiting for (`POST /v1/threads/{id}/cancel`), so the thread takes new messages. While the
   * server still runs the thread the cancel is retried (10 s at most) before the call rejects with
   * the signal's reason. With a signal and no `thread_id`, the client names the new thread itself,
   * so it can cancel it.
   */
  signal?: AbortSignal;
}

/** Options of `thread`. */
export interface ThreadPageOptions {
  /** The index of the first message to return (default 0). */
  offset?: number;
  /** How many messages at most (default 100, at most 1000). */
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
  /** How many times the client ran handlers and sent results. */
  rounds: number;
}

interface RunBody {
  messages: Message[];
  config: { thread_id?: string };
  recursion_limit?: number;
}

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
  private ws?: WsConnection;

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

  /**
   * Runs the graph on `messages` (`POST /v1/graph/invoke`) and the remote-tool loop until the
   * thread no longer waits. Resolves to the final status with every message the loop added
   * (the tool-result messages the client sent included). Rejects with a TenxGraphError on an
   * API error, or when `recursion_limit` rounds did not end the loop.
   */
  async invoke(messages: Message[] | string, options: RunOptions = {}): Promise<InvokeResult> {
    const limit = checkLimit(options.recursion_limit);
    const collected: Message[] = [];
    const seen = new Set<string>();
    const keep = (message: Message) => {
      if (seen.has(message.message_id)) return;
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
    for (let rounds = 0; ; rounds++) {
      const data = await this.request<InvokeData>('POST', '/v1/graph/invoke', body, options.signal);
      if (!data || typeof data.thread_id !== 'string' || !Array.isArray(data.messages)) {
        throw new TenxGraphError(
          0,
          CLIENT_ERROR_CODES.unexpectedResponse,
          `The answer of POST ${this.baseUrl}/v1/graph/invoke has no thread_id or messages; is the URL a 10xgraph server?`,
        );
      }
      acceptThreadId(data.thread_id, `POST ${this.baseUrl}/v1/graph/invoke`);
      data.messages.forEach(keep);
      const pending = Array.isArray(data.pending_remote_calls) ? data.pending_remote_calls : [];
      if (data.status !== 'waiting' || pending.length === 0) {
        return { ...data, messages: collected, pending_remote_calls: pending, rounds };
      }
      if (rounds >= limit) throw limitError(data.thread_id, limit, pending);
      first.config.thread_id = data.thread_id;
      const toolMessage = await this.answer(pending, data.thread_id, options.signal);
      keep(toolMessage);
      body = { messages: [toolMessage], config: { thread_id: data.thread_id } };
      if (options.recursion_limit !== undefined) body.recursion_limit = options.recursion_limit;
    }
  }

  /**
   * Runs the graph on `messages` and yields its chunks as they come, over
   * `POST /v1/graph/stream` or, with `transport: 'ws'`, the WebSocket. The remote-tool loop
   * runs inside: after a `remote_tool_calls` chunk and its `end` (status `waiting`), the client
   * runs the handlers, yields the tool-result message it sends as a `message` chunk, and goes
   * on with the next run's chunks. An `error` chunk from the server is yielded like any other
   * (its `end` follows); failures outside the stream (HTTP errors, a lost connection, the
   * loop's limit) throw a TenxGraphError.
   */
  async *stream(messages: Message[] | string, options: StreamOptions = {}): AsyncGenerator<StreamChunk, void, undefined> {
    const limit = checkLimit(options.recursion_limit);
    const transport = options.transport ?? 'http';
    if (transport !== 'http' && transport !== 'ws') throw new TypeError(`transport must be 'http' or 'ws', not '${String(transport)}'.`);
    const body = this.firstBody(messages, options);
    const state = { threadId: body.config.thread_id };
    try {
      yield* this.streamLoop(body, options, transport, limit, state);
    } catch (error) {
      throw await this.afterAbort(error, state.threadId, options.signal);
    }
  }

  private async *streamLoop(
    first: RunBody,
    options: StreamOptions,
    transport: 'http' | 'ws',
    limit: number,
    state: { threadId?: string | undefined },
  ): AsyncGenerator<StreamChunk, void, undefined> {
    const sent = new Set<string>();
    const where = `the stream of ${this.baseUrl}`;
    let body = first;
    let threadId = body.config.thread_id;
    for (let rounds = 0; ; rounds++) {
      let calls: RemoteToolCall[] = [];
      let status: string | undefined;
      const chunks = transport === 'ws' ? this.wsRun(body, options.signal) : this.httpRun(body, options.signal);
      for await (const chunk of chunks) {
        if (chunk.event === 'metadata' && typeof chunk.data.thread_id === 'string') threadId = state.threadId = acceptThreadId(chunk.data.thread_id, where);
        if (chunk.event === 'remote_tool_calls') {
          calls = Array.isArray(chunk.data.calls) ? chunk.data.calls : [];
          threadId = chunk.data.thread_id === undefined ? threadId : acceptThreadId(chunk.data.thread_id, where);
        }
        if (chunk.event === 'message' && sent.has(chunk.data.message_id)) continue;
        if (chunk.event === 'end') {
          status = chunk.data.status;
          threadId = chunk.data.thread_id === undefined || chunk.data.thread_id === null ? threadId : acceptThreadId(chunk.data.thread_id, where);
        }
        yield chunk;
        if (chunk.event === 'end') break;
      }
      if (status !== 'waiting') return;
      if (threadId === undefined || calls.length === 0) {
        throw new TenxGraphError(
          0,
          CLIENT_ERROR_CODES.unexpectedResponse,
          `The stream ended with status 'waiting' but named no remote calls or thread; the server is not following the 10xgraph wire format.`,
        );
      }
      if (rounds >= limit) throw limitError(threadId, limit, calls);
      const toolMessage = await this.answer(calls, threadId, options.signal);
      sent.add(toolMessage.message_id);
      yield { event: 'message', data: toolMessage };
      body = { messages: [toolMessage], config: { thread_id: threadId } };
      if (options.recursion_limit !== undefined) body.recursion_limit = options.recursion_limit;
    }
  }

  /**
   * `GET /v1/threads/{id}`: the thread's status, its pending remote calls and a page of its
   * messages (`offset`, `limit`; `page.next_offset` is the next page's offset, or null).
   */
  async thread(threadId: string, options: ThreadPageOptions = {}): Promise<ThreadData> {
    const query = new URLSearchParams();
    if (options.offset !== undefined) query.set('offset', String(options.offset));
    if (options.limit !== undefined) query.set('limit', String(options.limit));
    const search = query.toString();
    return this.request<ThreadData>('GET', `${threadPath(threadId)}${search ? `?${search}` : ''}`, undefined, options.signal);
  }

  /**
   * `POST /v1/threads/{id}/cancel`: answers every remote call the thread waits for with a failed
   * result saying it was cancelled, so the model reads why and the thread takes new messages.
   * Rejects with `thread_busy` (409) while a run holds the thread.
   */
  async cancelThread(threadId: string, options: { signal?: AbortSignal } = {}): Promise<CancelThreadData> {
    return this.request<CancelThreadData>('POST', `${threadPath(threadId)}/cancel`, undefined, options.signal);
  }

  /** `DELETE /v1/threads/{id}`: deletes the thread and its messages. Rejects with `thread_busy` while a run holds it. */
  async deleteThread(threadId: string, options: { signal?: AbortSignal } = {}): Promise<DeleteThreadData> {
    return this.request<DeleteThreadData>('DELETE', threadPath(threadId), undefined, options.signal);
  }

  /**
   * After `invoke` or `stream` failed: when their signal aborted them, cancels what the thread is
   * left waiting for (retrying while the server still runs the thread, for a bounded time), then
   * hands back the error to throw.
   */
  private async afterAbort(error: unknown, threadId: string | undefined, signal: AbortSignal | undefined): Promise<unknown> {
    if (!signal?.aborted || threadId === undefined) return error;
    const deadline = Date.now() + ABORT_CANCEL_MS;
    for (let pause = 25; ; pause = Math.min(pause * 2, 500)) {
      try {
        await this.request('POST', `${threadPath(threadId)}/cancel`, undefined, undefined, true);
        return error;
      } catch (failure) {
        const busy = failure instanceof TenxGraphError && failure.code === 'thread_busy';
        if (!busy || Date.now() + pause > deadline) return error;
      }
      await new Promise((wake) => setTimeout(wake, pause));
    }
  }

  /** `stream` over the WebSocket endpoint (`WS /v1/graph/ws`). */
  streamWs(messages: Message[] | string, options: RunOptions = {}): AsyncGenerator<StreamChunk, void, undefined> {
    return this.stream(messages, { ...options, transport: 'ws' });
  }

  /** Closes the shared WebSocket, if one is open. HTTP requests need no closing. */
  close(): void {
    this.ws?.close();
    this.ws = undefined;
  }

  private firstBody(messages: Message[] | string, options: RunOptions): RunBody {
    const list = typeof messages === 'string' ? [Message.text_message(messages)] : messages;
    if (!Array.isArray(list)) throw new TypeError('messages must be an array of messages (or a string, sent as one user message).');
    const body: RunBody = { messages: list, config: {} };
    const given = options.config?.thread_id;
    if (given !== undefined) checkThreadId(given, 'config.thread_id');
    // With a signal, a new thread is named here, so an abort can cancel it whenever it comes.
    const threadId = given ?? (options.signal ? `thread_${newId()}` : undefined);
    if (threadId !== undefined) body.config.thread_id = threadId;
    if (options.recursion_limit !== undefined) body.recursion_limit = options.recursion_limit;
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
    const response = await this.send('POST', path, body, signal, 'application/x-ndjson');
    if (!response.ok) {
      const { text, payload } = await readJson(response);
      throw errorFromResponse(response, payload, text, 'POST', path);
    }
    if (!response.body) {
      throw new TenxGraphError(0, CLIENT_ERROR_CODES.unexpectedResponse, `The answer of POST ${this.baseUrl}${path} has no body to stream.`);
    }
    let ended = false;
    for await (const chunk of readNdjson(response.body, `stream at ${this.baseUrl}${path}`)) {
      yield chunk;
      if (chunk.event === 'end') {
        ended = true;
        break;
      }
    }
    if (!ended) throw incomplete(`${this.baseUrl}${path}`, body.config.thread_id);
  }

  private async *wsRun(body: RunBody, signal: AbortSignal | undefined): AsyncGenerator<StreamChunk> {
    const connection = this.connection();
    const id = newId();
    const queue = await connection.request(id, { ...body });
    const onAbort = () => queue.fail(signal?.reason);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    try {
      for await (const chunk of queue) {
        yield chunk;
        if (chunk.event === 'end') return;
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
      connection.release(id);
    }
  }

  private connection(): WsConnection {
    if (this.ws) return this.ws;
    if (!this.WebSocketImpl) {
      throw new TenxGraphError(
        0,
        CLIENT_ERROR_CODES.unsupported,
        "This platform has no WebSocket: pass one as the `WebSocket` option (in Node 20: `import WebSocket from 'ws'`), or stream over HTTP.",
      );
    }
    const url = new URL(`${this.baseUrl}/v1/graph/ws`);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    this.ws = new WsConnection(url.toString(), url.toString(), this.WebSocketImpl, webSocketProtocols(this.token));
    return this.ws;
  }
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

function incomplete(where: string, threadId: string | undefined): TenxGraphError {
  return new TenxGraphError(
    0,
    CLIENT_ERROR_CODES.streamIncomplete,
    `The stream from ${where} ended before its end chunk; the server may have stopped. Retry on the same thread.`,
    threadId === undefined ? {} : { threadId },
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
  const envelope = payload as { error?: { code?: unknown; message?: unknown }; metadata?: { request_id?: unknown } } | undefined;
  const requestId = typeof envelope?.metadata?.request_id === 'string' ? envelope.metadata.request_id : undefined;
  const extra = requestId === undefined ? {} : { requestId };
  if (envelope && typeof envelope.error === 'object' && envelope.error !== null && typeof envelope.error.code === 'string') {
    const message = typeof envelope.error.message === 'string' ? envelope.error.message : `${method} ${path} failed with ${response.status}.`;
    return new TenxGraphError(response.status, envelope.error.code, message, extra);
  }
  return new TenxGraphError(
    response.status,
    `http_${response.status}`,
    `${method} ${path} answered ${response.status} ${response.statusText} without a 10xgraph error (${preview(text) || 'empty body'}); is the URL a 10xgraph server?`,
    extra,
  );
}

/** A response's text and, when it is JSON, its value. */
async function readJson(response: Response): Promise<{ text: string; payload: unknown }> {
  const text = await response.text();
  try {
    return { text, payload: text === '' ? undefined : JSON.parse(text) };
  } catch {
    return { text, payload: undefined };
  }
}
