/**
 * Who may drive `10xgraph api`: the one place that decides which `Host` names the server answers
 * to (DNS rebinding) and which browser `Origin`s may call it (CORS for HTTP and preflights, and the
 * same list for WebSocket upgrades). Host names and origins are parsed as URLs and compared as
 * names and addresses, never by text prefix, so `127.attacker.example` is not loopback.
 */
import { escapeControl } from '../text/escapeControl';
import { isIP, isIPv4 } from 'node:net';
import { ApiError } from './errors';
import { WS_BEARER_PROTOCOL, WS_LEGACY_BEARER_PROTOCOL } from '10xgraph-client/wire';

/** The longest `Origin` value judged; longer ones are refused without parsing. */
const MAX_ORIGIN_LENGTH = 2048;
/** The longest value a log line or an error message shows of a refused name. */
const MAX_SHOWN = 200;

/** How long a browser may cache a preflight answer, in seconds. */
const PREFLIGHT_MAX_AGE = '600';

/** The response headers a page may read beyond the safelisted ones. */
const EXPOSED_HEADERS = 'X-Request-Id, WWW-Authenticate';

/** A start-up setting that cannot be understood (`--cors-origin`, `--allowed-host` or their variables). */
export class OriginSettingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OriginSettingError';
  }
}

/** How to build the policy. */
export interface OriginPolicyOptions {
  /** The address the server listens on (`--host`); it always answers to it. */
  listenHost?: string;
  /** Further host names it answers to, e.g. behind a proxy (`--allowed-host`, `TENXGRAPH_ALLOWED_HOSTS`). */
  allowedHosts?: readonly string[];
  /** Origins allowed to call it from a browser (`--cors-origin`, `TENXGRAPH_CORS_ORIGINS`). */
  corsOrigins?: readonly string[];
  /** Whether the server needs a token: then only listed origins are allowed, loopback ones included. */
  tokenRequired: boolean;
}

/** The verdict on a request's `Origin`. */
export type OriginVerdict =
  /** No `Origin` header: not a cross-origin browser request (curl, Node, a same-origin navigation). */
  { kind: 'none' } | { kind: 'allowed'; origin: string } | { kind: 'refused'; error: ApiError; shown: string };

/** The policy a server applies to every request, preflight and upgrade. */
export interface OriginPolicy {
  /**
   * A 403 when the request's `Host` is not a name the server answers to, a 400 when it has more
   * than one (`host` then lists them all); `absoluteHost` is the authority of an absolute-form
   * target (`GET http://name/...`), which names the host as well.
   */
  checkHost(host: string | readonly string[] | undefined, absoluteHost?: string): ApiError | undefined;
  /** Judges an `Origin` header against the allowed origins. */
  checkOrigin(origin: string | string[] | undefined): OriginVerdict;
  /** The CORS headers of an answer: `Vary: Origin` always, the allowed origin echoed when there is one. */
  corsHeaders(verdict: OriginVerdict): Record<string, string>;
  /**
   * The headers of a preflight answer for an allowed origin and a path whose routes take
   * `methods` and read the request headers `headers` (both as the route table lists them).
   */
  preflightHeaders(origin: string, methods: string, headers: string, privateNetwork: boolean): Record<string, string>;
}

/** One allowed origin: a scheme, a host name and a port, or any port (`http://localhost:*`). */
interface OriginPattern {
  scheme: string;
  hostname: string;
  /** The port as the URL holds it ('' for the scheme's default); undefined means any port. */
  port: string | undefined;
}

/** One allowed host name: exact, or a domain and its subdomains (`.example.com`). */
interface HostPattern {
  name: string;
  subdomains: boolean;
}

/** Builds the policy; throws `OriginSettingError` when a listed origin or host name is malformed. */
export function createOriginPolicy(options: OriginPolicyOptions): OriginPolicy {
  const origins = (options.corsOrigins ?? []).map((entry) => parseOriginPattern(entry));
  const hosts = (options.allowedHosts ?? []).map((entry) => parseHostPattern(entry));
  const listen = options.listenHost === undefined ? undefined : normalizeHostname(options.listenHost);
  // A wildcard address answers on every address of the machine (and of a container's port
  // mapping), which the server cannot list; an address is never a DNS-rebinding name, so any
  // address literal is accepted then. Names still have to be listed.
  const wildcard = listen === '0.0.0.0' || listen === '[::]';

  function hostAllowed(hostname: string): boolean {
    if (isLoopbackHostname(hostname)) return true;
    if (listen !== undefined && hostname === listen) return true;
    if (wildcard && isAddress(hostname)) return true;
    return hosts.some((pattern) => hostname === pattern.name || (pattern.subdomains && hostname.endsWith(`.${pattern.name}`)));
  }

  function refusedHost(value: string): ApiError {
    return new ApiError(
      403,
      'HOST_NOT_ALLOWED',
      `The server does not answer to the host '${shownValue(value)}'; if it is this server's name behind a proxy, start it with --allowed-host NAME (or TENXGRAPH_ALLOWED_HOSTS).`,
    );
  }

  return {
    checkHost(hosts, absoluteHost) {
      // RFC 9112 §3.2: a request with more than one Host is answered 400. Which one a proxy in
      // front and this server each took is unknowable, so neither is judged.
      if (typeof hosts === 'object' && hosts.length > 1) {
        return new ApiError(400, 'BAD_REQUEST', `The request carries ${hosts.length} Host headers; HTTP/1.1 allows exactly one (RFC 9112 §3.2), so send one.`);
      }
      const host = typeof hosts === 'object' ? hosts[0] : hosts;
      if (absoluteHost !== undefined) {
        const hostname = hostnameOfHostHeader(absoluteHost);
        if (hostname === undefined || !hostAllowed(hostname)) return refusedHost(absoluteHost);
      }
      // HTTP/1.0 clients may leave Host out; browsers always send it, so no rebinding hides there.
      if (host === undefined || host === '') return undefined;
      const hostname = hostnameOfHostHeader(host);
      if (hostname === undefined || !hostAllowed(hostname)) return refusedHost(host);
      return undefined;
    },

    checkOrigin(header) {
      if (header === undefined) return { kind: 'none' };
      const value = Array.isArray(header) ? header.join(', ') : header;
      const refuse = (why: string): OriginVerdict => ({
        kind: 'refused',
        shown: shownValue(value),
        error: new ApiError(403, 'ORIGIN_NOT_ALLOWED', `Requests from the origin '${shownValue(value)}' are refused: ${why}`),
      });
      if (Array.isArray(header)) return refuse('a request carries one Origin header.');
      if (value.length > MAX_ORIGIN_LENGTH) return refuse(`an origin is at most ${MAX_ORIGIN_LENGTH} characters long.`);
      if (value === 'null') return refuse('pages without an origin (sandboxed frames, files) cannot call this server; serve the page over http(s) from an allowed origin.');
      const parsed = parseOrigin(value);
      if (!parsed) return refuse('it is not an origin such as http://localhost:5173.');
      if (origins.some((pattern) => matchesPattern(pattern, parsed))) return { kind: 'allowed', origin: value };
      if (!options.tokenRequired && isLoopbackHostname(parsed.hostname)) return { kind: 'allowed', origin: value };
      return refuse(
        options.tokenRequired
          ? "a server with a token allows only the origins listed with --cors-origin (or TENXGRAPH_CORS_ORIGINS); add this page's origin there."
          : "without a token only pages on this machine (localhost, 127.0.0.0/8, [::1]) and the origins listed with --cors-origin may call it; add this page's origin there.",
      );
    },

    corsHeaders(verdict): Record<string, string> {
      if (verdict.kind !== 'allowed') return { vary: 'Origin' };
      return { vary: 'Origin', 'access-control-allow-origin': verdict.origin, 'access-control-expose-headers': EXPOSED_HEADERS };
    },

    preflightHeaders(origin, methods, headers, privateNetwork) {
      return {
        vary: 'Origin',
        'access-control-allow-origin': origin,
        'access-control-allow-methods': methods,
        'access-control-allow-headers': headers,
        'access-control-max-age': PREFLIGHT_MAX_AGE,
        // Chromium asks before a public page may call a private or local address.
        ...(privateNetwork ? { 'access-control-allow-private-network': 'true' } : {}),
      };
    },
  };
}

/** Joins the values of a repeatable setting: each flag value, then the comma-separated variable, blank items dropped. */
export function splitList(flagValues: readonly string[], envValue: string | undefined): string[] {
  const fromEnv = (envValue ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  return [...flagValues.map((value) => value.trim()), ...fromEnv];
}

/**
 * Checks start-up lists before the server is built, so a bad entry is a clear error (exit 2)
 * rather than an origin silently never matching. Throws `OriginSettingError`.
 */
export function checkOriginSettings(corsOrigins: readonly string[], allowedHosts: readonly string[]): void {
  for (const entry of corsOrigins) parseOriginPattern(entry);
  for (const entry of allowedHosts) parseHostPattern(entry);
}

/** Whether a URL host name (as `URL.hostname` gives it) is loopback: `localhost`, 127.0.0.0/8 or [::1]. */
export function isLoopbackHostname(hostname: string): boolean {
  const name = hostname.toLowerCase();
  if (name === 'localhost') return true;
  if (isIPv4(name)) return name.startsWith('127.');
  if (name.startsWith('[') && name.endsWith(']')) {
    const address = name.slice(1, -1);
    if (address === '::1') return true;
    // IPv4-mapped loopback, which the URL parser writes in hexadecimal (::ffff:7f00:1).
    return /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(address);
  }
  return false;
}

/** Whether a listen address is loopback (`127.0.0.1`, `::1`, `localhost`). */
export function isLoopbackAddress(host: string): boolean {
  return isLoopbackHostname(normalizeHostname(host));
}

/**
 * A value from a request shown in a log line or a message: control characters escaped (so a
 * header cannot forge log lines) and cut to a bounded length.
 */
export function shownValue(value: string, max = MAX_SHOWN): string {
  const cut = value.length > max ? `${value.slice(0, max)}… (${value.length} characters)` : value;
  return escapeControl(cut);
}

/**
 * Reads the subprotocols of an upgrade: the bearer sentinel offered (`10xgraph-bearer` or
 * `agentflow-bearer`), which the answer echoes, and the token in the entry after it (null when
 * none was sent).
 */
export function readWebSocketProtocols(header: string | undefined): { sentinel: string | undefined; token: string | null } {
  const items = (header ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  const at = items.findIndex((item) => item === WS_BEARER_PROTOCOL || item === WS_LEGACY_BEARER_PROTOCOL);
  if (at === -1) return { sentinel: undefined, token: null };
  return { sentinel: items[at], token: items[at + 1] ?? null };
}

/** An origin's parts, when `value` is a serialised http(s) origin and nothing more. */
function parseOrigin(value: string): { scheme: string; hostname: string; port: string } | undefined {
  // scheme://host[:port] and at most a trailing slash: no credentials, path, query or fragment.
  if (!/^https?:\/\/[^/?#@\\\s]+\/?$/i.test(value)) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.username || url.password || url.hostname === '') return undefined;
  return { scheme: url.protocol.slice(0, -1), hostname: url.hostname, port: url.port };
}

function matchesPattern(pattern: OriginPattern, origin: { scheme: string; hostname: string; port: string }): boolean {
  return pattern.scheme === origin.scheme && pattern.hostname === origin.hostname && (pattern.port === undefined || pattern.port === origin.port);
}

/** Parses one `--cors-origin` entry: `http(s)://host[:port]` or `http(s)://host:*` (any port). */
function parseOriginPattern(entry: string): OriginPattern {
  const bad = (why: string) =>
    new OriginSettingError(
      `The allowed origin '${shownValue(entry)}' (--cors-origin or TENXGRAPH_CORS_ORIGINS) ${why}; give origins such as http://localhost:5173 or https://app.example.com, comma-separated in the variable.`,
    );
  if (entry === '*') throw bad('would let every web page drive this server and is not accepted');
  if (entry === 'null') throw bad('is the origin of sandboxed frames and files, which anyone can make, and is not accepted');
  const anyPort = /:\*\/?$/.test(entry);
  const parsed = parseOrigin(anyPort ? entry.replace(/:\*(\/?)$/, '$1') : entry);
  if (!parsed) throw bad('is not an http or https origin (scheme, host and port only, no path)');
  return { scheme: parsed.scheme, hostname: parsed.hostname, port: anyPort ? undefined : parsed.port };
}

/** Parses one `--allowed-host` entry: a host name or address, `.example.com` for the domain and its subdomains. */
function parseHostPattern(entry: string): HostPattern {
  const subdomains = entry.startsWith('.');
  const name = subdomains ? entry.slice(1) : entry;
  const hostname = /^[A-Za-z0-9.-]+$|^\[[0-9A-Fa-f:.]+\]$|^[0-9A-Fa-f:.]+$/.test(name) ? normalizeHostname(name) : undefined;
  if (!hostname || hostname === '' || (subdomains && isAddress(hostname))) {
    throw new OriginSettingError(
      `The allowed host '${shownValue(entry)}' (--allowed-host or TENXGRAPH_ALLOWED_HOSTS) is not a host name; give a name such as api.example.com (no scheme or port), or .example.com for a domain and its subdomains.`,
    );
  }
  return { name: hostname, subdomains };
}

/** A host name or address as `URL.hostname` writes it (lower case, IPv6 in brackets, IPv4 canonical). */
function normalizeHostname(host: string): string {
  const bracketed = isIP(host) === 6 ? `[${host}]` : host;
  try {
    return new URL(`http://${bracketed}/`).hostname;
  } catch {
    return '';
  }
}

/** The host name of a `Host` header (`name[:port]`, `[v6][:port]`), or undefined when it is not one. */
function hostnameOfHostHeader(value: string): string | undefined {
  // Strict grammar first: '@', '/', '\\' and the like would make the URL parser read another host.
  if (!/^(?:[A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/.test(value)) return undefined;
  try {
    return new URL(`http://${value}/`).hostname;
  } catch {
    return undefined;
  }
}

function isAddress(hostname: string): boolean {
  return isIPv4(hostname) || (hostname.startsWith('[') && hostname.endsWith(']'));
}
