/**
 * The route table of `10xgraph api`: one declaration per route (method, path pattern, handler),
 * from which matching, the 404 of an unknown path, the 405 and `Allow` of a wrong method, the
 * methods and headers a CORS preflight allows and the WebSocket upgrades all follow. Patterns
 * are literal segments and `{name}` parameters (one non-empty segment each, still
 * percent-encoded); a path is matched against every pattern segment by segment, in time linear
 * in its length and the table's size.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebSocket } from 'ws';
import type { Caller, Scope } from './access';
import { ApiError } from './errors';

/** The methods a route may take. */
export type RouteMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** The parameters a matched path gave, by name, as they were in the path (percent-encoded). */
export type RouteParams = Readonly<Record<string, string>>;

/** What a route's handler answers: the request, its answer, its parsed target and its id. */
export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  requestId: string;
  /** Who called, with the route's scope: the route checks the thread it names against it (`caller.authorize`). */
  caller: Caller;
}

/** One route: a method on a path pattern, and what answers it. */
export interface Route {
  method: RouteMethod;
  /** `/v1/graph`, or with parameters `/v1/threads/{id}/messages/{message_id}`. */
  pattern: string;
  /** Whether the request carries a JSON body (its preflight then allows `Content-Type`). */
  body?: boolean;
  /** Whether the route is answered without the token (only `/ping`). */
  public?: boolean;
  /** The scope a caller needs (every route that is not public has one), as the real server names it. */
  scope?: Scope;
  /**
   * Where the thread the route acts on is named, when it names one: the route itself then checks
   * the caller against that thread (`caller.authorize(threadId, owner)`) once it has read it.
   * Without it, the server checks the caller before the route runs.
   */
  thread?: 'path' | 'body';
  /** Answers the request; an `ApiError` thrown is the answer. */
  handle(context: RequestContext, params: RouteParams): void | Promise<void>;
  /** When the route (a GET) is a WebSocket endpoint: serves a socket the upgrade opened, the upgrade already admitted. */
  upgrade?(ws: WebSocket, context: SocketContext): void;
}

/** Why a run on an open WebSocket is refused: the error chunk's reason, and the close that follows, if any. */
export interface RunRefusal {
  reason: string;
  /** Seconds until the rate limit lets another run through (a rate-limit refusal). */
  retryAfterSeconds?: number;
  /** The socket is closed after the error chunk (a credential that no longer verifies: 1008). */
  close?: { code: number; reason: string };
}

/** What a WebSocket route is given with its socket. */
export interface SocketContext {
  /** The caller the handshake authenticated, with the route's scope. */
  caller: Caller;
  /** Checks a run before it starts: the credential still verifies as the same user, and the rate limit lets it through. */
  admitRun(): Promise<RunRefusal | undefined>;
}

/**
 * Checks and decodes one parameter, throwing the `ApiError` of a bad one; `pattern` is the route's
 * pattern, for the message.
 */
export type ParamReader = (raw: string, pattern: string) => string;

/** The routes of one path pattern, found for a request's path. */
export interface PathMatch {
  /** The pattern, as the log names the route (`/v1/threads/{id}`). */
  pattern: string;
  /** Every route of the pattern, in the table's order. */
  routes: readonly Route[];
  /** Their methods, as `Allow` and `Access-Control-Allow-Methods` list them (`GET, DELETE`). */
  allow: string;
  /** Whether every route of the pattern is answered without the token. */
  public: boolean;
  /** Whether some route of the pattern carries a body. */
  body: boolean;
  /** The route of `method`, or undefined when the pattern has none (405). */
  routeFor(method: string | undefined): Route | undefined;
  /** The parameters, each checked and decoded by its reader; throws the `ApiError` of a bad one. */
  readParams(): RouteParams;
}

/** What `resolve` found: a route to call, or an answer to refuse with (its headers set on the answer). */
export type ResolvedRoute =
  { kind: 'route'; route: Route; params: RouteParams; match: PathMatch } | { kind: 'refused'; error: ApiError; headers: Record<string, string>; match?: PathMatch };

interface CompiledPattern {
  pattern: string;
  /** Literal segments as they are; a parameter as its name, with `param` set. */
  segments: Array<{ text: string; param: boolean }>;
  routes: Route[];
}

/** The request headers a preflight allows: the token always, the body's type on routes with a body. */
const AUTHORIZATION = 'Authorization';
const CONTENT_TYPE = 'Content-Type';

/** A table of routes: declared once, matched for every request, preflight and upgrade. */
export class RouteTable {
  private readonly patterns: CompiledPattern[] = [];
  private readonly readers: Readonly<Record<string, ParamReader>>;

  /** `readers` checks each `{name}` parameter the patterns use; a pattern naming another is a mistake thrown here. */
  constructor(routes: readonly Route[], readers: Readonly<Record<string, ParamReader>> = {}) {
    this.readers = readers;
    for (const route of routes) {
      let compiled = this.patterns.find((entry) => entry.pattern === route.pattern);
      if (!compiled) {
        compiled = { pattern: route.pattern, segments: compilePattern(route.pattern, readers), routes: [] };
        this.patterns.push(compiled);
      }
      if (compiled.routes.some((other) => other.method === route.method)) throw new TypeError(`The route table declares ${route.method} ${route.pattern} twice.`);
      if (!route.public && route.scope === undefined) throw new TypeError(`The route ${route.method} ${route.pattern} is not public and declares no scope.`);
      compiled.routes.push(route);
    }
  }

  /** The patterns, in the table's order, as the 404 lists them. */
  get patternList(): string[] {
    return this.patterns.map((entry) => entry.pattern);
  }

  /** The patterns that serve WebSocket upgrades. */
  get upgradePatterns(): string[] {
    return this.patterns.filter((entry) => entry.routes.some((route) => route.upgrade)).map((entry) => entry.pattern);
  }

  /**
   * The route of a request and its parameters, or the refusal to answer: 404 (no pattern fits
   * the path), the refusal `refusal` gives for a pattern not public (a 401), the error of a bad parameter,
   * then 405 with `Allow` (the pattern has no route of the method), in that order. `match` is
   * `match(pathname)`, which the caller has already (the log names its pattern): the path is
   * matched once, a path no pattern fits included.
   */
  resolve(pathname: string, method: string | undefined, refusal: () => ApiError | undefined, match: PathMatch | undefined): ResolvedRoute {
    if (!match) return { kind: 'refused', error: this.notFound(pathname), headers: {} };
    const refused = match.public ? undefined : refusal();
    if (refused) return { kind: 'refused', error: refused, headers: {}, match };
    let params: RouteParams;
    try {
      params = match.readParams();
    } catch (error) {
      if (error instanceof ApiError) return { kind: 'refused', error, headers: {}, match };
      throw error;
    }
    const route = match.routeFor(method);
    if (!route) return { kind: 'refused', error: RouteTable.methodNotAllowed(pathname, match, method), headers: { allow: match.allow }, match };
    return { kind: 'route', route, params, match };
  }

  /** The routes of the first pattern `pathname` matches, or undefined when none does (404). */
  match(pathname: string): PathMatch | undefined {
    const parts = pathname.split('/');
    for (const entry of this.patterns) {
      const raw = matchSegments(entry.segments, parts);
      if (raw) return this.pathMatch(entry, raw);
    }
    return undefined;
  }

  /** The 404 of a path no pattern matches, listing the routes. */
  notFound(pathname: string): ApiError {
    return new ApiError(404, 'NOT_FOUND', `No route ${pathname}; the routes are ${this.patternList.join(', ')}.`);
  }

  /** The 405 of a method a pattern does not take; the answer carries `Allow: match.allow`. */
  static methodNotAllowed(pathname: string, match: PathMatch, method: string | undefined): ApiError {
    return new ApiError(405, 'METHOD_NOT_ALLOWED', `${pathname} takes ${match.allow.replace(/, (?=[^,]*$)/, ' or ')}, not ${method}.`);
  }

  /** The request headers a preflight for this match allows. */
  static allowedHeaders(match: PathMatch): string {
    return match.body ? `${AUTHORIZATION}, ${CONTENT_TYPE}` : AUTHORIZATION;
  }

  private pathMatch(entry: CompiledPattern, raw: Record<string, string>): PathMatch {
    const readers = this.readers;
    return {
      pattern: entry.pattern,
      routes: entry.routes,
      allow: entry.routes.map((route) => route.method).join(', '),
      public: entry.routes.every((route) => route.public === true),
      body: entry.routes.some((route) => route.body === true),
      routeFor: (method) => entry.routes.find((route) => route.method === method),
      readParams() {
        const params: Record<string, string> = {};
        for (const [name, value] of Object.entries(raw)) params[name] = readers[name]!(value, entry.pattern);
        return params;
      },
    };
  }
}

function compilePattern(pattern: string, readers: Readonly<Record<string, ParamReader>>): CompiledPattern['segments'] {
  if (!pattern.startsWith('/')) throw new TypeError(`A route pattern starts with '/': '${pattern}'.`);
  return pattern.split('/').map((segment) => {
    const param = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(segment)?.[1];
    if (param === undefined) return { text: segment, param: false };
    if (!Object.prototype.hasOwnProperty.call(readers, param)) throw new TypeError(`The route ${pattern} has the parameter {${param}}, which has no reader.`);
    return { text: param, param: true };
  });
}

/** The raw parameters when `parts` (a path split on '/') fits the segments, else undefined. */
function matchSegments(segments: CompiledPattern['segments'], parts: readonly string[]): Record<string, string> | undefined {
  if (segments.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    const part = parts[i]!;
    if (segment.param) {
      if (part === '') return undefined;
      params[segment.text] = part;
    } else if (segment.text !== part) return undefined;
  }
  return params;
}
