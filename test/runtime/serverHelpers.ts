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

/** A `tool` message with one completed result per call, the output made by `output(call)`. */
export function resultsFor(calls: Array<{ id: string; name: string; args: unknown }>, output: (call: { id: string; name: string; args: unknown }) => unknown) {
  return { role: 'tool', content: calls.map((call) => ({ type: 'tool_result', call_id: call.id, output: output(call), status: 'completed' })) };
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

/** POSTs to `/v1/graph/stream` and reads every NDJSON chunk as the server writes them. */
export async function postStream(base: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; contentType: string | null; chunks: any[] }> {
  const response = await fetch(`${base}/v1/graph/stream`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const contentType = response.headers.get('content-type');
  if (!contentType?.startsWith('application/x-ndjson')) return { status: response.status, contentType, chunks: [JSON.parse(await response.text())] };
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

/** A WebSocket to `/v1/graph/ws` that collects chunks per request id. */
export class WsSession {
  private readonly chunks: any[] = [];
  private readonly waiters: Array<() => void> = [];

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      this.chunks.push(JSON.parse(data.toString()));
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  /** Opens a session; rejects with the HTTP status when the upgrade is refused. */
  static async open(base: string, options: { token?: string; query?: string; headers?: Record<string, string> } = {}): Promise<WsSession> {
    const url = `${base.replace(/^http/, 'ws')}/v1/graph/ws${options.query ?? ''}`;
    const socket = new WebSocket(url, { headers: { ...(options.token ? { authorization: `Bearer ${options.token}` } : {}), ...options.headers } });
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

  /** Sends a request frame and resolves to its chunks, `end` included. */
  async request(id: string, body: Record<string, unknown>): Promise<any[]> {
    this.socket.send(JSON.stringify({ id, ...body }));
    return this.until(id);
  }

  /** Resolves to the chunks of request `id` once its `end` chunk has come. */
  async until(id: string | null): Promise<any[]> {
    for (;;) {
      const mine = this.chunks.filter((chunk) => chunk.request_id === id);
      if (mine.some((chunk) => chunk.event === 'end')) return mine;
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
