/**
 * Fetches a running 10xgraph server's graph (`GET /v1/graph` and `GET /v1/graph/tools`) and
 * turns it into the rule set's `Graph`. Shared by `10xgraph audit --graph-url` and the
 * language server. Bounded in time, size and depth; follows redirects only within the origin;
 * sends the token only to the origin it belongs to.
 */
import type { Graph, GraphEdge, GraphNode, GraphTool, NodeKind } from '../rules/types';
import type { DataEnvelope, GraphDescription, GraphTools } from '10xgraph-client/wire';
import { MAX_ANSWER_DEPTH, nestsDeeperThan } from './jsonDepth';
import { nodeGet } from './nodeGet';

/** A wire shape as it may arrive from any server: every field named, none trusted. */
type Untrusted<T> = { [K in keyof T]?: unknown };

/** The options of one fetch. */
export interface FetchGraphOptions {
  /** The fetch to use (default: a node:http GET that drops its socket when aborted). */
  fetch?: typeof fetch;
  /** Time allowed for the whole fetch, both requests (default 2000 ms). */
  timeoutMs?: number;
  /** Largest response body accepted, per request (default 5 MiB). */
  maxBytes?: number;
  /** Deepest nesting of objects and arrays accepted in an answer (default `MAX_ANSWER_DEPTH`). */
  maxDepth?: number;
  /** Sent as `Authorization: Bearer <token>` to `url`'s origin only. */
  token?: string;
  /** Cancels the fetch. */
  signal?: AbortSignal;
  /** The clock (for `fetchedAt`). */
  now?: () => number;
}

/** The outcome of a fetch: the graph, or one sentence saying why not. */
export type FetchGraphResult = { ok: true; graph: Graph; version?: string } | { ok: false; error: string; status?: number };

const KINDS: ReadonlySet<string> = new Set(['tool_node', 'model_node', 'function_node']);
const MAX_REDIRECTS = 5;

class FetchFailure extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** Fetches the graph of the server at `url` (its base, e.g. `http://localhost:8000`). */
export async function fetchLiveGraph(url: string, options: FetchGraphOptions = {}): Promise<FetchGraphResult> {
  let base: URL;
  try {
    base = new URL(url);
  } catch {
    return { ok: false, error: `'${url}' is not a valid URL.` };
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') return { ok: false, error: `'${url}' is not an http(s) URL.` };
  const timeoutMs = options.timeoutMs ?? 2000;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new FetchFailure(`no answer from ${base.origin} within ${timeoutMs} ms`)), timeoutMs);
  const onAbort = () => controller.abort(new FetchFailure('the fetch was cancelled'));
  options.signal?.addEventListener('abort', onAbort);
  try {
    const [graphBody, toolsBody] = await Promise.all([
      getJson(new URL('v1/graph', withSlash(base)), base.origin, controller.signal, options),
      // An older server has no /v1/graph/tools: its graph still names the nodes, with no tools known.
      getJson(new URL('v1/graph/tools', withSlash(base)), base.origin, controller.signal, options).catch((error: unknown) => {
        if (error instanceof FetchFailure && error.status === 404) return NO_TOOLS_ROUTE;
        throw error;
      }),
    ]);
    const graph = toGraph(graphBody, toolsBody, (options.now ?? Date.now)());
    return { ok: true, graph, ...(graph.version ? { version: graph.version } : {}) };
  } catch (error) {
    const reason = controller.signal.aborted && controller.signal.reason instanceof FetchFailure ? controller.signal.reason : error;
    if (reason instanceof FetchFailure) return { ok: false, error: reason.message, ...(reason.status ? { status: reason.status } : {}) };
    return { ok: false, error: describeNetworkError(reason, base) };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    // When one request failed the other may still be open: end it too.
    if (!controller.signal.aborted) controller.abort(new FetchFailure('the fetch is over'));
  }
}

/**
 * The reason phrase of an answer, as shown in messages: kept when it is a short phrase of plain
 * words ("Internal Server Error"), else left out. It is the server's text, shown in the editor's
 * notifications and logs, where controls, markup and links must not reach.
 */
function plainReason(reason: string): string {
  return /^[A-Za-z][A-Za-z0-9 '.,-]{0,63}$/.test(reason) ? reason : '';
}

/** A URL's path, as shown in messages: at most 100 characters (a redirect's target comes from the server). */
function pathOf(url: URL): string {
  return url.pathname.length > 100 ? `${url.pathname.slice(0, 100)}…` : url.pathname;
}

function withSlash(base: URL): URL {
  const copy = new URL(base.href);
  if (!copy.pathname.endsWith('/')) copy.pathname += '/';
  copy.search = '';
  copy.hash = '';
  return copy;
}

/** GET `url` and parse its JSON body, following same-origin redirects only. */
async function getJson(url: URL, origin: string, signal: AbortSignal, options: FetchGraphOptions): Promise<unknown> {
  const doFetch = options.fetch ?? (nodeGet as unknown as typeof fetch);
  const maxBytes = options.maxBytes ?? 5 * 1024 * 1024;
  let current = url;
  for (let hop = 0; ; hop++) {
    // A refresh every few seconds needs no pooled socket: none is left open to the server between fetches.
    const headers: Record<string, string> = { accept: 'application/json', connection: 'close' };
    // The token belongs to the configured server's origin and goes nowhere else.
    if (options.token && current.origin === origin) headers.authorization = `Bearer ${options.token}`;
    const response = await doFetch(current, { headers, redirect: 'manual', signal });
    if (response.status >= 300 && response.status < 400) {
      const location = response.headers.get('location');
      await response.body?.cancel().catch(() => undefined);
      if (!location) throw new FetchFailure(`${pathOf(current)} answered ${response.status} without a Location`, response.status);
      const next = new URL(location, current);
      if (next.origin !== origin) throw new FetchFailure(`${pathOf(current)} redirects to another origin (${next.origin}); not followed`, response.status);
      if (hop >= MAX_REDIRECTS) throw new FetchFailure(`${pathOf(current)} redirects more than ${MAX_REDIRECTS} times`, response.status);
      current = next;
      continue;
    }
    if (response.status === 401 || response.status === 403) {
      await response.body?.cancel().catch(() => undefined);
      throw new FetchFailure(`${pathOf(current)} answered ${response.status}: ${options.token ? 'the token was refused' : 'the server needs a token'}`, response.status);
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new FetchFailure(`${pathOf(current)} answered ${response.status} ${plainReason(response.statusText)}`.trim(), response.status);
    }
    const declared = Number(response.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > maxBytes) {
      await response.body?.cancel().catch(() => undefined);
      throw new FetchFailure(`${pathOf(current)} is larger than ${maxBytes} bytes`);
    }
    const text = await readBounded(response, maxBytes, pathOf(current));
    // Judged before parsing: whatever walks the parsed value later would overflow the stack.
    const maxDepth = options.maxDepth ?? MAX_ANSWER_DEPTH;
    if (nestsDeeperThan(text, maxDepth)) throw new FetchFailure(`${pathOf(current)} nests deeper than ${maxDepth} levels`);
    try {
      return JSON.parse(text);
    } catch {
      throw new FetchFailure(`${pathOf(current)} did not answer JSON`);
    }
  }
}

async function readBounded(response: Response, maxBytes: number, path: string): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new FetchFailure(`${path} is larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.byteLength;
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(all);
  } catch {
    throw new FetchFailure(`${path} is not valid UTF-8`);
  }
}

function describeNetworkError(error: unknown, base: URL): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  if (cause?.code === 'ECONNREFUSED') return `nothing is listening at ${base.origin}`;
  if (cause?.code === 'ENOTFOUND') return `the host ${base.hostname} is unknown`;
  if (cause?.code) return `${base.origin} could not be reached (${cause.code})`;
  if (cause?.message) return `${base.origin} could not be reached (${cause.message})`;
  return `${base.origin} could not be reached (${error instanceof Error ? error.message : String(error)})`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What the tools request gives when the server has no such route (404). */
const NO_TOOLS_ROUTE = Symbol('no /v1/graph/tools');

/** Turns the two answers into a `Graph`; throws a `FetchFailure` naming what is malformed. */
function toGraph(graphBody: unknown, toolsBody: unknown, now: number): Graph {
  const data = isRecord(graphBody) ? (graphBody as Untrusted<DataEnvelope<GraphDescription>>).data : undefined;
  if (!isRecord(data) || !Array.isArray(data.nodes)) throw new FetchFailure('/v1/graph did not answer {"data": {"nodes": [...]}}');
  const description = data as Untrusted<GraphDescription>;
  const toolsKnown = toolsBody !== NO_TOOLS_ROUTE;
  const toolsData = !toolsKnown ? { nodes: [] } : isRecord(toolsBody) ? (toolsBody as Untrusted<DataEnvelope<GraphTools>>).data : undefined;
  if (!isRecord(toolsData) || !Array.isArray(toolsData.nodes)) throw new FetchFailure('/v1/graph/tools did not answer {"data": {"nodes": [...]}}');
  const toolsByNode = new Map<string, GraphTool[]>();
  for (const item of toolsData.nodes as unknown[]) {
    const entry = (isRecord(item) ? item : undefined) as Untrusted<GraphTools['nodes'][number]> | undefined;
    if (entry === undefined || typeof entry.node_name !== 'string') throw new FetchFailure('/v1/graph/tools lists a node without a "node_name"');
    const tools: GraphTool[] = [];
    for (const value of Array.isArray(entry.tools) ? (entry.tools as unknown[]) : []) {
      if (!isRecord(value)) continue;
      const tool = value as Untrusted<GraphTools['nodes'][number]['tools'][number]>;
      if (typeof tool.name !== 'string') continue;
      tools.push({
        name: tool.name,
        ...(typeof tool.description === 'string' ? { description: tool.description } : {}),
        ...(tool.parameters !== undefined ? { parameters: tool.parameters } : {}),
        source: tool.source === 'remote' ? 'remote' : 'local',
      });
    }
    toolsByNode.set(entry.node_name, tools);
  }
  const nodes: GraphNode[] = [];
  for (const item of description.nodes as unknown[]) {
    if (!isRecord(item)) throw new FetchFailure('/v1/graph lists a node that is not an object');
    const entry = item as Untrusted<GraphDescription['nodes'][number]>;
    const name = typeof entry.name === 'string' ? entry.name : typeof entry.id === 'string' ? entry.id : undefined;
    if (name === undefined) throw new FetchFailure('/v1/graph lists a node without a "name"');
    const tools = toolsByNode.get(name);
    // The Python server omits `type`: a node is a ToolNode when /v1/graph/tools lists it (and of
    // no known kind when the server has no such route).
    let kind: NodeKind = typeof entry.type === 'string' && KINDS.has(entry.type) ? (entry.type as NodeKind) : 'unknown';
    if (kind === 'unknown' && toolsKnown) kind = tools ? 'tool_node' : 'function_node';
    nodes.push({ name, kind, ...(kind === 'tool_node' ? { tools: tools ?? [] } : {}) });
  }
  const edges: GraphEdge[] = [];
  for (const item of Array.isArray(description.edges) ? (description.edges as unknown[]) : []) {
    const edge = (isRecord(item) ? item : {}) as Untrusted<GraphDescription['edges'][number]>;
    if (typeof edge.source === 'string' && typeof edge.target === 'string') edges.push({ source: edge.source, target: edge.target });
  }
  const info = (isRecord(description.info) ? description.info : {}) as Untrusted<GraphDescription['info']>;
  return {
    origin: 'live',
    nodes,
    edges,
    toolsKnown,
    ...(typeof info.version === 'string' ? { version: info.version } : {}),
    fetchedAt: now,
  };
}
