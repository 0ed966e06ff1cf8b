/**
 * The HTTP and WebSocket server of `10xgraph api`: the graph's description, and runs over
 * invoke (one JSON answer), stream (NDJSON chunks) and WebSocket (the same chunks, tagged with the
 * request id). Threads live in a `ThreadStore`; the graph is whatever compiled graph it is given.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Duplex } from 'node:stream';
import type { WebSocket, RawData } from 'ws';
import { loadCrypto, loadHttp, loadWs } from './lazy';
import type { CompiledGraph } from '../graph/compiledGraph';
import { errorCodeOf, errorMessageOf } from '../graph/errors';
import type { GraphDescription, GraphTools, Message, RemoteToolCall as RemoteCall, StreamChunk } from '10xgraph-client/wire';
import { validateResume } from '../graph/resume';
import { ApiError, statusForRunError } from './errors';
import { BodyTimeoutError, closeIfBodyUnread, readJsonBody, sendData, sendError } from './http';
import type { ApiLogger } from './log';
import { createOriginPolicy, readWebSocketProtocols, shownValue, splitList, WS_PROTOCOL, type OriginPolicy, type OriginVerdict } from './origin';
import { answerAndClose, createRunSlots, DEFAULT_SOCKET_LIMITS, guardWebSocket, type SocketLimits } from './sockets';
import { LockLostError, parseStoreTarget, SqliteThreadStore, StoreUnavailableError, type ThreadRecord, type ThreadStore } from './store/index';
import { busy, handleThreadRoute, THREAD_ROUTE_PREFIX } from './threadRoutes';
import { parseRunRequest, type RunRequest } from './validate';
import { VERSION } from '../version';

/** The graph a server runs: a compiled graph, possibly made by another copy of the library. */
export type ServableGraph = Pick<CompiledGraph, 'describe' | 'stream'>;

export type { ApiLogger } from './log';

/** How to build a server. */
export interface ApiServerOptions {
  graph: ServableGraph;
  /** A SQLite database path (`:memory:` by default) or an open store (SQLite or PostgreSQL) the caller keeps. */
  db?: string | ThreadStore;
  /** How long `close()` lets runs in flight finish before it ends them (default 10 s). */
  drainMs?: number;
  /** The bearer token every route but `/ping` needs. Default `TENXGRAPH_TOKEN`; empty means none. */
  token?: string;
  /** Largest request body or WebSocket frame in bytes (default 1 MiB). */
  maxBodyBytes?: number;
  /** The version reported as `info.version` (default the package's). */
  version?: string;
  log?: ApiLogger;
  /** Browser origins allowed besides loopback ones (loopback only without a token). Default `TENXGRAPH_CORS_ORIGINS`. */
  corsOrigins?: readonly string[];
  /** Host names the server answers to besides loopback and its listen address. Default `TENXGRAPH_ALLOWED_HOSTS`. */
  allowedHosts?: readonly string[];
  /** Time-outs and bounds on sockets (each defaults as `DEFAULT_SOCKET_LIMITS` says). */
  limits?: Partial<SocketLimits>;
}

/** A built server. */
export interface ApiServer {
  readonly server: Server;
  readonly store: ThreadStore;
  /** Starts listening (port 0: any free port) and resolves to the base URL. */
  listen(port?: number, host?: string): Promise<string>;
  /**
   * Stops accepting, refuses new runs with 503, lets runs in flight finish (within `drainMs`, then
   * aborts them), ends open connections and closes the store it opened.
   */
  close(): Promise<void>;
}

interface PreparedRun {
  threadId: string;
  runId: string;
  request: RunRequest;
  record: ThreadRecord;
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

/** How many sent remote calls are remembered for the duration of their result. */
const MAX_REMEMBERED_CALLS = 10_000;

/** Builds the API server around a compiled graph. Call `listen()` to serve. */
export function createApiServer(options: ApiServerOptions): ApiServer {
  const { graph } = options;
  const log = options.log ?? silent;
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const version = options.version ?? VERSION;
  const token = options.token ?? process.env.TENXGRAPH_TOKEN ?? '';
  const ownsStore = typeof options.db !== 'object';
  const store: ThreadStore = typeof options.db === 'object' ? options.db : openSqlite(options.db ?? ':memory:');
  const drainMs = options.drainMs ?? 10_000;
  const inFlight = new Set<Promise<unknown>>();
  // Aborts the runs still going when the drain time of `close()` is up.
  const stopRuns = new AbortController();
  const limits: SocketLimits = { ...DEFAULT_SOCKET_LIMITS, ...options.limits };
  const corsOrigins = options.corsOrigins ?? splitList([], process.env.TENXGRAPH_CORS_ORIGINS);
  const allowedHosts = options.allowedHosts ?? splitList([], process.env.TENXGRAPH_ALLOWED_HOSTS);
  const policyFor = (listenHost: string | undefined) => createOriginPolicy({ listenHost, allowedHosts, corsOrigins, tokenRequired: token !== '' });
  // Built now so a malformed list fails here; rebuilt by listen() with the address it serves.
  let policy: OriginPolicy = policyFor(undefined);
  const httpRunSlots = createRunSlots(limits.maxRunsPerSocket);
  /** Answers in progress per connection: a parse error then must not write its own answer into theirs. */
  const answering = new WeakMap<object, number>();
  /** When each remote call was sent to the client, for the duration logged with its result. */
  const emittedAt = new Map<string, number>();
  let closing = false;

  const server = loadHttp().createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: Math.max(limits.requestTimeoutMs, limits.headersTimeoutMs),
      // Node checks the two time-outs above on this interval (30 s by default, too coarse for short bounds).
      connectionsCheckingInterval: Math.min(1000, Math.max(10, Math.floor(limits.headersTimeoutMs / 4))),
    },
    (req, res) => {
      const requestId = loadCrypto().randomUUID();
      const started = performance.now();
      let route = '-';
      answering.set(req.socket, (answering.get(req.socket) ?? 0) + 1);
      res.once('close', () => {
        answering.set(req.socket, (answering.get(req.socket) ?? 1) - 1);
        logRequest(req, res, requestId, route, started);
      });
      handle(req, res, requestId, (matched) => (route = matched)).catch((error: unknown) => {
        // A client that hung up mid-request is not a failure of the server.
        if (req.destroyed && (req.errored || (error as NodeJS.ErrnoException)?.code === 'ECONNRESET' || (error as Error)?.message === 'aborted')) return;
        log.error(`Request ${req.method} ${route} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`, {
          event: 'request_failed',
          request_id: requestId,
        });
        if (!res.headersSent) sendError(res, requestId, new ApiError(500, 'internal_error', 'The server failed on this request; see its log.'));
        else res.end();
      });
    },
  );
  const wss = new (loadWs().WebSocketServer)({
    noServer: true,
    maxPayload: limit,
    // Answer with the 10xgraph subprotocol when offered (never with the bearer entry, which holds the token).
    handleProtocols: (protocols) => (protocols.has(WS_PROTOCOL) ? WS_PROTOCOL : false),
  });
  server.on('upgrade', (req, socket, head) => upgrade(req, socket, head));

  // CONNECT is no route of ours: answer it rather than leave the socket hanging.
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    answerAndClose(socket, new ApiError(405, 'method_not_allowed', 'CONNECT is not supported: this is a 10xgraph API server, not a proxy.'));
  });

  // Malformed HTTP (a bad method, header or length) gets a JSON error too, not Node's bare 400.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A malformed request pipelined behind one still being answered (a stream) ends the connection:
    // bytes of an error answer written now would land inside the other answer.
    if (!socket.writable || (answering.get(socket) ?? 0) > 0) {
      socket.destroy();
      return;
    }
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      return answerAndClose(
        socket,
        new ApiError(
          408,
          'request_timeout',
          `The request did not arrive within the server's time-out (${limits.headersTimeoutMs} ms for the headers, ${Math.max(limits.requestTimeoutMs, limits.headersTimeoutMs)} ms for the whole request); send it again.`,
        ),
      );
    }
    answerAndClose(socket, new ApiError(error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400, 'bad_request', `The request is not valid HTTP (${error.code ?? 'parse error'}).`));
  });

  /** One record per request: method, route (never the query), status, duration, request id. */
  function logRequest(req: IncomingMessage, res: ServerResponse, requestId: string, route: string, started: number): void {
    const duration = Math.round((performance.now() - started) * 10) / 10;
    const completed = res.writableFinished;
    const status = res.headersSent ? res.statusCode : 0;
    const method = shownValue(req.method ?? '-', 20);
    log.info(`${method} ${route} ${completed ? status : `${status || '-'} (the client went away)`} in ${duration} ms [${requestId}]`, {
      event: 'request',
      method,
      route,
      status,
      duration_ms: duration,
      request_id: requestId,
      ...(completed ? {} : { aborted: true }),
    });
  }

  /**
   * The checks every request passes before its route: a target that parses, a Host the server
   * answers to, an allowed Origin (its CORS headers set), and CORS preflights answered. Returns
   * false when it has answered.
   */
  function admit(req: IncomingMessage, res: ServerResponse, requestId: string, url: URL): boolean {
    const refused = policy.checkHost(hostHeaders(req), absoluteAuthority(req.url));
    if (refused) {
      sendError(res, requestId, refused, { connection: 'close', vary: 'Origin' });
      return false;
    }
    const verdict = policy.checkOrigin(req.headers.origin);
    for (const [name, value] of Object.entries(policy.corsHeaders(verdict))) res.setHeader(name, value);
    if (verdict.kind === 'refused') {
      logRefusedOrigin(verdict, req.method === 'OPTIONS' ? 'preflight' : 'request');
      sendError(res, requestId, verdict.error);
      return false;
    }
    if (req.method === 'OPTIONS' && verdict.kind === 'allowed' && req.headers['access-control-request-method'] !== undefined) {
      const method = url.pathname.startsWith(THREAD_ROUTE_PREFIX) ? (url.pathname.endsWith('/cancel') ? 'POST' : 'GET, DELETE') : ROUTES[url.pathname];
      if (method === undefined) {
        sendError(res, requestId, new ApiError(404, 'not_found', `No route ${url.pathname}; the routes are ${Object.keys(ROUTES).join(', ')}.`));
        return false;
      }
      closeIfBodyUnread(res);
      res.writeHead(204, { ...policy.preflightHeaders(verdict.origin, method, req.headers['access-control-request-private-network'] === 'true'), 'x-request-id': requestId });
      res.end();
      return false;
    }
    return true;
  }

  function logRefusedOrigin(verdict: Extract<OriginVerdict, { kind: 'refused' }>, what: string): void {
    log.warn(`Refused a ${what} from the origin '${verdict.shown}': ${verdict.error.message.replace(/^.*?are refused: /, '')}`, { event: 'origin_refused', origin: verdict.shown });
  }

  async function handle(req: IncomingMessage, res: ServerResponse, requestId: string, matched: (route: string) => void): Promise<void> {
    const url = parseTarget(req.url);
    if (!url) {
      return sendError(res, requestId, badTarget(req.url));
    }
    if (ROUTES[url.pathname] !== undefined) matched(url.pathname);
    if (!admit(req, res, requestId, url)) return;
    if (url.pathname.startsWith(THREAD_ROUTE_PREFIX)) {
      matched(url.pathname.endsWith('/cancel') ? `${THREAD_ROUTE_PREFIX}{id}/cancel` : `${THREAD_ROUTE_PREFIX}{id}`);
      if (!authorized(req, undefined)) {
        return sendError(res, requestId, unauthorized(), { 'www-authenticate': 'Bearer realm="10xgraph"' });
      }
      try {
        return await handleThreadRoute(req, res, url, requestId, store, refuseWhileClosing);
      } catch (error) {
        if (error instanceof ApiError) return sendError(res, requestId, error);
        throw error;
      }
    }
    const method = ROUTES[url.pathname];
    if (method === undefined) {
      return sendError(
        res,
        requestId,
        new ApiError(404, 'not_found', `No route ${url.pathname}; the routes are ${Object.keys(ROUTES).join(', ')} and ${THREAD_ROUTE_PREFIX}{id}.`),
      );
    }
    if (url.pathname !== '/ping' && !authorized(req, undefined)) {
      return sendError(res, requestId, unauthorized(), { 'www-authenticate': 'Bearer realm="10xgraph"' });
    }
    if (req.method !== method) {
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
      // After a stalled body the connection cannot carry another request: it is closed with the answer.
      if (error instanceof ApiError) return sendError(res, requestId, error, error instanceof BodyTimeoutError ? { connection: 'close' } : {});
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
      {
        info: { name: description.name, version, node_count: nodes.length, edge_count: edges.length, entry_point: description.entryPoint },
        nodes,
        edges,
      } satisfies GraphDescription,
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

  /** A run slot of the request's connection (pipelined requests share one), freed when the answer ends. */
  function takeRunSlot(req: IncomingMessage, res: ServerResponse): void {
    const release = httpRunSlots.take(req.socket);
    if (!release) {
      throw new ApiError(429, 'too_many_runs', `This connection has ${limits.maxRunsPerSocket} runs going (pipelined requests); wait for their answers before sending more.`);
    }
    res.once('close', release);
  }

  async function invoke(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
    takeRunSlot(req, res);
    // The id of a new thread is first shown in this answer, after the commit: nobody can name it before.
    const prepared = await prepare(parseRunRequest(await readJsonBody(req, limit, limits.bodyTimeoutMs)), true);
    const outcome = await track(execute(prepared, () => {}));
    if (outcome.error) return sendError(res, requestId, new ApiError(statusForRunError(outcome.error.code), outcome.error.code, outcome.error.message));
    const message = outcome.status === 'waiting' ? `The run waits for ${outcome.pending.length} remote tool call${outcome.pending.length === 1 ? '' : 's'}.` : 'The run completed.';
    sendData(res, requestId, { thread_id: prepared.threadId, status: outcome.status, messages: outcome.messages, pending_remote_calls: outcome.pending }, message);
  }

  async function stream(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
    takeRunSlot(req, res);
    const prepared = await prepare(parseRunRequest(await readJsonBody(req, limit, limits.bodyTimeoutMs)));
    res.writeHead(200, { 'content-type': 'application/x-ndjson; charset=utf-8', 'cache-control': 'no-store', 'x-request-id': requestId });
    // A client that goes away does not stop the run: the thread is still saved consistently.
    await track(
      execute(prepared, (chunk) => {
        if (res.destroyed || res.writableEnded) return;
        // A client that stops reading is dropped rather than buffered for without bound.
        if (res.writableLength > limits.maxBufferedBytes) {
          log.warn(`Dropped the stream of request ${requestId}: ${res.writableLength} bytes wait for a client that does not read.`, {
            event: 'stream_dropped',
            request_id: requestId,
          });
          res.destroy();
          return;
        }
        res.write(JSON.stringify(chunk) + '\n');
      }),
    );
    res.end();
  }

  function refuseWhileClosing(): void {
    if (closing) throw new ApiError(503, 'shutting_down', 'The server is shutting down; send the request again once it is back.');
  }

  /** Locks the thread (the lock and the read are one step, so no run can slip in between) and checks the request against it. */
  async function prepare(request: RunRequest, idShownAfterCommit = false): Promise<PreparedRun> {
    refuseWhileClosing();
    const threadId = request.threadId ?? loadCrypto().randomUUID();
    const runId = loadCrypto().randomUUID();
    let record: ThreadRecord | undefined;
    try {
      record = await store.acquire(threadId, runId, { unseen: request.threadId === undefined && idShownAfterCommit });
    } catch (error) {
      throw storeFailure(error);
    }
    if (!record) throw busy(threadId);
    try {
      validateResume(record.checkpoint, request.messages);
    } catch (error) {
      await releaseQuietly(threadId, runId);
      const code = errorCodeOf(error) ?? 'invalid_request';
      throw new ApiError(code === 'invalid_request' ? 400 : statusForRunError(code), code, `Thread '${threadId}': ${errorMessageOf(error)}`);
    }
    logResults(threadId, record.checkpoint.pending ?? [], request.messages);
    return { threadId, runId, request, record };
  }

  /** Releases a lock without throwing: a lock that cannot be released now runs out with its lease. */
  async function releaseQuietly(threadId: string, runId: string): Promise<void> {
    try {
      await store.release(threadId, runId);
    } catch (error) {
      log.warn(`Thread '${threadId}': its lock could not be released (${errorMessageOf(error)}); it is free again within ${Math.round(store.leaseMs / 1000)} s.`);
    }
  }

  async function execute(prepared: PreparedRun, emit: (chunk: StreamChunk) => void): Promise<RunOutcome> {
    const { threadId, runId, request, record } = prepared;
    const outcome: RunOutcome = { status: 'error', messages: [], pending: [] };
    let committed = false;
    // The lease is renewed while the run goes on; a renewal that fails is retried at the next tick.
    const renewal = Number.isFinite(store.leaseMs)
      ? setInterval(
          () => {
            store.renew(threadId, runId).then(
              (held) => {
                if (!held) log.warn(`Run ${runId} on thread '${threadId}' no longer holds the thread's lock; its outcome will not be stored.`);
              },
              () => {},
            );
          },
          Math.max(50, Math.floor(store.leaseMs / 3)),
        )
      : undefined;
    renewal?.unref();
    emit({ event: 'metadata', data: { thread_id: threadId, run_id: runId } });
    try {
      for await (const event of graph.stream(
        { messages: request.messages },
        { checkpoint: record.checkpoint, recursionLimit: request.recursionLimit, threadId, signal: stopRuns.signal },
      )) {
        if (event.type === 'message') {
          outcome.messages.push(event.message);
          emit({ event: 'message', data: event.message });
        } else if (event.type === 'remote_tool_calls') {
          outcome.pending = event.calls;
          logCalls(threadId, event.calls);
          emit({ event: 'remote_tool_calls', data: { thread_id: threadId, calls: event.calls } });
        } else if (event.type === 'error') {
          outcome.error = { code: event.code, message: event.message };
          emit({ event: 'error', data: outcome.error });
        } else if (event.type === 'end') {
          clearInterval(renewal);
          committed = true;
          await store.commit(threadId, runId, {
            checkpoint: event.checkpoint,
            status: event.status === 'waiting' ? 'waiting' : 'completed',
            from: record.messageCount,
            ...(outcome.error ? { error: outcome.error } : {}),
          });
          outcome.status = outcome.error ? 'error' : event.status;
          break;
        }
      }
      if (outcome.status === 'error' && !outcome.error) throw new Error('the graph stopped without an end event');
    } catch (error) {
      outcome.status = 'error';
      outcome.pending = [];
      if (error instanceof StoreUnavailableError || error instanceof LockLostError) {
        log.error(`Run ${runId} on thread '${threadId}' was not stored: ${error.message}`);
        outcome.error = { code: error instanceof LockLostError ? 'thread_busy' : 'store_unavailable', message: `${error.message} The thread is left as it was before the run.` };
      } else {
        log.error(`Run ${runId} on thread '${threadId}' failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        outcome.error = { code: 'internal_error', message: `The run failed inside the server (${errorMessageOf(error)}); the thread is left as it was before the run.` };
      }
      emit({ event: 'error', data: outcome.error });
    } finally {
      clearInterval(renewal);
      // A commit releases the lock whether it succeeds or not; every other path releases it here.
      if (!committed) await releaseQuietly(threadId, runId);
    }
    emit({ event: 'end', data: { thread_id: threadId, status: outcome.status } });
    return outcome;
  }

  /** One record per remote call sent to the client. */
  function logCalls(threadId: string, calls: readonly RemoteCall[]): void {
    const now = performance.now();
    for (const call of calls) {
      remember(call.id, now);
      log.info(`Remote call ${call.id} to ${shownValue(call.name)} on ${shownValue(call.node)} sent to the client (thread ${shownValue(threadId)})`, {
        event: 'remote_call',
        thread_id: threadId,
        call_id: call.id,
        tool: call.name,
        node: call.node,
      });
    }
  }

  /** One record per result a client answered a pending call with, and how long the client took. */
  function logResults(threadId: string, pending: readonly RemoteCall[], messages: readonly Message[]): void {
    if (pending.length === 0) return;
    const byId = new Map(pending.map((call) => [call.id, call]));
    const now = performance.now();
    for (const message of messages) {
      for (const block of message.content) {
        const call = block.type === 'tool_result' ? byId.get(block.call_id) : undefined;
        if (!call || block.type !== 'tool_result') continue;
        const sent = emittedAt.get(call.id);
        emittedAt.delete(call.id);
        // Unknown when the call was sent by an earlier process or another instance.
        const duration = sent === undefined ? undefined : Math.round(now - sent);
        log.info(
          `Remote call ${call.id} to ${shownValue(call.name)} on ${shownValue(call.node)} answered ${block.status}${duration === undefined ? '' : ` after ${duration} ms`} (thread ${shownValue(threadId)})`,
          { event: 'remote_result', thread_id: threadId, call_id: call.id, tool: call.name, node: call.node, status: block.status, duration_ms: duration ?? null },
        );
      }
    }
  }

  function remember(callId: string, at: number): void {
    // Bounded: calls never answered must not grow the map for the life of the process.
    if (emittedAt.size >= MAX_REMEMBERED_CALLS) emittedAt.delete(emittedAt.keys().next().value as string);
    emittedAt.set(callId, at);
  }

  function track<T>(promise: Promise<T>): Promise<T> {
    inFlight.add(promise);
    const forget = () => inFlight.delete(promise);
    promise.then(forget, forget);
    return promise;
  }

  function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => socket.destroy());
    const requestId = loadCrypto().randomUUID();
    const started = performance.now();
    const url = parseTarget(req.url);
    const refusal = url ? judgeUpgrade(req, url) : badTarget(req.url);
    const route = url?.pathname === '/v1/graph/ws' ? url.pathname : '-';
    const logUpgrade = (status: number) => {
      const duration = Math.round((performance.now() - started) * 10) / 10;
      log.info(`GET ${route} (WebSocket) ${status} in ${duration} ms [${requestId}]`, {
        event: 'request',
        method: 'GET',
        route,
        status,
        duration_ms: duration,
        request_id: requestId,
        websocket: true,
      });
    };
    if (refusal) {
      logUpgrade(refusal.status);
      return answerAndClose(socket, refusal, {}, requestId);
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      logUpgrade(101);
      serveSocket(ws);
    });
  }

  /** The refusal of an upgrade, or undefined when it may open: route, Host, Origin, then the token. */
  function judgeUpgrade(req: IncomingMessage, url: URL): ApiError | undefined {
    if (url.pathname !== '/v1/graph/ws') return new ApiError(404, 'not_found', `No WebSocket route ${url.pathname}; use /v1/graph/ws.`);
    const refusedHost = policy.checkHost(hostHeaders(req), absoluteAuthority(req.url));
    if (refusedHost) return refusedHost;
    // Browsers send Origin on every WebSocket and no CORS guards it: the server checks it itself.
    const verdict = policy.checkOrigin(req.headers.origin);
    if (verdict.kind === 'refused') {
      logRefusedOrigin(verdict, 'WebSocket');
      return verdict.error;
    }
    const protocols = readWebSocketProtocols(req.headers['sec-websocket-protocol']);
    if (protocols.token !== null && !protocols.offered) {
      return new ApiError(400, 'bad_request', `A token sent as a WebSocket subprotocol needs the '${WS_PROTOCOL}' subprotocol offered with it.`);
    }
    if (!authorized(req, protocols.token ?? url.searchParams.get('token'))) return unauthorized();
    return undefined;
  }

  function serveSocket(ws: WebSocket): void {
    const guard = guardWebSocket(ws, limits, {
      dropped: (reason, detail) => log.warn(`Dropped a WebSocket: ${detail}.`, { event: 'websocket_dropped', reason }),
      idle: () => log.info(`Closed a WebSocket idle for ${limits.idleTimeoutMs} ms.`, { event: 'websocket_idle' }),
    });
    ws.on('error', () => {});
    ws.on('close', (code: number) => {
      guard.stop();
      log.debug?.(`A WebSocket closed (code ${code}).`, { event: 'websocket_closed', code });
    });
    ws.on('message', (data: RawData, isBinary: boolean) => {
      let requestId: string | null = null;
      let threadId: string | null = null;
      const started = performance.now();
      const send = (chunk: StreamChunk) => guard.send(JSON.stringify({ ...chunk, request_id: requestId }));
      const logFrame = (status: string, code?: string) => {
        const duration = Math.round((performance.now() - started) * 10) / 10;
        // The id is the client's, of any length: cut alike in the line and in the record.
        const shownId = requestId === null ? null : shownValue(requestId, 80);
        log.info(`WS /v1/graph/ws request ${shownId ?? '-'} ${status}${code ? ` (${code})` : ''} in ${duration} ms`, {
          event: 'ws_request',
          route: '/v1/graph/ws',
          ws_request_id: shownId,
          thread_id: threadId,
          status,
          ...(code ? { code } : {}),
          duration_ms: duration,
        });
      };
      const fail = (error: unknown) => {
        const failure = error instanceof ApiError ? error : new ApiError(500, 'internal_error', errorMessageOf(error));
        send({ event: 'error', data: { code: failure.code, message: failure.message } });
        send({ event: 'end', data: { thread_id: threadId, status: 'error' } });
        logFrame('error', failure.code);
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
        // The thread is checked and locked when the run starts: it may wait for a free slot first.
        const accepted = guard.schedule(async () => {
          let prepared: PreparedRun;
          try {
            prepared = await prepare(request);
          } catch (error) {
            fail(error);
            return;
          }
          threadId = prepared.threadId;
          const outcome = await track(execute(prepared, send));
          logFrame(outcome.status, outcome.error?.code);
        });
        if (!accepted)
          throw new ApiError(429, 'too_many_runs', `This WebSocket has ${limits.maxRunsPerSocket} runs going and more waiting; wait for their ends before sending more.`);
      } catch (error) {
        fail(error);
      }
    });
  }

  function authorized(req: IncomingMessage, queryToken: string | null | undefined): boolean {
    if (!token) return true;
    const header = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim();
    const given = header ?? queryToken ?? undefined;
    if (given === undefined) return false;
    return loadCrypto().timingSafeEqual(digest(given), digest(token));
  }

  return {
    server,
    store,
    listen(port = 8000, host = '127.0.0.1') {
      policy = policyFor(host);
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
      const closed = new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
      server.closeIdleConnections();
      // Runs in flight finish and answer; past the drain time they are aborted (their threads stay as they were).
      const drained = Promise.allSettled([...inFlight]);
      let timer: NodeJS.Timeout | undefined;
      const late = await Promise.race([drained.then(() => false), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), drainMs)))]);
      clearTimeout(timer);
      if (late) {
        stopRuns.abort();
        await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
      }
      for (const client of wss.clients) client.terminate();
      server.closeAllConnections();
      await closed;
      wss.close();
      if (ownsStore) await store.close();
    },
  };
}

/** Opens the SQLite store a path names; a PostgreSQL URL needs `openThreadStore` (it connects asynchronously). */
function openSqlite(path: string): ThreadStore {
  const target = parseStoreTarget(path);
  if (target.kind === 'postgres') throw new TypeError('createApiServer takes a SQLite path as `db`; open PostgreSQL with `await openThreadStore(url)` and pass the store.');
  return new SqliteThreadStore(target.path);
}

/** A store failure as the answer to a request: 503 when the database is unavailable. */
function storeFailure(error: unknown): unknown {
  return error instanceof StoreUnavailableError ? new ApiError(503, 'store_unavailable', error.message) : error;
}

function unauthorized(): ApiError {
  return new ApiError(401, 'unauthorized', 'This server needs a token: send the header Authorization: Bearer <TENXGRAPH_TOKEN>.');
}

function digest(text: string): Buffer {
  return loadCrypto().createHash('sha256').update(text).digest();
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}

/** Every `Host` header of a request: `req.headers` keeps only the first, so two would pass unseen. */
function hostHeaders(req: IncomingMessage): string[] {
  const hosts: string[] = [];
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === 'host') hosts.push(raw[i + 1]!);
  return hosts;
}

/** The authority of an absolute-form request target (`GET http://name/ping`), which names the host too. */
function absoluteAuthority(target: string | undefined): string | undefined {
  if (target === undefined || target.startsWith('/') || target === '*') return undefined;
  return /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(target)?.[1] ?? '';
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
