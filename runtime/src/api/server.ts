/**
 * The HTTP and WebSocket server of `10xgraph api`: the graph's description, and runs over
 * invoke (one JSON answer), stream (NDJSON chunks) and WebSocket (the same chunks, tagged with the
 * request id). Threads live in a `ThreadStore`; the graph is whatever compiled graph it is given.
 */
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, WebSocket, type RawData } from 'ws';
import type { CompiledGraph } from '../graph/compiledGraph';
import { errorCodeOf, errorMessageOf } from '../graph/errors';
import type { GraphDescription, GraphTools, Message, RemoteToolCall as RemoteCall, StreamChunk } from '10xgraph-client/wire';
import { validateResume } from '../graph/resume';
import { ApiError, statusForRunError } from './errors';
import { errorPayload, readJsonBody, sendData, sendError } from './http';
import { ThreadStore, type ThreadRecord } from './store';
import { parseRunRequest, type RunRequest } from './validate';
import { VERSION } from '../version';

/** The graph a server runs: a compiled graph, possibly made by another copy of the library. */
export type ServableGraph = Pick<CompiledGraph, 'describe' | 'stream'>;

/** Where the server writes its log lines. */
export interface ApiLogger {
  info(line: string): void;
  warn(line: string): void;
  error(line: string): void;
}

/** How to build a server. */
export interface ApiServerOptions {
  graph: ServableGraph;
  /** A database path (`:memory:` by default) or an open store the caller keeps. */
  db?: string | ThreadStore;
  /** The bearer token every route but `/ping` needs. Default `TENXGRAPH_TOKEN`; empty means none. */
  token?: string;
  /** Largest request body or WebSocket frame in bytes (default 1 MiB). */
  maxBodyBytes?: number;
  /** The version reported as `info.version` (default the package's). */
  version?: string;
  log?: ApiLogger;
}

/** A built server. */
export interface ApiServer {
  readonly server: Server;
  readonly store: ThreadStore;
  /** Starts listening (port 0: any free port) and resolves to the base URL. */
  listen(port?: number, host?: string): Promise<string>;
  /** Stops listening, ends open connections, waits for runs in flight and closes the store it opened. */
  close(): Promise<void>;
}

interface PreparedRun {
  threadId: string;
  runId: string;
  request: RunRequest;
  record?: ThreadRecord;
}

interface RunOutcome {
  status: 'completed' | 'waiting' | 'error';
  messages: Message[];
  pending: RemoteCall[];
  error?: { code: string; message: string };
}

/** The default body limit: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

const ROUTES: Record<string, string> = {
  '/ping': 'GET',
  '/v1/graph': 'GET',
  '/v1/graph/tools': 'GET',
  '/v1/graph/invoke': 'POST',
  '/v1/graph/stream': 'POST',
  '/v1/graph/ws': 'GET',
};

const silent: ApiLogger = { info() {}, warn() {}, error() {} };

/** Builds the API server around a compiled graph. Call `listen()` to serve. */
export function createApiServer(options: ApiServerOptions): ApiServer {
  const { graph } = options;
  const log = options.log ?? silent;
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const version = options.version ?? VERSION;
  const token = options.token ?? process.env.TENXGRAPH_TOKEN ?? '';
  const ownsStore = !(options.db instanceof ThreadStore);
  const store = options.db instanceof ThreadStore ? options.db : new ThreadStore(options.db ?? ':memory:');
  const inFlight = new Set<Promise<unknown>>();
  let closing = false;

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // A client that hung up mid-request is not a failure of the server.
      if (req.destroyed && (req.errored || (error as NodeJS.ErrnoException)?.code === 'ECONNRESET' || (error as Error)?.message === 'aborted')) {
        log.info(`Request ${req.method} ${req.url}: the client went away before it was answered.`);
        return;
      }
      log.error(`Request ${req.method} ${req.url} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      if (!res.headersSent) sendError(res, randomUUID(), new ApiError(500, 'internal_error', 'The server failed on this request; see its log.'));
      else res.end();
    });
  });
  const wss = new WebSocketServer({ noServer: true, maxPayload: limit });
  server.on('upgrade', (req, socket, head) => upgrade(req, socket, head));

  // CONNECT is no route of ours: answer it rather than leave the socket hanging.
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => socket.destroy());
    refuseUpgrade(socket, new ApiError(405, 'method_not_allowed', 'CONNECT is not supported: this is a 10xgraph API server, not a proxy.'));
  });

  // Malformed HTTP (a bad method, header or length) gets a JSON error too, not Node's bare 400.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    refuseUpgrade(socket, new ApiError(error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400, 'bad_request', `The request is not valid HTTP (${error.code ?? error.message}).`));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = randomUUID();
    const url = parseTarget(req.url);
    if (!url) {
      req.resume();
      return sendError(res, requestId, badTarget(req.url));
    }
    const method = ROUTES[url.pathname];
    if (method === undefined) {
      req.resume();
      return sendError(res, requestId, new ApiError(404, 'not_found', `No route ${url.pathname}; the routes are ${Object.keys(ROUTES).join(', ')}.`));
    }
    if (url.pathname !== '/ping' && !authorized(req, undefined)) {
      req.resume();
      return sendError(res, requestId, unauthorized(), { 'www-authenticate': 'Bearer realm="10xgraph"' });
    }
    if (req.method !== method) {
      req.resume();
      return sendError(res, requestId, new ApiError(405, 'method_not_allowed', `${url.pathname} takes ${method}, not ${req.method}.`), { allow: method });
    }
    try {
      switch (url.pathname) {
        case '/ping':
          return sendData(res, requestId, 'pong', 'The server is up.');
        case '/v1/graph':
          return sendGraph(res, requestId);
        case '/v1/graph/tools':
          return sendTools(res, requestId);
        case '/v1/graph/ws':
          throw new ApiError(426, 'upgrade_required', '/v1/graph/ws is a WebSocket endpoint; open it with a WebSocket client.');
        case '/v1/graph/invoke':
          return await invoke(req, res, requestId);
        case '/v1/graph/stream':
          return await stream(req, res, requestId);
      }
    } catch (error) {
      if (error instanceof ApiError) return sendError(res, requestId, error);
      throw error;
    }
  }

  function sendGraph(res: ServerResponse, requestId: string): void {
    const description = graph.describe();
    const nodes = description.nodes.map((node) => ({ id: node.name, name: node.name, type: node.kind }));
    const edges = description.edges.map((edge) => ({ id: `${edge.source}->${edge.target}`, source: edge.source, target: edge.target, conditional: edge.conditional }));
    sendData(
      res,
      requestId,
      { info: { name: description.name, version, node_count: nodes.length, edge_count: edges.length, entry_point: description.entryPoint }, nodes, edges } satisfies GraphDescription,
      `Graph '${description.name}' with ${nodes.length} nodes and ${edges.length} edges.`,
    );
  }

  function sendTools(res: ServerResponse, requestId: string): void {
    const nodes = graph
      .describe()
      .nodes.filter((node) => node.kind === 'tool_node')
      .map((node) => {
        const tools = (node.tools ?? []).map(({ name, description, parameters, source }) => ({ name, description, parameters, source }));
        return { node_name: node.name, tool_count: tools.length, tools };
      });
    const toolCount = nodes.reduce((sum, node) => sum + node.tool_count, 0);
    sendData(res, requestId, { node_count: nodes.length, tool_count: toolCount, nodes } satisfies GraphTools, `${toolCount} tools on ${nodes.length} ToolNodes.`);
  }

  async function invoke(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
    const prepared = prepare(parseRunRequest(await readJsonBody(req, limit)));
    const outcome = await track(execute(prepared, () => {}));
    if (outcome.error) return sendError(res, requestId, new ApiError(statusForRunError(outcome.error.code), outcome.error.code, outcome.error.message));
    const message = outcome.status === 'waiting' ? `The run waits for ${outcome.pending.length} remote tool call${outcome.pending.length === 1 ? '' : 's'}.` : 'The run completed.';
    sendData(res, requestId, { thread_id: prepared.threadId, status: outcome.status, messages: outcome.messages, pending_remote_calls: outcome.pending }, message);
  }

  async function stream(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
    const prepared = prepare(parseRunRequest(await readJsonBody(req, limit)));
    res.writeHead(200, { 'content-type': 'application/x-ndjson; charset=utf-8', 'cache-control': 'no-store', 'x-request-id': requestId });
    // A client that goes away does not stop the run: the thread is still saved consistently.
    await track(
      execute(prepared, (chunk) => {
        if (!res.destroyed && !res.writableEnded) res.write(JSON.stringify(chunk) + '\n');
      }),
    );
    res.end();
  }

  /** Checks a request against its thread and locks the thread; all synchronous, so no run can slip in between. */
  function prepare(request: RunRequest): PreparedRun {
    if (closing) throw new ApiError(503, 'shutting_down', 'The server is shutting down; send the request again once it is back.');
    const threadId = request.threadId ?? randomUUID();
    const record = store.load(threadId);
    if (record?.running) throw busy(threadId);
    try {
      validateResume(record?.checkpoint, request.messages);
    } catch (error) {
      const code = errorCodeOf(error) ?? 'invalid_request';
      throw new ApiError(code === 'invalid_request' ? 400 : statusForRunError(code), code, `Thread '${threadId}': ${errorMessageOf(error)}`);
    }
    if (!store.tryLock(threadId)) throw busy(threadId);
    return { threadId, runId: randomUUID(), request, ...(record ? { record } : {}) };
  }

  async function execute(prepared: PreparedRun, emit: (chunk: StreamChunk) => void): Promise<RunOutcome> {
    const { threadId, request, record } = prepared;
    const outcome: RunOutcome = { status: 'error', messages: [], pending: [] };
    emit({ event: 'metadata', data: { thread_id: threadId, run_id: prepared.runId } });
    try {
      for await (const event of graph.stream({ messages: request.messages }, { checkpoint: record?.checkpoint, recursionLimit: request.recursionLimit, threadId })) {
        if (event.type === 'message') {
          outcome.messages.push(event.message);
          emit({ event: 'message', data: event.message });
        } else if (event.type === 'remote_tool_calls') {
          outcome.pending = event.calls;
          emit({ event: 'remote_tool_calls', data: { thread_id: threadId, calls: event.calls } });
        } else if (event.type === 'error') {
          outcome.error = { code: event.code, message: event.message };
          emit({ event: 'error', data: outcome.error });
        } else if (event.type === 'end') {
          store.commit(threadId, event.checkpoint, event.status === 'waiting' ? 'waiting' : 'completed', record?.messageCount ?? 0, outcome.error);
          outcome.status = outcome.error ? 'error' : event.status;
          break;
        }
      }
      if (outcome.status === 'error' && !outcome.error) throw new Error('the graph stopped without an end event');
    } catch (error) {
      log.error(`Run ${prepared.runId} on thread '${threadId}' failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      outcome.status = 'error';
      outcome.pending = [];
      outcome.error = { code: 'internal_error', message: `The run failed inside the server (${errorMessageOf(error)}); the thread is left as it was before the run.` };
      emit({ event: 'error', data: outcome.error });
    } finally {
      store.unlock(threadId);
    }
    emit({ event: 'end', data: { thread_id: threadId, status: outcome.status } });
    return outcome;
  }

  function track<T>(promise: Promise<T>): Promise<T> {
    inFlight.add(promise);
    const forget = () => inFlight.delete(promise);
    promise.then(forget, forget);
    return promise;
  }

  function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => socket.destroy());
    const url = parseTarget(req.url);
    if (!url) return refuseUpgrade(socket, badTarget(req.url));
    if (url.pathname !== '/v1/graph/ws') return refuseUpgrade(socket, new ApiError(404, 'not_found', `No WebSocket route ${url.pathname}; use /v1/graph/ws.`));
    if (!authorized(req, url.searchParams.get('token'))) return refuseUpgrade(socket, unauthorized());
    if (!token && !originAllowed(req)) {
      return refuseUpgrade(socket, new ApiError(403, 'origin_not_allowed', `WebSocket connections from ${req.headers.origin} are refused without a token; set TENXGRAPH_TOKEN on the server to allow other origins.`));
    }
    wss.handleUpgrade(req, socket, head, (ws) => serveSocket(ws));
  }

  function serveSocket(ws: WebSocket): void {
    ws.on('error', () => {});
    ws.on('message', (data: RawData, isBinary: boolean) => {
      let requestId: string | null = null;
      let threadId: string | null = null;
      const send = (chunk: StreamChunk) => {
        if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ ...chunk, request_id: requestId }));
      };
      try {
        if (isBinary) throw new ApiError(400, 'invalid_frame', 'Send requests as text frames holding JSON.');
        let frame: unknown;
        try {
          frame = JSON.parse(rawText(data));
        } catch (error) {
          throw new ApiError(400, 'invalid_json', `The frame is not valid JSON (${errorMessageOf(error)}); send {"id", "messages", "config"}.`);
        }
        const id = (frame as { id?: unknown } | null)?.id;
        if (typeof id === 'string' || typeof id === 'number') requestId = String(id);
        const request = parseRunRequest(frame);
        threadId = request.threadId ?? null;
        const prepared = prepare(request);
        void track(execute(prepared, send));
      } catch (error) {
        const failure = error instanceof ApiError ? error : new ApiError(500, 'internal_error', errorMessageOf(error));
        send({ event: 'error', data: { code: failure.code, message: failure.message } });
        send({ event: 'end', data: { thread_id: threadId, status: 'error' } });
      }
    });
  }

  function authorized(req: IncomingMessage, queryToken: string | null | undefined): boolean {
    if (!token) return true;
    const header = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim();
    const given = header ?? queryToken ?? undefined;
    if (given === undefined) return false;
    return timingSafeEqual(digest(given), digest(token));
  }

  return {
    server,
    store,
    listen(port = 8000, host = '127.0.0.1') {
      return new Promise<string>((resolve, reject) => {
        const onError = (error: Error) => reject(error);
        server.once('error', onError);
        server.listen(port, host, () => {
          server.off('error', onError);
          const address = server.address() as AddressInfo;
          resolve(`http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`);
        });
      });
    },
    async close() {
      closing = true;
      for (const client of wss.clients) client.terminate();
      const closed = new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
      server.closeAllConnections();
      await Promise.race([Promise.allSettled([...inFlight]), new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
      await closed;
      wss.close();
      if (ownsStore) store.close();
    },
  };
}

function busy(threadId: string): ApiError {
  return new ApiError(409, 'thread_busy', `Thread '${threadId}' is running another request; wait for its end, then send this one again.`);
}

function unauthorized(): ApiError {
  return new ApiError(401, 'unauthorized', 'This server needs a token: send the header Authorization: Bearer <TENXGRAPH_TOKEN>.');
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}

/**
 * WebSocket requests are not guarded by CORS, so without a token only pages served from this
 * machine (or from the server's own host name) may open one.
 */
function originAllowed(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (!origin) return true;
  let hostname: string;
  try {
    hostname = new URL(origin).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return false;
  }
  if (hostname === 'localhost' || hostname.endsWith('.localhost') || hostname === '::1' || /^127\./.test(hostname)) return true;
  const host = (req.headers.host ?? '').replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  return hostname === host;
}

/** The request target as a URL, or undefined when it is not one (`http://[`, a bad port). */
function parseTarget(target: string | undefined): URL | undefined {
  try {
    return new URL(target ?? '/', 'http://localhost');
  } catch {
    return undefined;
  }
}

function badTarget(target: string | undefined): ApiError {
  return new ApiError(400, 'bad_request', `The request target '${String(target).slice(0, 100)}' is not a valid path; use a route such as /v1/graph.`);
}

/** Answers on a raw socket (an upgrade or a malformed request) with a JSON error, and closes it. */
function refuseUpgrade(socket: Duplex, error: ApiError): void {
  const body = JSON.stringify(errorPayload(randomUUID(), error));
  socket.end(
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n${error.status === 401 ? 'www-authenticate: Bearer realm="10xgraph"\r\n' : ''}\r\n${body}`,
  );
}
