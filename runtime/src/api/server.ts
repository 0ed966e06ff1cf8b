/**
 * The HTTP and WebSocket server of `10xgraph api`: one route table (the graph routes of
 * graphRoutes.ts and the thread routes of threadRoutes.ts) decides matching, 404, 405 and CORS
 * preflights; every request first passes the Host and Origin policy of origin.ts; runs go
 * through the run engine (runEngine.ts). Threads live in a `ThreadStore`; the graph is whatever
 * compiled graph it is given. Nothing here reads the environment: the CLI's start-up (start.ts)
 * reads the variables and passes their values as options.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Duplex } from 'node:stream';
import { loadCrypto, loadHttp, loadWs } from './lazy';
import { ApiError } from './errors';
import { createGraphRoutes } from './graphRoutes';
import { BodyTimeoutError, closeIfBodyUnread, sendError } from './http';
import type { ApiLogger } from './log';
import { createOriginPolicy, readWebSocketProtocols, shownValue, type OriginPolicy, type OriginVerdict } from './origin';
import { RouteTable, unauthorized, type PathMatch, type Route } from './router';
import { RunEngine, type ServableGraph } from './runEngine';
import { answerAndClose, DEFAULT_SOCKET_LIMITS, type SocketLimits } from './sockets';
import { parseStoreTarget, SqliteThreadStore, type ThreadStore } from './store/index';
import { createThreadRoutes, THREAD_PARAMS } from './threadRoutes';
import { VERSION } from '../version';

export type { ServableGraph } from './runEngine';
export type { ApiLogger } from './log';

/** How to build a server. */
export interface ApiServerOptions {
  graph: ServableGraph;
  /** A SQLite database path (`:memory:` by default) or an open store (SQLite or PostgreSQL) the caller keeps. */
  db?: string | ThreadStore;
  /** How long `close()` lets runs in flight finish before it ends them (default 10 s). */
  drainMs?: number;
  /** The bearer token every route but `/ping` needs; empty or absent means none (`10xgraph api` passes `TENXGRAPH_TOKEN`). */
  token?: string;
  /** Largest request body or WebSocket frame in bytes (default 1 MiB). */
  maxBodyBytes?: number;
  /** The version reported as `info.version` (default the package's). */
  version?: string;
  log?: ApiLogger;
  /** Browser origins allowed besides loopback ones (loopback only without a token). Default none (`10xgraph api` passes `--cors-origin` and `TENXGRAPH_CORS_ORIGINS`). */
  corsOrigins?: readonly string[];
  /** Host names the server answers to besides loopback and its listen address. Default none (`10xgraph api` passes `--allowed-host` and `TENXGRAPH_ALLOWED_HOSTS`). */
  allowedHosts?: readonly string[];
  /** Time-outs and bounds on sockets (each defaults as `DEFAULT_SOCKET_LIMITS` says). */
  limits?: Partial<SocketLimits>;
}

/** One route of a server, as its table declares it. */
export type RouteSummary = Readonly<Pick<Route, 'method' | 'pattern' | 'body' | 'public'>>;

/** A built server. */
export interface ApiServer {
  readonly server: Server;
  readonly store: ThreadStore;
  /** The route table's declarations (method, pattern, whether it reads a body, whether it is public), in its order. */
  readonly routes: readonly RouteSummary[];
  /** Starts listening (port 0: any free port) and resolves to the base URL. */
  listen(port?: number, host?: string): Promise<string>;
  /**
   * Stops accepting, refuses new runs with 503, lets runs in flight finish (within `drainMs`, then
   * aborts them), ends open connections and closes the store it opened.
   */
  close(): Promise<void>;
}

/** The default body limit: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

const silent: ApiLogger = { info() {}, warn() {}, error() {} };

/** Builds the API server around a compiled graph. Call `listen()` to serve. */
export function createApiServer(options: ApiServerOptions): ApiServer {
  const { graph } = options;
  const log = options.log ?? silent;
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const version = options.version ?? VERSION;
  const token = options.token ?? '';
  const ownsStore = typeof options.db !== 'object';
  const store: ThreadStore = typeof options.db === 'object' ? options.db : openSqlite(options.db ?? ':memory:');
  const drainMs = options.drainMs ?? 10_000;
  const limits: SocketLimits = { ...DEFAULT_SOCKET_LIMITS, ...options.limits };
  const corsOrigins = options.corsOrigins ?? [];
  const allowedHosts = options.allowedHosts ?? [];
  const policyFor = (listenHost: string | undefined) => createOriginPolicy({ listenHost, allowedHosts, corsOrigins, tokenRequired: token !== '' });
  // Built now so a malformed list fails here; rebuilt by listen() with the address it serves.
  let policy: OriginPolicy = policyFor(undefined);
  /** Answers in progress per connection: a parse error then must not write its own answer into theirs. */
  const answering = new WeakMap<object, number>();
  const engine = new RunEngine(graph, store, log);
  const routes: Route[] = [
    ...createGraphRoutes({ graph, engine, store, log, limits, maxBodyBytes: limit, version }),
    ...createThreadRoutes({ store, guard: () => engine.refuseWhileClosing(), maxBodyBytes: limit, bodyTimeoutMs: limits.bodyTimeoutMs }),
  ];
  const table = new RouteTable(routes, THREAD_PARAMS);

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
        if (!res.headersSent) sendError(res, requestId, new ApiError(500, 'INTERNAL_SERVER_ERROR', 'The server failed on this request; see its log.'));
        else res.end();
      });
    },
  );
  const wss = new (loadWs().WebSocketServer)({
    noServer: true,
    maxPayload: limit,
    // Answer with the bearer sentinel the client offered, never with the entry after it (the token).
    handleProtocols: (protocols) => readWebSocketProtocols([...protocols].join(',')).sentinel ?? false,
  });
  server.on('upgrade', (req, socket, head) => upgrade(req, socket, head));

  // CONNECT is no route of ours: answer it rather than leave the socket hanging.
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    answerAndClose(socket, new ApiError(405, 'METHOD_NOT_ALLOWED', 'CONNECT is not supported: this is a 10xgraph API server, not a proxy.'));
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
          'REQUEST_TIMEOUT',
          `The request did not arrive within the server's time-out (${limits.headersTimeoutMs} ms for the headers, ${Math.max(limits.requestTimeoutMs, limits.headersTimeoutMs)} ms for the whole request); send it again.`,
        ),
      );
    }
    answerAndClose(socket, new ApiError(error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400, 'BAD_REQUEST', `The request is not valid HTTP (${error.code ?? 'parse error'}).`));
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
   * answers to, an allowed Origin (its CORS headers set), and CORS preflights answered from the
   * route table's `match` of the path. Returns false when it has answered.
   */
  function admit(req: IncomingMessage, res: ServerResponse, requestId: string, url: URL, match: PathMatch | undefined): boolean {
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
      if (!match) {
        sendError(res, requestId, table.notFound(url.pathname));
        return false;
      }
      closeIfBodyUnread(res);
      res.writeHead(204, {
        ...policy.preflightHeaders(verdict.origin, match.allow, RouteTable.allowedHeaders(match), req.headers['access-control-request-private-network'] === 'true'),
        'x-request-id': requestId,
      });
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
    const match = table.match(url.pathname);
    if (match) matched(match.pattern);
    if (!admit(req, res, requestId, url, match)) return;
    const found = table.resolve(url.pathname, req.method, () => authorized(req, undefined), match);
    if (found.kind === 'refused') return sendError(res, requestId, found.error, found.headers);
    try {
      return await found.route.handle({ req, res, url, requestId }, found.params);
    } catch (error) {
      // After a stalled body the connection cannot carry another request: it is closed with the answer.
      if (error instanceof ApiError) return sendError(res, requestId, error, error instanceof BodyTimeoutError ? { connection: 'close' } : {});
      throw error;
    }
  }

  function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => socket.destroy());
    const requestId = loadCrypto().randomUUID();
    const started = performance.now();
    const url = parseTarget(req.url);
    const match = url ? table.match(url.pathname) : undefined;
    const route = match?.routeFor('GET');
    const shownRoute = route?.upgrade ? match!.pattern : '-';
    const logUpgrade = (status: number) => {
      const duration = Math.round((performance.now() - started) * 10) / 10;
      log.info(`GET ${shownRoute} (WebSocket) ${status} in ${duration} ms [${requestId}]`, {
        event: 'request',
        method: 'GET',
        route: shownRoute,
        status,
        duration_ms: duration,
        request_id: requestId,
        websocket: true,
      });
    };
    if (!url || !route?.upgrade) {
      const refusal = url ? new ApiError(404, 'NOT_FOUND', `No WebSocket route ${url.pathname}; use ${table.upgradePatterns.join(' or ')}.`) : badTarget(req.url);
      logUpgrade(refusal.status);
      return answerAndClose(socket, refusal, {}, requestId);
    }
    const refusal = judgeUpgrade(req, url);
    if (refusal) {
      logUpgrade(refusal.status);
      return answerAndClose(socket, refusal, {}, requestId);
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      logUpgrade(101);
      route.upgrade!(ws);
    });
  }

  /** The refusal of an upgrade to a WebSocket route, or undefined when it may open: Host, Origin, then the token. */
  function judgeUpgrade(req: IncomingMessage, url: URL): ApiError | undefined {
    const refusedHost = policy.checkHost(hostHeaders(req), absoluteAuthority(req.url));
    if (refusedHost) return refusedHost;
    // Browsers send Origin on every WebSocket and no CORS guards it: the server checks it itself.
    const verdict = policy.checkOrigin(req.headers.origin);
    if (verdict.kind === 'refused') {
      logRefusedOrigin(verdict, 'WebSocket');
      return verdict.error;
    }
    const protocols = readWebSocketProtocols(req.headers['sec-websocket-protocol']);
    if (!authorized(req, protocols.token ?? url.searchParams.get('token'))) return unauthorized();
    return undefined;
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
    routes: routes.map(({ method, pattern, body, public: open }) => ({ method, pattern, body: body === true, public: open === true })),
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
      const closed = new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
      server.closeIdleConnections();
      // Runs in flight finish and answer; past the drain time they are aborted (their threads stay as they were).
      await engine.drain(drainMs);
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

function digest(text: string): Buffer {
  return loadCrypto().createHash('sha256').update(text).digest();
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
  return new ApiError(400, 'BAD_REQUEST', `The request target '${String(target).slice(0, 100)}' is not a valid path; use a route such as /v1/graph.`);
}
