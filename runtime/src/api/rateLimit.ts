/**
 * Request limits of `10xgraph api`, read from the `rate_limit` section of 10xgraph.json as the
 * 10xGraph server reads it: a sliding window of `requests` per `window` seconds for each key (the
 * client address, the user, or one key for everyone), counted in this process (`memory`) or in a
 * Redis that every process of the service shares (`redis`).
 *
 * The pieces are pure where they can be: the settings reader, the client address behind trusted
 * proxies, the key, the excluded paths and the answers are functions of their arguments; the two
 * limiters hold the counts. A limiter never throws on a hit: a Redis that is down or slow gives a
 * `failed` verdict within about a second, and the caller decides, with `fail_open`, whether the
 * request goes through (`decisionOnFailure`).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { BlockList, isIP } from 'node:net';
import type { Redis as RedisClient, RedisOptions } from 'ioredis';
import { isIpNetwork, isPythonSpace, pythonBool, pythonInt, pythonStrip } from '../rules/python';
import { loadCrypto } from './lazy';
import { shownValue } from './origin';
import { loadPeer } from '../peers';

/** What a limit counts per: the client address, the authenticated user, or all requests together. */
export type RateLimitBy = 'ip' | 'user' | 'global';

/** Where the counts are kept. */
export type RateLimitBackend = 'memory' | 'redis';

/** The `rate_limit` section as the server applies it (its fields in camelCase). */
export interface RateLimitSettings {
  /** Always true in settings returned by `readRateLimitSettings`, which returns none when limits are off. */
  enabled: boolean;
  /** How many requests one key may make per window (at least 1). */
  requests: number;
  /** The length of the sliding window in seconds (`window` in the file; at least 1). */
  windowSeconds: number;
  by: RateLimitBy;
  backend: RateLimitBackend;
  /** Request paths never limited, compared exactly; `/ping` is never limited either. */
  excludePaths: readonly string[];
  /** Whether the client address is read from `X-Forwarded-For` (from trusted peers only). */
  trustedProxyHeaders: boolean;
  /** How many entries of `X-Forwarded-For`, counted from the right, the proxies of the service wrote (at least 1). */
  trustedProxyHops: number;
  /** The addresses and networks (`10.0.0.0/8`) `X-Forwarded-For` is believed from; empty: from any peer. */
  trustedProxies: readonly string[];
  /** Whether requests go through when the backend fails (false refuses them). */
  failOpen: boolean;
  /** The Redis of the `redis` backend: its URL (`$VAR` and `${VAR}` expanded) and the prefix of its keys. */
  redis: { url: string | undefined; prefix: string };
}

/** A value of the `rate_limit` section that cannot be used; `field` names it (`rate_limit.window`). */
export class RateLimitSettingError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'RateLimitSettingError';
  }
}

/** The key prefix of the Redis backend when the file names none. */
export const DEFAULT_REDIS_PREFIX = '10xgraph:rate-limit';

/** The path that is never limited: health checks must not be refused, nor fail closed. */
const HEALTH_CHECK_PATH = '/ping';

/**
 * The largest count and window used. The file's integers are unbounded (Python's), but a count
 * beyond 2^53 is no limit at all, and a window beyond 10^12 seconds (some 30,000 years) is as
 * long as any; capping them keeps milliseconds exact and Redis expiry times valid.
 */
const MAX_REQUESTS = Number.MAX_SAFE_INTEGER;
const MAX_WINDOW_SECONDS = 1e12;

/** Redis URL schemes the server's Redis client takes. */
const REDIS_SCHEMES = new Set(['redis:', 'rediss:', 'unix:']);

/**
 * Reads the `rate_limit` section (`section`, as parsed from the file) with the environment `env`
 * for `$VAR` in the Redis URL. Undefined when the section is absent, `null`, or `"enabled"` is
 * false; every field is judged even then, as the server does at start-up. Throws
 * `RateLimitSettingError` for a value the server refuses, and for what this server cannot apply:
 * the `custom` backend, and the `redis` backend without a URL.
 */
export function readRateLimitSettings(section: unknown, env: NodeJS.ProcessEnv): RateLimitSettings | undefined {
  if (section === undefined || section === null) return undefined;
  if (typeof section !== 'object' || Array.isArray(section)) {
    throw new RateLimitSettingError('rate_limit', `"rate_limit" in 10xgraph.json must be an object such as {"requests": 100, "window": 60}, not ${describe(section)}.`);
  }
  const data = section as Record<string, unknown>;
  const has = (key: string) => Object.prototype.hasOwnProperty.call(data, key);
  const field = (key: string, fallback: unknown): unknown => (has(key) ? data[key] : fallback);

  const enabled = readBool('enabled', field('enabled', true));
  const requests = readCount('requests', field('requests', 100), MAX_REQUESTS);
  const windowSeconds = readCount('window', field('window', 60), MAX_WINDOW_SECONDS);
  const trustedProxyHeaders = readBool('trusted_proxy_headers', field('trusted_proxy_headers', false));
  const trustedProxyHops = readCount('trusted_proxy_hops', field('trusted_proxy_hops', 1), Number.MAX_SAFE_INTEGER);
  const failOpen = readBool('fail_open', field('fail_open', true));
  const excludePaths = readList('exclude_paths', field('exclude_paths', []), 'a list of paths such as ["/ping", "/docs"]').map(pythonStr);
  const trustedProxies = readNetworks(field('trusted_proxies', []));
  const redis = readRedis(field('redis', undefined), env);
  const by = field('by', 'ip');
  if (by !== 'ip' && by !== 'user' && by !== 'global') {
    throw new RateLimitSettingError('rate_limit.by', `"rate_limit.by" in 10xgraph.json must be "ip", "user" or "global" (compared exactly), not ${describe(by)}.`);
  }
  const backend = field('backend', 'memory');
  if (backend !== 'memory' && backend !== 'redis' && backend !== 'custom') {
    throw new RateLimitSettingError('rate_limit.backend', `"rate_limit.backend" in 10xgraph.json must be "memory" or "redis", not ${describe(backend)}.`);
  }
  if (!enabled) return undefined;
  // What follows is judged by the server when it builds the backend, which it does only with limits on.
  if (backend === 'custom') {
    throw new RateLimitSettingError(
      'rate_limit.backend',
      '"rate_limit.backend" is "custom", a BaseRateLimitBackend object bound in the InjectQ container of the Python server, which 10xgraph api cannot load; use "memory" or "redis".',
    );
  }
  if (backend === 'redis') checkRedisUrl(redis.url);
  return { enabled, requests, windowSeconds, by, backend, excludePaths, trustedProxyHeaders, trustedProxyHops, trustedProxies, failOpen, redis };
}

/** A switch: a boolean or one of the words 1/true/yes/on/0/false/no/off. */
function readBool(key: string, value: unknown): boolean {
  const read = pythonBool(value);
  if (read !== undefined) return read;
  throw new RateLimitSettingError(
    `rate_limit.${key}`,
    `"rate_limit.${key}" in 10xgraph.json must be true or false (or one of the strings "1", "true", "yes", "on", "0", "false", "no", "off"), not ${describe(value)}.`,
  );
}

/** A count of at least 1, read as Python's `int()` reads it, capped at `max`. */
function readCount(key: string, value: unknown, max: number): number {
  const read = pythonInt(value);
  if (read === undefined) {
    throw new RateLimitSettingError(`rate_limit.${key}`, `"rate_limit.${key}" in 10xgraph.json must be an integer such as 60, not ${describe(value)}.`);
  }
  if (read < 1) throw new RateLimitSettingError(`rate_limit.${key}`, `"rate_limit.${key}" in 10xgraph.json must be at least 1, not ${describe(value)}.`);
  return Math.min(read, max);
}

/** A list, as the server takes it (a JSON array). */
function readList(key: string, value: unknown, expected: string): unknown[] {
  if (Array.isArray(value)) return value;
  throw new RateLimitSettingError(`rate_limit.${key}`, `"rate_limit.${key}" in 10xgraph.json must be ${expected}, not ${describe(value)}.`);
}

/** `trusted_proxies`: each item an IP address or network, white space around it dropped. */
function readNetworks(value: unknown): string[] {
  const items = readList('trusted_proxies', value, 'a list of IP addresses or networks such as ["10.0.0.0/8"]');
  return items.map((item) => {
    const text = pythonStrip(pythonStr(item));
    if (!isIpNetwork(text) || networkOf(text) === undefined) {
      throw new RateLimitSettingError(
        'rate_limit.trusted_proxies',
        `"rate_limit.trusted_proxies" in 10xgraph.json holds ${describe(item)}, which is not an IP address or network; write one such as "10.0.0.1" or "10.0.0.0/8".`,
      );
    }
    return text;
  });
}

/** `redis`: a URL string, or `{url, prefix}`; an empty value (`null`, `""`, `{}`, …) names none. */
function readRedis(value: unknown, env: NodeJS.ProcessEnv): RateLimitSettings['redis'] {
  if (!pythonTruthy(value)) return { url: undefined, prefix: DEFAULT_REDIS_PREFIX };
  if (typeof value === 'string') return { url: expandEnv('rate_limit.redis', value, env), prefix: DEFAULT_REDIS_PREFIX };
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new RateLimitSettingError(
      'rate_limit.redis',
      `"rate_limit.redis" in 10xgraph.json must be a Redis URL string or an object {"url": ..., "prefix": ...}, not ${describe(value)}.`,
    );
  }
  const object = value as Record<string, unknown>;
  const rawUrl = object.url;
  let url: string | undefined;
  if (pythonTruthy(rawUrl)) {
    if (typeof rawUrl !== 'string') {
      throw new RateLimitSettingError(
        'rate_limit.redis.url',
        `"rate_limit.redis.url" in 10xgraph.json must be a string such as "redis://localhost:6379/0", not ${describe(rawUrl)}.`,
      );
    }
    url = expandEnv('rate_limit.redis.url', rawUrl, env);
  }
  const prefix = Object.prototype.hasOwnProperty.call(object, 'prefix') ? pythonStr(object.prefix) : DEFAULT_REDIS_PREFIX;
  return { url, prefix };
}

/** A Redis URL the `redis` backend can open. */
function checkRedisUrl(url: string | undefined): void {
  if (url === undefined) {
    throw new RateLimitSettingError(
      'rate_limit.redis',
      'The "redis" rate-limit backend has no URL: set "rate_limit.redis" in 10xgraph.json to one such as "redis://localhost:6379/0" or "${REDIS_URL}".',
    );
  }
  let scheme: string | undefined;
  try {
    scheme = new URL(url).protocol.toLowerCase();
  } catch {
    scheme = undefined;
  }
  if (scheme === undefined || !REDIS_SCHEMES.has(scheme)) {
    throw new RateLimitSettingError(
      'rate_limit.redis.url',
      `The Redis URL of the rate limits (${shownValue(redactUrl(url))}) must start with redis://, rediss:// or unix://, as in "redis://localhost:6379/0".`,
    );
  }
}

/** One `$NAME` or `${NAME}`, as Python's `os.path.expandvars` finds them (ASCII word characters). */
const ENV_REFERENCE = /\$(\w+|\{[^}]*\})/g;

/**
 * `$NAME` and `${NAME}` replaced from `env`, unknown ones left as written (`os.path.expandvars`);
 * a value left whole that starts with `$` or holds `${` names no variable that is set, and is refused.
 */
function expandEnv(key: string, value: string, env: NodeJS.ProcessEnv): string {
  if (!value.includes('$')) return value;
  const expanded = value.replace(ENV_REFERENCE, (whole: string, name: string) => {
    const bare = name.startsWith('{') && name.endsWith('}') ? name.slice(1, -1) : name;
    const set = Object.prototype.hasOwnProperty.call(env, bare) ? env[bare] : undefined;
    return set ?? whole;
  });
  if (expanded === value && (value.startsWith('$') || value.includes('${'))) {
    throw new RateLimitSettingError(
      key,
      `"${key}" in 10xgraph.json is ${describe(redactUrl(value))}, which names an environment variable that is not set; set it, or write the URL itself.`,
    );
  }
  return expanded;
}

/** Python's truth test of a JSON value: `null`, `false`, `0`, `""`, `[]` and `{}` are false. */
function pythonTruthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

/** Python's `str()` of a JSON scalar (`None`, `True`, `1.5`); other values as JSON. */
function pythonStr(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return String(value);
  return JSON.stringify(value);
}

/** A value from the file for a message: JSON, control characters escaped, cut to a bounded length. */
function describe(value: unknown): string {
  return shownValue(value === undefined ? 'nothing' : (JSON.stringify(value) ?? String(value)), 80);
}

/**
 * A URL with its password hidden, for messages and logs: the password of its user part, and its
 * query left out whole (ioredis reads a `?password=` there too).
 */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    parsed.search = '';
    return parsed.toString();
  } catch {
    return url.replace(/\/\/[^@/]*@/, '//***@').replace(/\?.*$/s, '');
  }
}

// ---------------------------------------------------------------------------------------------
// The client address and the key.

/**
 * Entries of `X-Forwarded-For` read beyond `trusted_proxy_hops` (blank ones, which the server
 * skips), and the longest entry read: a header shaped otherwise is not what the proxies of the
 * service write, and is ignored for the peer address. They bound the work a header of any size
 * costs to a few kilobytes scanned from its right end.
 */
const MAX_EXTRA_FORWARDED_ENTRIES = 32;
const MAX_FORWARDED_ENTRY_LENGTH = 256;
const COMMA = 0x2c;

/** The networks of each `trustedProxies` list, built once per list. */
const trustedNetworks = new WeakMap<readonly string[], BlockList>();

/**
 * The client address a request is counted by: the peer's address (`peer`, the socket's remote
 * address), unless `X-Forwarded-For` is trusted (`trustedProxyHeaders`) and the peer is one of
 * `trustedProxies` (any peer when the list is empty, as the server does), in which case the entry
 * `trustedProxyHops` from the right of the header's entries (every `X-Forwarded-For` line, in
 * order, blank entries skipped). A header with fewer entries is ignored. An IPv4 peer written as
 * IPv6 (`::ffff:127.0.0.1`, as a server listening on `::` sees it) is its IPv4 address; a peer
 * that is not known is `unknown`.
 */
export function clientAddress(peer: string | undefined, headers: IncomingHttpHeaders, settings: RateLimitSettings): string {
  const address = peerAddress(peer);
  if (!settings.trustedProxyHeaders || !isTrustedProxy(address, peer, settings.trustedProxies)) return address;
  const header = headers['x-forwarded-for'];
  if (header === undefined) return address;
  const lines = typeof header === 'string' ? [header] : header;
  return forwardedEntry(lines, Math.max(1, settings.trustedProxyHops)) ?? address;
}

/** The peer's address as a key: IPv4-mapped IPv6 as IPv4, `unknown` when there is none. */
function peerAddress(peer: string | undefined): string {
  if (peer === undefined || peer === '') return 'unknown';
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(peer);
  return mapped && isIP(mapped[1]) === 4 ? mapped[1] : peer;
}

/** Whether `address` (`original` as the socket wrote it) is a peer whose `X-Forwarded-For` is believed. */
function isTrustedProxy(address: string, original: string | undefined, proxies: readonly string[]): boolean {
  if (proxies.length === 0) return true;
  let networks = trustedNetworks.get(proxies);
  if (!networks) {
    networks = new BlockList();
    for (const entry of proxies) {
      const network = networkOf(entry);
      if (network) networks.addSubnet(network.address, network.prefix, network.family);
    }
    trustedNetworks.set(proxies, networks);
  }
  for (const candidate of [address, original]) {
    if (candidate === undefined) continue;
    const bare = withoutZone(candidate);
    const family = isIP(bare);
    if (family !== 0 && networks.check(bare, family === 4 ? 'ipv4' : 'ipv6')) return true;
  }
  return false;
}

/** An address or network (`10.0.0.1`, `10.0.0.0/8`, `10.0.0.0/255.0.0.0`, `fd00::/8`) as a subnet, or undefined. */
function networkOf(text: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | undefined {
  const slash = text.indexOf('/');
  const address = withoutZone(slash < 0 ? text : text.slice(0, slash));
  const mask = slash < 0 ? undefined : text.slice(slash + 1);
  const family = isIP(address);
  if (family === 0) return undefined;
  const bits = family === 4 ? 32 : 128;
  if (mask === undefined) return { address, prefix: bits, family: family === 4 ? 'ipv4' : 'ipv6' };
  let prefix: number | undefined;
  if (/^\d+$/.test(mask)) prefix = Number(mask);
  else if (family === 4 && isIP(mask) === 4) {
    // A netmask (ones, then zeros) or a host mask (zeros, then ones), as Python's ipaddress reads them.
    const binary = mask
      .split('.')
      .map((octet) => Number(octet).toString(2).padStart(8, '0'))
      .join('');
    if (/^1*0*$/.test(binary)) prefix = binary.indexOf('0') < 0 ? 32 : binary.indexOf('0');
    else if (/^0*1*$/.test(binary)) prefix = binary.indexOf('1');
  }
  if (prefix === undefined || prefix > bits) return undefined;
  return { address, prefix, family: family === 4 ? 'ipv4' : 'ipv6' };
}

/** An IPv6 address without its `%zone`. */
function withoutZone(address: string): string {
  const percent = address.indexOf('%');
  return percent < 0 ? address : address.slice(0, percent);
}

/**
 * The entry `hops` from the right of the comma-separated entries of `lines` (blank ones skipped,
 * white space around each dropped), read from the right end; undefined when there are fewer, or
 * when the header is not shaped as proxies write it (an entry longer than an address can be, or
 * more blank entries than `MAX_EXTRA_FORWARDED_ENTRIES`).
 */
function forwardedEntry(lines: readonly string[], hops: number): string | undefined {
  let found = 0;
  let read = 0;
  for (let l = lines.length - 1; l >= 0; l--) {
    const line = lines[l];
    let end = line.length;
    while (end >= 0) {
      const floor = end - MAX_FORWARDED_ENTRY_LENGTH - 1;
      let comma = end - 1;
      while (comma >= 0 && comma >= floor && line.charCodeAt(comma) !== COMMA) comma--;
      if (comma >= 0 && comma < floor) return undefined;
      if (++read > hops + MAX_EXTRA_FORWARDED_ENTRIES) return undefined;
      const entry = trimmedSlice(line, comma + 1, end);
      if (entry !== '' && ++found === hops) return entry;
      end = comma < 0 ? -1 : comma;
    }
  }
  return undefined;
}

/** `line.slice(start, end)` without the white space around it (Python's `strip()`). */
function trimmedSlice(line: string, start: number, end: number): string {
  while (start < end && isPythonSpace(line.charCodeAt(start))) start++;
  while (end > start && isPythonSpace(line.charCodeAt(end - 1))) end--;
  return line.slice(start, end);
}

/**
 * The key a request is counted under: `__global__` for `by: "global"`; for `by: "user"`,
 * `user:ID` with the verified user's id, else `ip:ADDRESS` (a request without a user is counted
 * by its address, never in one bucket shared by all of them); for `by: "ip"`, the client address.
 */
export function rateLimitKey(settings: RateLimitSettings, peer: string | undefined, headers: IncomingHttpHeaders, userId?: string): string {
  if (settings.by === 'global') return '__global__';
  if (settings.by === 'user') return userId ? `user:${userId}` : `ip:${clientAddress(peer, headers, settings)}`;
  return clientAddress(peer, headers, settings);
}

/**
 * The id a `by: "user"` limit counts a verified user by: the user's `user_id` as text, when it is
 * set and not empty (`0`, `false` and `""` are none, as the server reads them); else undefined, and
 * the request is counted by its address. A credential that does not verify has no user.
 */
export function rateLimitUserId(user: unknown): string | undefined {
  if (user === null || typeof user !== 'object' || Array.isArray(user)) return undefined;
  const id = (user as Record<string, unknown>).user_id;
  return pythonTruthy(id) ? pythonStr(id) : undefined;
}

/** The excluded paths of each `excludePaths` list, as a set built once per list. */
const excludedSets = new WeakMap<readonly string[], ReadonlySet<string>>();

/** Whether a request path is never limited: `/ping`, or one of `excludePaths` exactly (no prefix, no decoding). */
export function isExcluded(pathname: string, settings: RateLimitSettings): boolean {
  if (pathname === HEALTH_CHECK_PATH) return true;
  let set = excludedSets.get(settings.excludePaths);
  if (!set) {
    set = new Set(settings.excludePaths);
    excludedSets.set(settings.excludePaths, set);
  }
  return set.has(pathname);
}

// ---------------------------------------------------------------------------------------------
// Limiters.

/** What a limiter decided for one request. */
export interface RateLimitDecision {
  failed: false;
  /** Whether the request goes through (it was counted then). */
  allowed: boolean;
  /** The requests allowed per window. */
  limit: number;
  /** The window, in seconds. */
  windowSeconds: number;
  /** The requests left in the window after this one (0 when refused). */
  remaining: number;
  /** Seconds until the window frees a request (`X-RateLimit-Reset-After`): the window when allowed. */
  resetSeconds: number;
  /** Seconds to wait before trying again (`Retry-After`): 0 when allowed. */
  retryAfterSeconds: number;
}

/** The backend could not decide (Redis down, slow or refusing the script). */
export interface RateLimitFailure {
  failed: true;
  error: RateLimitBackendError;
}

/** A limiter's answer for one request. */
export type RateLimitVerdict = RateLimitDecision | RateLimitFailure;

/** Why a backend could not decide, in a sentence for the log. */
export class RateLimitBackendError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RateLimitBackendError';
  }
}

/** Counts requests per key. */
export interface RateLimiter {
  readonly backend: RateLimitBackend;
  /** Counts a request of `key` when the window allows it; never throws (a broken backend gives a failure). */
  hit(key: string): Promise<RateLimitVerdict>;
  /** Releases the backend (the Redis connection); hits after it fail. */
  close(): Promise<void>;
}

/** Options of the limiters, for tests and for servers with other needs. */
export interface RateLimiterOptions {
  /** The memory backend's clock, in milliseconds, never going back (default `performance.now()`). */
  now?: () => number;
  /** Most keys the memory backend keeps (default 50,000): past it the key seen longest ago is dropped. */
  maxKeys?: number;
  /** Longest a Redis command or connection attempt may take, in milliseconds (default 1000). */
  redisTimeoutMs?: number;
}

/**
 * The limiter of `settings.backend`. The Redis one is connected (or given up on for now) before
 * it resolves; it reconnects by itself when Redis comes back. Throws `RateLimitSettingError` when
 * the Redis URL cannot be used.
 */
export async function createRateLimiter(settings: RateLimitSettings, options: RateLimiterOptions = {}): Promise<RateLimiter> {
  return settings.backend === 'redis' ? createRedisRateLimiter(settings, options) : createMemoryRateLimiter(settings, options);
}

/** The verdict of a backend that failed, as the server turns it into a decision: allowed (`fail_open`), else refused for a window. */
export function decisionOnFailure(settings: RateLimitSettings): RateLimitDecision {
  const windowSeconds = settings.windowSeconds;
  return settings.failOpen
    ? { failed: false, allowed: true, limit: settings.requests, windowSeconds, remaining: 0, resetSeconds: windowSeconds, retryAfterSeconds: 0 }
    : { failed: false, allowed: false, limit: settings.requests, windowSeconds, remaining: 0, resetSeconds: windowSeconds, retryAfterSeconds: windowSeconds };
}

/** A change of a backend's health, for one log line per outage rather than one per request. */
export type OutageChange = 'down' | 'up';

/** Watches a limiter's verdicts for the start and the end of an outage. */
export interface OutageWatch {
  /** `down` at the first failure after answers, `up` at the first answer after failures, else undefined. */
  observe(verdict: RateLimitVerdict): OutageChange | undefined;
}

/** A watch that starts with the backend up. */
export function createOutageWatch(): OutageWatch {
  let down = false;
  return {
    observe(verdict) {
      if (verdict.failed === down) return undefined;
      down = verdict.failed;
      return down ? 'down' : 'up';
    },
  };
}

/** The request times of one key, oldest first, in a ring that grows up to the limit; a link of the list of keys by last use. */
class Bucket {
  private times: Float64Array;
  private start = 0;
  count = 0;
  /** The key seen just before this one, and just after. */
  older: Bucket | undefined;
  newer: Bucket | undefined;

  constructor(
    readonly key: string,
    public lastSeen: number,
    private readonly capacity: number,
  ) {
    this.times = new Float64Array(Math.min(capacity, 4));
  }

  oldest(): number {
    return this.times[this.start];
  }

  /** Drops the times before `cutoff`. */
  dropBefore(cutoff: number): void {
    while (this.count > 0 && this.times[this.start] < cutoff) {
      this.start = (this.start + 1) % this.times.length;
      this.count--;
    }
  }

  push(time: number): void {
    if (this.count === this.times.length) this.grow();
    this.times[(this.start + this.count) % this.times.length] = time;
    this.count++;
  }

  private grow(): void {
    const next = new Float64Array(Math.min(this.capacity, this.times.length * 2));
    for (let i = 0; i < this.count; i++) next[i] = this.times[(this.start + i) % this.times.length];
    this.times = next;
    this.start = 0;
  }
}

/** Stale keys dropped per hit beyond the one counted, so that no hit pays for a long sweep. */
const EVICTIONS_PER_HIT = 8;

/**
 * The `memory` backend: a sliding window of request times per key, in this process. A request is
 * allowed while fewer than `requests` times lie within the last `window` seconds, and its time is
 * recorded; a refused one is not recorded. Keys whose times have all expired are dropped as hits
 * go by; beyond `maxKeys` keys the one seen longest ago is dropped, so that a flood of made-up
 * addresses costs a bounded amount of memory. Every hit costs the same few steps, however many keys.
 */
export function createMemoryRateLimiter(settings: RateLimitSettings, options: RateLimiterOptions = {}): RateLimiter {
  const now = options.now ?? (() => performance.now());
  const maxKeys = Math.max(1, options.maxKeys ?? 50_000);
  const limit = settings.requests;
  const windowSeconds = settings.windowSeconds;
  const windowMs = windowSeconds * 1000;
  const buckets = new Map<string, Bucket>();
  // The keys by last use, a list linked through the buckets: the one seen longest ago first.
  let first: Bucket | undefined;
  let last: Bucket | undefined;

  function unlink(bucket: Bucket): void {
    if (bucket.older) bucket.older.newer = bucket.newer;
    else first = bucket.newer;
    if (bucket.newer) bucket.newer.older = bucket.older;
    else last = bucket.older;
    bucket.older = bucket.newer = undefined;
  }

  function append(bucket: Bucket): void {
    bucket.older = last;
    if (last) last.newer = bucket;
    else first = bucket;
    last = bucket;
  }

  function drop(bucket: Bucket): void {
    unlink(bucket);
    buckets.delete(bucket.key);
  }

  /** Drops keys not seen for a window (all their times have expired), at most `most` of them. */
  function evictStale(at: number, most: number): void {
    while (first && most-- > 0 && first.lastSeen < at - windowMs) drop(first);
  }

  return {
    backend: 'memory',
    hit(key) {
      const at = now();
      evictStale(at, EVICTIONS_PER_HIT);
      let bucket = buckets.get(key);
      if (bucket) unlink(bucket);
      else {
        if (buckets.size >= maxKeys) evictStale(at, Infinity);
        if (buckets.size >= maxKeys && first) drop(first);
        bucket = new Bucket(key, at, limit);
        buckets.set(key, bucket);
      }
      bucket.lastSeen = at;
      append(bucket);
      bucket.dropBefore(at - windowMs);
      if (bucket.count >= limit) {
        const resetSeconds = Math.max(1, Math.floor((bucket.oldest() + windowMs - at) / 1000) + 1);
        return Promise.resolve({ failed: false, allowed: false, limit, windowSeconds, remaining: 0, resetSeconds, retryAfterSeconds: resetSeconds });
      }
      bucket.push(at);
      return Promise.resolve({ failed: false, allowed: true, limit, windowSeconds, remaining: limit - bucket.count, resetSeconds: windowSeconds, retryAfterSeconds: 0 });
    },
    close() {
      buckets.clear();
      first = last = undefined;
      return Promise.resolve();
    },
  };
}

/**
 * One hit, atomically, on a sorted set of request times (milliseconds, Redis's own clock, so that
 * every process agrees): expired times are removed, the request is added when fewer than the
 * limit remain, and the key expires a second after its window. Replies `{allowed, remaining,
 * seconds until reset}`. KEYS[1] the key; ARGV the limit, the window in ms, a unique member.
 */
const HIT_SCRIPT = `
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
local seconds = math.ceil(window / 1000)
if count < limit then
  redis.call('ZADD', key, now, ARGV[3])
  redis.call('EXPIRE', key, seconds + 1)
  return {1, limit - count - 1, seconds}
end
local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
local reset = seconds
if first[2] then reset = math.ceil((tonumber(first[2]) + window - now) / 1000) + 1 end
if reset < 1 then reset = 1 end
return {0, 0, reset}
`;

/**
 * The `redis` backend: the same sliding window, in Redis, under `PREFIX:KEY`, so that every
 * process using the same Redis and prefix shares one count per key. Each hit is one script run
 * (EVALSHA, and EVAL when Redis does not hold the script). Commands are not queued while Redis is
 * unreachable and time out after `redisTimeoutMs`, so a hit fails within about a second; the
 * client reconnects by itself, and hits succeed again once Redis is back.
 */
export async function createRedisRateLimiter(settings: RateLimitSettings, options: RateLimiterOptions = {}): Promise<RateLimiter> {
  const url = settings.redis.url;
  checkRedisUrl(url);
  const timeoutMs = options.redisTimeoutMs ?? 1000;
  const shown = shownValue(redactUrl(url!));
  const limit = settings.requests;
  const windowSeconds = settings.windowSeconds;
  const crypto = loadCrypto();
  const sha = crypto.createHash('sha1').update(HIT_SCRIPT).digest('hex');
  const client = openRedis(url!, {
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    // Reconnect soon after Redis is back, whatever the length of the outage.
    retryStrategy: (times) => Math.min(times * 100, 1000),
    protocol: 2,
  });
  let connectionError: string | undefined;
  client.on('error', (error: Error) => {
    connectionError = describeRedisError(error);
  });
  client.on('ready', () => {
    connectionError = undefined;
  });
  await firstConnection(client, timeoutMs);

  async function run(key: string, member: string): Promise<unknown> {
    const args = [String(limit), String(windowSeconds * 1000), member];
    try {
      return await client.evalsha(sha, 1, key, ...args);
    } catch (error) {
      if (!String((error as Error | undefined)?.message).startsWith('NOSCRIPT')) throw error;
      return await client.eval(HIT_SCRIPT, 1, key, ...args);
    }
  }

  let closed = false;
  return {
    backend: 'redis',
    async hit(key) {
      if (closed) return { failed: true, error: new RateLimitBackendError(`The rate limiter's Redis connection (${shown}) is closed.`) };
      try {
        const reply = await run(`${settings.redis.prefix}:${key}`, crypto.randomUUID());
        if (!Array.isArray(reply) || reply.length < 3) throw new Error(`the hit script answered ${shownValue(JSON.stringify(reply) ?? String(reply))}`);
        const [allowed, remaining, reset] = reply.map(Number);
        return allowed === 1
          ? { failed: false, allowed: true, limit, windowSeconds, remaining, resetSeconds: reset, retryAfterSeconds: 0 }
          : { failed: false, allowed: false, limit, windowSeconds, remaining: 0, resetSeconds: reset, retryAfterSeconds: reset };
      } catch (error) {
        const reason = client.status === 'ready' ? describeRedisError(error) : (connectionError ?? `the connection is ${client.status}`);
        return { failed: true, error: new RateLimitBackendError(`The Redis of the rate limits (${shown}) did not answer: ${reason}.`, { cause: error }) };
      }
    },
    close() {
      closed = true;
      client.disconnect();
      return Promise.resolve();
    },
  };
}

/** A Redis client for `url` (ioredis, an optional peer, loaded only by a server that limits with Redis). */
function openRedis(url: string, options: RedisOptions): RedisClient {
  const { Redis } = loadPeer('ioredis', 'rate limits in Redis need the package ioredis', () => require('ioredis') as typeof import('ioredis'));
  if (url.toLowerCase().startsWith('unix:')) {
    // A socket path: unix:///run/redis.sock?db=1&password=…, as the server's Redis client reads it.
    const parsed = new URL(url);
    const db = Number(parsed.searchParams.get('db') ?? '0');
    return new Redis({
      ...options,
      path: decodeURIComponent(parsed.pathname),
      db: Number.isInteger(db) ? db : 0,
      username: parsed.username ? decodeURIComponent(parsed.username) : (parsed.searchParams.get('username') ?? undefined),
      password: parsed.password ? decodeURIComponent(parsed.password) : (parsed.searchParams.get('password') ?? undefined),
    });
  }
  return new Redis(url, options);
}

/** Resolves once the client is ready, has failed once, or `timeoutMs` passed: start-up never waits longer for Redis. */
function firstConnection(client: RedisClient, timeoutMs: number): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      client.off('ready', done);
      client.off('error', done);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    client.once('ready', done);
    client.once('error', done);
  });
}

/** A Redis or connection error in a few words (`ECONNREFUSED`, `Command timed out`). */
function describeRedisError(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return shownValue(typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message, 200);
}

// ---------------------------------------------------------------------------------------------
// Answers.

/** The body of a refused request (429): the server's own shape, not the standard error envelope. */
export interface RateLimitedBody {
  error: { code: 'RATE_LIMIT_EXCEEDED'; message: string; limit: number; window_seconds: number; retry_after_seconds: number };
  metadata: { request_id: string; status: 'error' };
}

/** The body of the 429 answer to a refused request. */
export function rateLimitedBody(decision: RateLimitDecision, requestId: string): RateLimitedBody {
  const retry = decision.retryAfterSeconds;
  return {
    error: {
      code: 'RATE_LIMIT_EXCEEDED',
      message: `Too many requests. Limit: ${decision.limit} per ${decision.windowSeconds}s. Retry after ${retry}s.`,
      limit: decision.limit,
      window_seconds: decision.windowSeconds,
      retry_after_seconds: retry,
    },
    metadata: { request_id: requestId, status: 'error' },
  };
}

/**
 * The headers of an answer under limits: `X-RateLimit-Limit`, `-Remaining`, `-Reset` (the Unix
 * time, in seconds, the window frees a request) and `-Reset-After` on every limited answer, and
 * `Retry-After` first on a refusal (429). `nowMs` is the wall clock (default `Date.now()`).
 */
export function rateLimitHeaders(decision: RateLimitDecision, nowMs = Date.now()): Record<string, string> {
  const resetAt = Math.floor(nowMs / 1000) + decision.resetSeconds;
  return {
    ...(decision.allowed ? {} : { 'Retry-After': String(decision.retryAfterSeconds) }),
    'X-RateLimit-Limit': String(decision.limit),
    'X-RateLimit-Remaining': String(decision.allowed ? decision.remaining : 0),
    'X-RateLimit-Reset': String(resetAt),
    'X-RateLimit-Reset-After': String(decision.resetSeconds),
  };
}
