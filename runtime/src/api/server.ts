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
import { AccessControl, allowAllBackend, anonymousCaller, Caller, type AuthorizationBackend } from './access';
import { credentialOf, tokenAuthenticator, userIdOf, type Authenticator, type AuthUser } from './auth';
import { ApiError } from './errors';
import { createGraphRoutes } from './graphRoutes';
import { BodyTimeoutError, closeIfBodyUnread, sendError } from './http';
import type { ApiLogger } from './log';
import { createOriginPolicy, readWebSocketProtocols, shownValue, type OriginPolicy, type OriginVerdict } from './origin';
import {
  createOutageWatch,
  decisionOnFailure,
  isExcluded,
  rateLimitedBody,
  rateLimitHeaders,
  rateLimitKey,
  rateLimitUserId,
  type RateLimitDecision,
  type RateLimiter,
  type RateLimitSettings,
} from './rateLimit';
import { RouteTable, type PathMatch, type Route, type RunRefusal } from './router';
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
  /**
   * How callers are identified (the config's `auth`: JWT or a custom module); replaces `token`.
   * Every route but `/ping` then needs a caller it accepts.
   */
  auth?: Authenticator;
  /** What identified callers may do (the config's `authorization`); used with `auth` only. Default: any caller with a `user_id`. */
  authorization?: AuthorizationBackend;
  /** Request limits (the config's `rate_limit`) and the limiter that counts them; the server closes the limiter. */
  rateLimit?: { settings: RateLimitSettings; limiter: RateLimiter };
  /** Caps on open WebSockets (the config's `websocket`): in all and per user; null is no cap. Default 1000 and 10. */
  webSocketCaps?: WebSocketCaps;
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

/** Caps on the WebSockets one server process keeps open (null: no cap). */
export interface WebSocketCaps {
  maxConnections: number | null;
  maxConnectionsPerUser: number | null;
  /**
   * Why every handshake is refused: the `websocket` setting has a value the server cannot use.
   * The real server reads the setting on each handshake, so it starts and refuses them all; so does this one.
   */
  refusal?: string;
}

/** The caps of a server whose config says nothing of `websocket`, as the real server's. */
export const DEFAULT_WEBSOCKET_CAPS: WebSocketCaps = { maxConnections: 1000, maxConnectionsPerUser: 10 };

/** The close code of a WebSocket refused for a limit (rate or connections): try again later. */
const WS_TRY_AGAIN_LATER = 1013;
/** The close code of a WebSocket refused for its credential or its permissions. */
const WS_POLICY_VIOLATION = 1008;
/** The close code of a WebSocket the server cannot serve (its `websocket` setting is unusable). */
const WS_INTERNAL_ERROR = 1011;

/** Who a request's credential names, or the refusal it gets. */
type Identity = { user: AuthUser } | { error: ApiError };

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
  // `auth` identifies callers (and authorization judges them); else the shared token, if any, stands in front.
  const authenticator: Authenticator | undefined = options.auth ?? (token ? tokenAuthenticator(token) : undefined);
  const access = new AccessControl(options.auth ? (options.authorization ?? allowAllBackend()) : undefined);
  const rateLimit = options.rateLimit;
  const outage = createOutageWatch();
  const caps = options.webSocketCaps ?? DEFAULT_WEBSOCKET_CAPS;
  let openSockets = 0;
  const socketsPerUser = new Map<string, number>();
  const ownsStore = typeof options.db !== 'object';
  const store: ThreadStore = typeof options.db === 'object' ? options.db : openSqlite(options.db ?? ':memory:');
  const drainMs = options.drainMs ?? 10_000;
  const limits: SocketLimits = { ...DEFAULT_SOCKET_LIMITS, ...options.limits };
  const corsOrigins = options.corsOrigins ?? [];
  const allowedHosts = options.allowedHosts ?? [];
  const policyFor = (listenHost: string | undefined) => createOriginPolicy({ listenHost, allowedHosts, corsOrigins, tokenRequired: authenticator !== undefined });
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
    // The limit comes first, as the real server's outermost middleware: a refused request costs no
    // authentication. Only a limit counted per user needs the caller (identified once, for the route too).
    const limited = rateLimit && !isExcluded(url.pathname, rateLimit.settings) ? rateLimit : undefined;
    const byUser = limited?.settings.by === 'user';
    const count = async (identity: Identity | undefined): Promise<boolean> => {
      const decision = await decide(limited!, req.socket.remoteAddress, req.headers, identity);
      for (const [name, value] of Object.entries(rateLimitHeaders(decision))) res.setHeader(name, value);
      if (!decision.allowed) sendRateLimited(res, requestId, decision);
      return decision.allowed;
    };
    if (limited && !byUser && !(await count(undefined))) return;
    const identity = authenticator && ((match && !match.public) || byUser) ? await identify(req.method ?? 'GET', url, req.headers, false) : undefined;
    if (limited && byUser && !(await count(identity))) return;
    const found = table.resolve(url.pathname, req.method, () => (identity && 'error' in identity ? identity.error : undefined), match);
    if (found.kind === 'refused') return sendError(res, requestId, found.error, found.headers);
    try {
      const caller = await admitCaller(found.route, identity);
      return await found.route.handle({ req, res, url, requestId, caller }, found.params);
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
    const refusal = judgeUpgrade(req);
    if (refusal) {
      logUpgrade(refusal.status);
      return answerAndClose(socket, refusal, {}, requestId);
    }
    void openSocket(req, socket, head, url, route, logUpgrade).catch((error: unknown) => {
      log.error(`The WebSocket upgrade of ${shownRoute} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`, {
        event: 'request_failed',
        request_id: requestId,
      });
      if (!socket.destroyed) answerAndClose(socket, new ApiError(500, 'INTERNAL_SERVER_ERROR', 'The server failed on this request; see its log.'), {}, requestId);
    });
  }

  /** The refusal of an upgrade to a WebSocket route before its caller is judged, or undefined: Host, then Origin. */
  function judgeUpgrade(req: IncomingMessage): ApiError | undefined {
    const refusedHost = policy.checkHost(hostHeaders(req), absoluteAuthority(req.url));
    if (refusedHost) return refusedHost;
    // Browsers send Origin on every WebSocket and no CORS guards it: the server checks it itself.
    const verdict = policy.checkOrigin(req.headers.origin);
    if (verdict.kind === 'refused') {
      logRefusedOrigin(verdict, 'WebSocket');
      return verdict.error;
    }
    return undefined;
  }

  /**
   * Opens a WebSocket the way the real server's WebSocket routes do: the rate limit, then the caps
   * on open sockets (in all, then per user), then the caller; a refusal of those completes the
   * handshake and closes at once with the real server's code and reason (1013 for a limit, 1008
   * for the credential or a permission), so the client reads why. With `TENXGRAPH_TOKEN` alone, a
   * wrong token is refused with the 401 of the handshake, as every other route refuses it.
   */
  async function openSocket(req: IncomingMessage, socket: Duplex, head: Buffer, url: URL, route: Route, logUpgrade: (status: number) => void): Promise<void> {
    const closeWith = (code: number, reason: string) => {
      logUpgrade(code);
      wss.handleUpgrade(req, socket, head, (ws) => {
        ws.on('error', () => {});
        ws.close(code, closeReason(reason));
      });
    };
    if (caps.refusal !== undefined) return closeWith(WS_INTERNAL_ERROR, caps.refusal);
    // The handshake counts first (a refused one costs no authentication), unless the limit counts per user.
    const byUser = rateLimit?.settings.by === 'user';
    if (rateLimit && !byUser && !(await decide(rateLimit, req.socket.remoteAddress, req.headers, undefined)).allowed) return closeWith(WS_TRY_AGAIN_LATER, 'Rate limit exceeded');
    const identity = authenticator ? await identify('GET', url, req.headers, true) : undefined;
    if (socket.destroyed) return;
    if (rateLimit && byUser && !(await decide(rateLimit, req.socket.remoteAddress, req.headers, identity)).allowed) return closeWith(WS_TRY_AGAIN_LATER, 'Rate limit exceeded');
    if (identity && 'error' in identity && authenticator?.mode === 'token') {
      logUpgrade(identity.error.status);
      return answerAndClose(socket, identity.error);
    }
    const userId = identity && 'user' in identity ? userIdOf(identity.user) : undefined;
    if (caps.maxConnections !== null && openSockets >= caps.maxConnections) return closeWith(WS_TRY_AGAIN_LATER, 'Too many connections');
    if (userId !== undefined && caps.maxConnectionsPerUser !== null && (socketsPerUser.get(userId) ?? 0) >= caps.maxConnectionsPerUser) {
      return closeWith(WS_TRY_AGAIN_LATER, 'Too many connections for this user');
    }
    // The slot is taken with the check, before anything else is awaited: handshakes judged at once cannot all pass it.
    const release = takeSocketSlot(userId);
    // Whatever ends the connection (the socket closed, a handshake the WebSocket library refuses) gives the slot back.
    socket.once('close', release);
    let caller: Caller;
    try {
      if (identity && 'error' in identity) {
        release();
        return closeWith(identity.error.status >= 500 ? WS_INTERNAL_ERROR : WS_POLICY_VIOLATION, identity.error.message);
      }
      caller = await admitCaller(route, identity);
    } catch (error) {
      release();
      if (error instanceof ApiError && error.status < 500) return closeWith(WS_POLICY_VIOLATION, error.message);
      throw error;
    }
    if (socket.destroyed) return release();
    const credential = credentialOf(req.headers, url, true);
    const peer = req.socket.remoteAddress;
    const headers = req.headers;
    wss.handleUpgrade(req, socket, head, (ws) => {
      logUpgrade(101);
      route.upgrade!(ws, {
        caller,
        async admitRun(): Promise<RunRefusal | undefined> {
          // The token is checked again before each run: one that expired (or now names another user) ends the session.
          if (authenticator && authenticator.mode !== 'token') {
            const again = await identify('GET', url, headers, true, credential);
            if ('error' in again || userIdOf(again.user) !== userId) {
              return { reason: 'Session expired. Reconnect with a valid token.', close: { code: WS_POLICY_VIOLATION, reason: 'Session expired' } };
            }
          }
          if (rateLimit) {
            const decision = await decide(rateLimit, peer, headers, identity);
            if (!decision.allowed) return { reason: `Rate limit exceeded. Retry after ${decision.retryAfterSeconds}s.`, retryAfterSeconds: decision.retryAfterSeconds };
          }
          return undefined;
        },
      });
    });
  }

  /** Takes a slot among the open WebSockets (and the user's); the function returned gives it back, once. */
  function takeSocketSlot(userId: string | undefined): () => void {
    openSockets++;
    if (userId !== undefined) socketsPerUser.set(userId, (socketsPerUser.get(userId) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      openSockets--;
      if (userId === undefined) return;
      const left = (socketsPerUser.get(userId) ?? 1) - 1;
      if (left > 0) socketsPerUser.set(userId, left);
      else socketsPerUser.delete(userId);
    };
  }

  /** The caller of a request (the user, or the refusal to answer with), judged by the authenticator. */
  async function identify(
    method: string,
    url: URL,
    headers: IncomingMessage['headers'],
    websocket: boolean,
    credential = credentialOf(headers, url, websocket),
  ): Promise<Identity> {
    try {
      return { user: await authenticator!.authenticate({ method, url, headers, websocket, credential }) };
    } catch (error) {
      if (error instanceof ApiError) return { error };
      throw error;
    }
  }

  /**
   * The caller of a route: its scope checked, and unless the route names a thread (and checks the
   * caller against it itself), the backend's verdict on the route. Throws the 403 of a refusal.
   */
  async function admitCaller(route: Route, identity: Identity | undefined): Promise<Caller> {
    if (route.scope === undefined || !access.enabled) return anonymousCaller(route.scope);
    const user = identity && 'user' in identity ? identity.user : {};
    access.checkScope(user, route.scope);
    const caller = new Caller(user, access, route.scope);
    if (route.thread === undefined) await caller.authorize();
    return caller;
  }

  /** Counts a request (or a WebSocket run) against the limit: the backend's decision, or the one `fail_open` gives when it failed. */
  async function decide(
    limit: { settings: RateLimitSettings; limiter: RateLimiter },
    peer: string | undefined,
    headers: IncomingMessage['headers'],
    identity: Identity | undefined,
  ): Promise<RateLimitDecision> {
    // The limiter's own reading of the user (its keying rule), not a second one here.
    const userId = identity && 'user' in identity ? rateLimitUserId(identity.user) : undefined;
    const verdict = await limit.limiter.hit(rateLimitKey(limit.settings, peer, headers, userId));
    const change = outage.observe(verdict);
    if (change === 'down' && verdict.failed) {
      const what = limit.settings.failOpen ? 'requests go through unlimited (fail_open) until it is back' : 'requests are refused (fail_open is false) until it is back';
      log.warn(`The ${limit.limiter.backend} rate-limit backend failed: ${verdict.error.message}; ${what}.`, { event: 'rate_limit_backend_down' });
    } else if (change === 'up') {
      log.info(`The ${limit.limiter.backend} rate-limit backend answers again; limits apply.`, { event: 'rate_limit_backend_up' });
    }
    return verdict.failed ? decisionOnFailure(limit.settings) : verdict;
  }

  /** The 429 of a request over the limit: the real server's body, with its headers already set. */
  function sendRateLimited(res: ServerResponse, requestId: string, decision: RateLimitDecision): void {
    closeIfBodyUnread(res);
    const body = JSON.stringify(rateLimitedBody(decision, requestId));
    res.writeHead(429, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store', 'x-request-id': requestId });
    res.end(body);
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
      await rateLimit?.limiter.close();
    },
  };
}

/** Opens the SQLite store a path names; a PostgreSQL URL needs `openThreadStore` (it connects asynchronously). */
function openSqlite(path: string): ThreadStore {
  const target = parseStoreTarget(path);
  if (target.kind === 'postgres') throw new TypeError('createApiServer takes a SQLite path as `db`; open PostgreSQL with `await openThreadStore(url)` and pass the store.');
  return new SqliteThreadStore(target.path);
}

/** A WebSocket close reason fits in 123 bytes: a longer one is cut at a character boundary. */
function closeReason(text: string): string {
  let reason = text;
  while (Buffer.byteLength(reason) > 123) reason = reason.slice(0, -1);
  return reason;
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

/** The request target as a URL (its path as sent, dot segments resolved), or undefined when it is not one (`http://[`, a bad port). */
function parseTarget(target: string | undefined): URL | undefined {
  try {
    // An origin-form target is a path as it is: `//x/v1/threads` is not a URL of the host `x`.
    if (target !== undefined && target.startsWith('/')) return new URL(`http://localhost${target}`);
    return new URL(target ?? '/', 'http://localhost');
  } catch {
    return undefined;
  }
}

function badTarget(target: string | undefined): ApiError {
  return new ApiError(400, 'BAD_REQUEST', `The request target '${String(target).slice(0, 100)}' is not a valid path; use a route such as /v1/graph.`);
}
