/**
 * Helpers for the server tests: a graph like the quick start's built from the library sources,
 * and raw HTTP, NDJSON and WebSocket calls on loopback (no client library, on purpose).
 */
import { once } from 'node:events';
import { resolve } from 'node:path';
import WebSocket from 'ws';
import { END, ModelNode, StateGraph, ToolNode, toolsCondition, type CompiledGraph, type ServerTool } from '../../runtime/src/graph/index';
import { ScriptedModel } from '../../runtime/src/models/index';

/** The repository's root folder. */
export const ROOT = resolve(__dirname, '..', '..');
/** The quick start's config. */
export const QUICKSTART_CONFIG = resolve(ROOT, 'examples', 'quickstart', '10xgraph.json');
/** The library bundle agent modules load (`10xgraph`). */
export const RUNTIME_DIST = resolve(ROOT, 'runtime', 'dist', 'index.js');
/** The API server's bundle (`10xgraph/api`): the server, the agent loader, the thread stores. */
export const API_DIST = resolve(ROOT, 'runtime', 'dist', 'api.js');

/** The quick start's remote tools, as `10xgraph.json` declares them. */
export const REMOTE_TOOLS = [
  { name: 'get_user_location', description: "Get the user's current location.", parameters: { type: 'object', properties: {}, required: [] } },
  { name: 'read_clipboard', description: "Read the text on the user's clipboard.", parameters: { type: 'object', properties: {}, required: [] } },
  {
    name: 'search_local_database',
    description: "Search the user's local database.",
    parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
  },
];

/** A graph like the quick start's: `agent` (scripted) and `TOOL` with `get_time` plus the remote tools. */
export function buildTestGraph(extraTools: ServerTool[] = []): CompiledGraph {
  const model = new ScriptedModel({
    rules: [
      { when: /\btime\b/i, call: 'get_time' },
      { when: /\bwhere am i\b|\blocation\b/i, call: 'get_user_location' },
      { when: /\bclipboard\b/i, call: 'read_clipboard' },
      { when: /\bsearch(?: for)? (\S+)/i, call: 'search_local_database', args: (match) => ({ query: match?.[1] ?? '' }) },
      { when: /\bslow\b/i, call: 'slow_tool' },
      { when: /\bbroken\b/i, call: 'broken_tool' },
    ],
    reply: 'No tool needed.',
  });
  const graph = new StateGraph()
    .addNode('agent', new ModelNode(model))
    .addNode('TOOL', new ToolNode([{ name: 'get_time', description: 'The time on the server.', handler: async () => '12:00' }, ...extraTools]))
    .setEntryPoint('agent')
    .addConditionalEdges('agent', toolsCondition, ['TOOL', END])
    .addEdge('TOOL', 'agent')
    .compile({ name: 'test' });
  graph.attachRemoteTools(REMOTE_TOOLS, 'TOOL');
  return graph;
}

/** A wire message with one text block. */
export function userText(text: string) {
  return { role: 'user', content: [{ type: 'text', text }] };
}

/** A remote call as a run's messages carry it: a `remote_tool_call` block. */
export interface RemoteCallBlock {
  type: 'remote_tool_call';
  id: string;
  name: string;
  args: any;
  tool_type: 'remote';
}

/** A `tool` message with one completed result per call, the output made by `output(call)`. */
export function resultsFor(calls: ReadonlyArray<{ id: string; name: string; args: unknown }>, output: (call: { id: string; name: string; args: any }) => unknown) {
  return { role: 'tool', content: calls.map((call) => ({ type: 'tool_result', call_id: call.id, output: output(call), is_error: false, status: 'completed' })) };
}

/** The remote calls `messages` ask the client for: their `remote_tool_call` blocks that no `tool_result` among them answers. */
export function findRemoteCalls(messages: readonly any[]): RemoteCallBlock[] {
  const blocks = messages.filter((message) => message?.delta !== true).flatMap((message) => message?.content ?? []);
  const answered = new Set(blocks.filter((block: any) => block.type === 'tool_result').map((block: any) => block.call_id));
  return blocks.filter((block: any) => block.type === 'remote_tool_call' && !answered.has(block.id));
}

/** The whole messages of stream chunks (text deltas left out), in order. */
export function collectMessages(chunks: readonly any[]): any[] {
  return chunks.filter((chunk) => chunk.event === 'message' && chunk.message && chunk.message.delta !== true).map((chunk) => chunk.message);
}

/** Whether a chunk is the `done` the WebSocket sends after each run. */
export function isDone(chunk: any): boolean {
  return chunk?.event === 'updates' && chunk.data?.status === 'done';
}

/** The text blocks of the last message, joined. */
export function joinLastText(messages: readonly any[]): string {
  return (messages.at(-1)?.content ?? [])
    .filter((block: any) => block.type === 'text')
    .map((block: any) => block.text)
    .join('');
}

/** A JSON answer. */
export interface JsonAnswer {
  status: number;
  headers: Headers;
  body: any;
}

/** POSTs JSON (or a raw string) and reads the JSON answer. */
export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<JsonAnswer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

/** GETs and reads the JSON answer. */
export async function getJson(url: string, headers: Record<string, string> = {}): Promise<JsonAnswer> {
  const response = await fetch(url, { headers });
  return { status: response.status, headers: response.headers, body: JSON.parse(await response.text()) };
}

/**
 * POSTs to `/v1/graph/stream` and reads every NDJSON chunk as the server writes them, up to the
 * end of the body (the stream has no end marker). A refusal (a JSON answer) comes back as the
 * one chunk.
 */
export async function postStream(base: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; contentType: string | null; chunks: any[] }> {
  const response = await fetch(`${base}/v1/graph/stream`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const contentType = response.headers.get('content-type');
  if (contentType?.startsWith('application/json')) return { status: response.status, contentType, chunks: [JSON.parse(await response.text())] };
  const chunks: any[] = [];
  let buffer = '';
  const decoder = new TextDecoder();
  for await (const piece of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(piece, { stream: true });
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (line.trim()) chunks.push(JSON.parse(line));
    }
  }
  if (buffer.trim()) chunks.push(JSON.parse(buffer));
  return { status: response.status, contentType, chunks };
}

/**
 * A WebSocket to `/v1/graph/ws`. Its runs go one after another, each ended by a `done` chunk,
 * so the chunks are read run by run: `next()` gives those up to the next `done`.
 */
export class WsSession {
  private readonly chunks: any[] = [];
  private readonly waiters: Array<() => void> = [];
  /** Where the next run's chunks start. */
  private read = 0;

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      this.chunks.push(JSON.parse(data.toString()));
      for (const wake of this.waiters.splice(0)) wake();
    });
    socket.on('close', () => {
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  /**
   * Opens a session (the token as `Authorization`, or as the subprotocols given); rejects with
   * the HTTP status when the upgrade is refused.
   */
  static async open(base: string, options: { token?: string; query?: string; headers?: Record<string, string>; protocols?: string[] } = {}): Promise<WsSession> {
    const url = `${base.replace(/^http/, 'ws')}/v1/graph/ws${options.query ?? ''}`;
    const socket = new WebSocket(url, options.protocols ?? [], { headers: { ...(options.token ? { authorization: `Bearer ${options.token}` } : {}), ...options.headers } });
    await new Promise<void>((resolveOpen, reject) => {
      socket.once('open', () => resolveOpen());
      socket.once('unexpected-response', (_req, res) => reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { status: res.statusCode })));
      socket.once('error', reject);
    });
    return new WsSession(socket);
  }

  /** Sends a raw text frame. */
  sendRaw(text: string): void {
    this.socket.send(text);
  }

  /** Sends a frame (`{invoke_type: "fresh", messages}` or `{invoke_type: "resume", tool_result, config}`). */
  send(frame: Record<string, unknown>): void {
    this.socket.send(JSON.stringify(frame));
  }

  /** Sends a frame and resolves to the chunks of its run, its `done` included (no run of this socket may be pending). */
  async run(frame: Record<string, unknown>): Promise<any[]> {
    this.send(frame);
    return this.next();
  }

  /** Resolves to the chunks of the next run, up to and including its `done`. */
  async next(): Promise<any[]> {
    for (;;) {
      const end = this.chunks.findIndex((chunk, i) => i >= this.read && isDone(chunk));
      if (end >= 0) {
        const run = this.chunks.slice(this.read, end + 1);
        this.read = end + 1;
        return run;
      }
      if (this.socket.readyState === WebSocket.CLOSED) throw new Error(`the socket closed before a done; chunks: ${JSON.stringify(this.chunks.slice(this.read))}`);
      await new Promise<void>((wake) => this.waiters.push(wake));
    }
  }

  /** Closes the socket. */
  async close(): Promise<void> {
    if (this.socket.readyState === WebSocket.CLOSED) return;
    this.socket.close();
    await once(this.socket, 'close');
  }
}

/** A promise with its resolve function, for holding a tool handler until a test lets it go. */
export function latch(): { promise: Promise<void>; release: () => void } {
  let release!: () => void;
  const promise = new Promise<void>((resolvePromise) => (release = resolvePromise));
  return { promise, release };
}
