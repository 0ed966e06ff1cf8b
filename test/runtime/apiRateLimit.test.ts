/**
 * Request limits and WebSocket caps as the server applies them (`rate_limit`, `websocket`); the
 * limiter's own arithmetic is rateLimit.test.ts's. Here:
 *
 * - HTTP against `createApiServer` with a memory limiter: X-RateLimit-* on answers, the real
 *   server's 429 body with Retry-After, `/ping` and `exclude_paths` never counted, a path without a
 *   route counted, exact counts under concurrent requests.
 * - `X-Forwarded-For`: ignored unless trusted and from a trusted peer; the entry `trusted_proxy_hops`
 *   from the right otherwise, so rotating the spoofable entries buys nothing.
 * - `by: "user"` with JWT: one budget per user; a token that does not verify is counted by address.
 * - Redis (a real redis-server): two servers, then two real `10xgraph api` processes, sharing one
 *   limit exactly; Redis down with `fail_open` true (served, one warning) and false (429 for a
 *   window); Redis back on the same port (limits again, one line saying so).
 * - WebSockets: handshakes and runs counted in the same bucket (close 1013, an error chunk then
 *   `done`); caps on open sockets in all and per user (close 1013), and through the CLI, a cap of 1
 *   and an unusable `websocket` setting (the server starts, every handshake closes 1011).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import WebSocket from 'ws';
import { customAuthenticator, jwtAuthenticator } from '../../runtime/src/api/auth';
import type { ApiLogger } from '../../runtime/src/api/log';
import { createMemoryRateLimiter, createRateLimiter, readRateLimitSettings, type RateLimiter, type RateLimitSettings } from '../../runtime/src/api/rateLimit';
import { createApiServer, type ApiServer, type ApiServerOptions } from '../../runtime/src/api/server';
import { ApiProcess } from '../hardening/netSupport/apiProcess';
import { bearerHeader, makeJwtSecret, signJwt } from '../support/jwt';
import { poll } from '../support/poll';
import { TestRedis } from '../support/redis';
import { buildTestGraph, collectMessages, isDone, joinLastText, ROOT, userText, WsSession } from './serverHelpers';

const quiet: ApiLogger = { info() {}, warn() {}, error() {} };
/** The test graph's reply to "hello". */
const TEST_REPLY = 'No tool needed.';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Settings read from a `rate_limit` section, which must turn limits on. */
function settingsOf(section: Record<string, unknown>, env: NodeJS.ProcessEnv = {}): RateLimitSettings {
  const settings = readRateLimitSettings(section, env);
  assert.ok(settings, 'the section turns limits off');
  return settings;
}

/** A limiter that records the key of every hit before its inner limiter counts it. */
function recording(inner: RateLimiter): RateLimiter & { keys: string[] } {
  const keys: string[] = [];
  return {
    backend: inner.backend,
    keys,
    hit(key) {
      keys.push(key);
      return inner.hit(key);
    },
    close: () => inner.close(),
  };
}

/** The limits of `section` with a memory limiter that records its keys. */
function memoryLimit(section: Record<string, unknown>): { settings: RateLimitSettings; limiter: RateLimiter & { keys: string[] } } {
  const settings = settingsOf(section);
  return { settings, limiter: recording(createMemoryRateLimiter(settings)) };
}

/** A log that keeps its lines, by level. */
function capturingLog(): ApiLogger & { lines: Array<{ level: string; text: string }>; count(level: string, pattern: RegExp): number } {
  const lines: Array<{ level: string; text: string }> = [];
  return {
    lines,
    info: (text) => void lines.push({ level: 'info', text }),
    warn: (text) => void lines.push({ level: 'warn', text }),
    error: (text) => void lines.push({ level: 'error', text }),
    count: (level, pattern) => lines.filter((line) => line.level === level && pattern.test(line.text)).length,
  };
}

/** Servers made by a suite, closed after it. */
function serverPool() {
  const open: ApiServer[] = [];
  return {
    /** Starts a server with `options` (the test graph, a quiet log unless given) on a free loopback port; resolves to its base URL. */
    async serve(options: Partial<ApiServerOptions>): Promise<string> {
      const api = createApiServer({ graph: buildTestGraph(), log: quiet, ...options });
      open.push(api);
      return api.listen(0, '127.0.0.1');
    },
    async closeAll(): Promise<void> {
      await Promise.all(open.splice(0).map((api) => api.close()));
    },
  };
}

/** An answer read whole: status, headers, the body as JSON (or text when it is not JSON). */
interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

/** One request, its answer read whole. */
async function call(url: string, options: { method?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<Answer> {
  const response = await fetch(url, {
    method: options.method ?? 'GET',
    headers: { ...(options.body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: kept as text.
  }
  return { status: response.status, headers: response.headers, body };
}

/** The status of each answer, in order. */
function statusesOf(answers: readonly Answer[]): number[] {
  return answers.map((answer) => answer.status);
}

/** Asserts an allowed answer's limit headers: `X-RateLimit-Limit`, `-Remaining`, `-Reset-After` (the window) and `-Reset` (now + it). */
function assertCounted(answer: Answer, limit: number, remaining: number, windowSeconds = 60): void {
  assert.equal(answer.headers.get('x-ratelimit-limit'), String(limit));
  assert.equal(answer.headers.get('x-ratelimit-remaining'), String(remaining));
  assert.equal(answer.headers.get('x-ratelimit-reset-after'), String(windowSeconds));
  const reset = Number(answer.headers.get('x-ratelimit-reset'));
  const now = Math.floor(Date.now() / 1000);
  assert.ok(reset >= now + windowSeconds - 2 && reset <= now + windowSeconds, `X-RateLimit-Reset ${reset} is not about now + ${windowSeconds} (${now + windowSeconds})`);
  assert.equal(answer.headers.get('retry-after'), null);
}

/** Asserts the real server's 429 for `limit` per `windowSeconds`, and returns its Retry-After (between 1 and `windowSeconds` + 1). */
function assertLimited(answer: Answer, limit: number, windowSeconds = 60): number {
  assert.equal(answer.status, 429, JSON.stringify(answer.body));
  assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
  const retry = Number(answer.headers.get('retry-after'));
  assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= windowSeconds + 1, `Retry-After ${answer.headers.get('retry-after')}`);
  const requestId = answer.headers.get('x-request-id');
  assert.match(requestId ?? '', UUID);
  assert.deepEqual(answer.body, {
    error: {
      code: 'RATE_LIMIT_EXCEEDED',
      message: `Too many requests. Limit: ${limit} per ${windowSeconds}s. Retry after ${retry}s.`,
      limit,
      window_seconds: windowSeconds,
      retry_after_seconds: retry,
    },
    metadata: { request_id: requestId, status: 'error' },
  });
  assert.equal(answer.headers.get('x-ratelimit-limit'), String(limit));
  assert.equal(answer.headers.get('x-ratelimit-remaining'), '0');
  assert.equal(answer.headers.get('x-ratelimit-reset-after'), String(retry));
  return retry;
}

/** Asserts an answer carries no limit headers (a path never counted). */
function assertNotCounted(answer: Answer): void {
  for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-ratelimit-reset-after', 'retry-after']) {
    assert.equal(answer.headers.get(name), null, name);
  }
}

/** A fresh run's frame. */
function fresh(text: string) {
  return { invoke_type: 'fresh', messages: [userText(text)] };
}

/** How a WebSocket attempt ended: refused on the handshake, or opened (or not) and then closed with a code and reason. */
type SocketEnd = { refusedStatus: number } | { opened: boolean; code: number; reason: string };

/** Opens `/v1/graph/ws` and waits for its end: the HTTP status of a refused handshake, or the close. */
function socketEnd(url: string, headers: Record<string, string> = {}): Promise<SocketEnd> {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/v1/graph/ws`, { headers });
  let opened = false;
  return new Promise((resolveEnd, reject) => {
    socket.once('open', () => (opened = true));
    socket.once('unexpected-response', (_req, res) => {
      res.resume();
      socket.terminate();
      resolveEnd({ refusedStatus: res.statusCode ?? 0 });
    });
    socket.once('close', (code, reason) => resolveEnd({ opened, code, reason: reason.toString() }));
    socket.once('error', (error) => {
      if (!/Unexpected server response/.test(error.message)) reject(error);
    });
  });
}

/** Opens a session and runs "hello" on it: a socket the server really serves (a refused one closes before the run's `done`). */
async function openServed(url: string, token?: string): Promise<WsSession> {
  const session = await WsSession.open(url, token === undefined ? {} : { token });
  const chunks = await session.run(fresh('hello'));
  assert.equal(joinLastText(collectMessages(chunks)), TEST_REPLY);
  return session;
}

/** A socket the server served a run on, or the close of one it refused after the handshake. */
type Attempt = { served: WebSocket } | { code: number; reason: string };

/** Opens `/v1/graph/ws` and runs "hello": the socket once the run's `done` arrives, or the close that came first. */
function attemptRun(url: string, headers: Record<string, string> = {}): Promise<Attempt> {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/v1/graph/ws`, { headers });
  return new Promise((resolveAttempt, reject) => {
    socket.once('open', () => socket.send(JSON.stringify(fresh('hello'))));
    socket.on('message', (data) => {
      if (isDone(JSON.parse(data.toString()))) resolveAttempt({ served: socket });
    });
    socket.once('close', (code, reason) => resolveAttempt({ code, reason: reason.toString() }));
    socket.once('error', reject);
  });
}

/** Closes the sockets of served attempts. */
async function closeServed(attempts: readonly Attempt[]): Promise<void> {
  await Promise.all(
    attempts.map(async (attempt) => {
      if (!('served' in attempt) || attempt.served.readyState === WebSocket.CLOSED) return;
      const closed = new Promise((resolveClose) => attempt.served.once('close', resolveClose));
      attempt.served.close();
      await closed;
    }),
  );
}

/** Polls until a session opens and is served (each refused attempt closes by itself). */
function openServedSoon(url: string, what: string, token?: string): Promise<WsSession> {
  return poll(what, () => openServed(url, token).catch(() => undefined), 15_000);
}

describe('HTTP requests under a limit (memory backend)', () => {
  const pool = serverPool();
  after(() => pool.closeAll());

  test('requests 1-3 are served with X-RateLimit-Remaining 2, 1, 0; the 4th gets the 429 of the real server, with Retry-After', async () => {
    const url = await pool.serve({ rateLimit: memoryLimit({ requests: 3, window: 60 }) });
    for (const remaining of [2, 1, 0]) {
      const answer = await call(`${url}/v1/graph`);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assertCounted(answer, 3, remaining);
    }
    assertLimited(await call(`${url}/v1/graph`), 3);
    // The same key on another route, with a body the refusal does not read.
    assertLimited(await call(`${url}/v1/graph/invoke`, { method: 'POST', body: { messages: [userText('hello')] } }), 3);
  });

  test('/ping and an exclude_paths entry are never limited, nor counted; the excluded path is compared exactly', async () => {
    const limit = memoryLimit({ requests: 3, window: 60, exclude_paths: ['/v1/graph/tools'] });
    const url = await pool.serve({ rateLimit: limit });
    for (let i = 0; i < 5; i++) {
      for (const path of ['/ping', '/v1/graph/tools', '/v1/graph/tools?page=2']) {
        const answer = await call(`${url}${path}`);
        assert.equal(answer.status, 200, `${path}: ${JSON.stringify(answer.body)}`);
        assertNotCounted(answer);
      }
    }
    assert.deepEqual(limit.limiter.keys, []);
    assertCounted(await call(`${url}/v1/graph`), 3, 2);
    // Not the excluded path: another one (a trailing slash), counted.
    assert.equal((await call(`${url}/v1/graph/tools/`)).headers.get('x-ratelimit-remaining'), '1');
    assertCounted(await call(`${url}/v1/graph`), 3, 0);
    assertLimited(await call(`${url}/v1/graph`), 3);
    for (const path of ['/ping', '/v1/graph/tools']) {
      const answer = await call(`${url}${path}`);
      assert.equal(answer.status, 200, path);
      assertNotCounted(answer);
    }
  });

  test('a path with no route counts (its 404 carries the limit headers), as the real server counts every path', async () => {
    const url = await pool.serve({ rateLimit: memoryLimit({ requests: 3, window: 60 }) });
    const missing = await call(`${url}/v1/no-such-route`);
    assert.equal(missing.status, 404);
    assertCounted(missing, 3, 2);
    const wrongMethod = await call(`${url}/v1/graph`, { method: 'DELETE' });
    assert.equal(wrongMethod.status, 405);
    assertCounted(wrongMethod, 3, 1);
    assertCounted(await call(`${url}/v1/graph`), 3, 0);
    assertLimited(await call(`${url}/v1/no-such-route`), 3);
    assertLimited(await call(`${url}/v1/graph`), 3);
  });

  test('20 requests at once: exactly `requests` (5) are served, with Remaining 4..0 once each, and 15 refused', async () => {
    const url = await pool.serve({ rateLimit: memoryLimit({ requests: 5, window: 60 }) });
    const answers = await Promise.all(Array.from({ length: 20 }, () => call(`${url}/v1/graph`)));
    const served = answers.filter((answer) => answer.status === 200);
    assert.equal(served.length, 5, JSON.stringify(statusesOf(answers)));
    assert.deepEqual(served.map((answer) => Number(answer.headers.get('x-ratelimit-remaining'))).sort(), [0, 1, 2, 3, 4]);
    const refused = answers.filter((answer) => answer.status !== 200);
    assert.equal(refused.length, 15);
    for (const answer of refused) assertLimited(answer, 5);
  });
});

describe('X-Forwarded-For: who is counted', () => {
  const pool = serverPool();
  after(() => pool.closeAll());

  /** Three requests, each claiming another client; with requests: 2 the third must be refused when they share the peer's key. */
  async function assertRotationIgnored(section: Record<string, unknown>): Promise<void> {
    const limit = memoryLimit({ requests: 2, window: 60, ...section });
    const url = await pool.serve({ rateLimit: limit });
    const answers: Answer[] = [];
    for (const spoof of ['203.0.113.1', '203.0.113.2', '203.0.113.3', 'unknown']) answers.push(await call(`${url}/v1/graph`, { headers: { 'x-forwarded-for': spoof } }));
    assert.deepEqual(statusesOf(answers), [200, 200, 429, 429]);
    assertLimited(answers[2]!, 2);
    assert.deepEqual(limit.limiter.keys, ['127.0.0.1', '127.0.0.1', '127.0.0.1', '127.0.0.1']);
  }

  test('trusted_proxy_headers false: a client rotating X-Forwarded-For is one key (its address)', async () => {
    await assertRotationIgnored({ trusted_proxy_headers: false });
  });

  test('trusted_proxy_headers true but trusted_proxies ["10.0.0.0/8"] and the peer 127.0.0.1: the header is ignored', async () => {
    await assertRotationIgnored({ trusted_proxy_headers: true, trusted_proxies: ['10.0.0.0/8'] });
  });

  test('from a trusted proxy (127.0.0.1), hops 1: the last entry is the key, so two clients have two budgets', async () => {
    const limit = memoryLimit({ requests: 2, window: 60, trusted_proxy_headers: true, trusted_proxies: ['127.0.0.1'], trusted_proxy_hops: 1 });
    const url = await pool.serve({ rateLimit: limit });
    const as = (forwarded: string) => call(`${url}/v1/graph`, { headers: { 'x-forwarded-for': forwarded } });
    assert.deepEqual(statusesOf([await as('198.51.100.1'), await as('spoof, 198.51.100.1'), await as('198.51.100.1')]), [200, 200, 429]);
    const other = await as('198.51.100.2');
    assert.equal(other.status, 200);
    assertCounted(other, 2, 1);
    assert.equal((await as('198.51.100.2')).status, 200);
    assertLimited(await as('198.51.100.2'), 2);
    assert.deepEqual(limit.limiter.keys, ['198.51.100.1', '198.51.100.1', '198.51.100.1', '198.51.100.2', '198.51.100.2', '198.51.100.2']);
  });

  test('hops 2: "spoof, client, proxy" counts by client; rotating the spoofed entry stays limited', async () => {
    const limit = memoryLimit({ requests: 2, window: 60, trusted_proxy_headers: true, trusted_proxies: ['127.0.0.1'], trusted_proxy_hops: 2 });
    const url = await pool.serve({ rateLimit: limit });
    const as = (forwarded: string) => call(`${url}/v1/graph`, { headers: { 'x-forwarded-for': forwarded } });
    const answers: Answer[] = [];
    for (const spoof of ['1.1.1.1', '2.2.2.2', '3.3.3.3', '4.4.4.4']) answers.push(await as(`${spoof}, 198.51.100.7, 10.0.0.1`));
    assert.deepEqual(statusesOf(answers), [200, 200, 429, 429]);
    assertLimited(answers[3]!, 2);
    // Another client behind the same proxy has its own budget.
    assert.equal((await as('1.1.1.1, 198.51.100.8, 10.0.0.1')).status, 200);
    assert.deepEqual(limit.limiter.keys, ['198.51.100.7', '198.51.100.7', '198.51.100.7', '198.51.100.7', '198.51.100.8']);
  });
});

describe('by: "user" with JWT auth', () => {
  const pool = serverPool();
  after(() => pool.closeAll());
  const secret = makeJwtSecret();

  test('/ping and excluded paths run no authenticator: nothing is counted there, so no caller is needed', async () => {
    let calls = 0;
    const auth = customAuthenticator(
      () => {
        calls++;
        return { user_id: 'alice' };
      },
      "'counting'",
      () => {},
    );
    const url = await pool.serve({ auth, rateLimit: memoryLimit({ requests: 2, window: 60, by: 'user', exclude_paths: ['/v1/graph/tools'] }) });
    for (let i = 0; i < 3; i++) {
      const ping = await fetch(`${url}/ping`);
      assert.equal(ping.status, 200);
      await ping.arrayBuffer();
    }
    assert.equal(calls, 0, 'the authenticator ran for /ping');
    const tools = await fetch(`${url}/v1/graph/tools`);
    assert.equal(tools.status, 200);
    await tools.arrayBuffer();
    assert.equal(calls, 1, 'once, for the route itself');
  });

  test('alice and bob have budgets of their own; a bad token is counted by address (ip:), answered 401 until that budget runs out, then 429', async () => {
    const limit = memoryLimit({ requests: 2, window: 60, by: 'user' });
    const url = await pool.serve({ auth: jwtAuthenticator({ secret, algorithm: 'HS256' }), rateLimit: limit });
    const alice = bearerHeader(await signJwt(secret, { user_id: 'alice' }));
    const bob = bearerHeader(await signJwt(secret, { user_id: 'bob' }));
    const forged = bearerHeader(await signJwt(makeJwtSecret(), { user_id: 'alice' }));

    assertCounted(await call(`${url}/v1/graph`, { headers: alice }), 2, 1);
    assertCounted(await call(`${url}/v1/graph`, { headers: alice }), 2, 0);
    assertLimited(await call(`${url}/v1/graph`, { headers: alice }), 2);

    const bobFirst = await call(`${url}/v1/graph`, { headers: bob });
    assert.equal(bobFirst.status, 200);
    assertCounted(bobFirst, 2, 1);

    // A token signed with another key (alice's user_id in it): not alice, counted by the address, refused 401 while that budget lasts.
    for (const remaining of [1, 0]) {
      const refused = await call(`${url}/v1/graph`, { headers: forged });
      assert.equal(refused.status, 401, JSON.stringify(refused.body));
      assert.equal(refused.body.error.code, 'INVALID_TOKEN');
      assertCounted(refused, 2, remaining);
    }
    assertLimited(await call(`${url}/v1/graph`, { headers: forged }), 2);
    // No token at all: the same address, the same (spent) budget.
    assertLimited(await call(`${url}/v1/graph`), 2);

    assertCounted(await call(`${url}/v1/graph`, { headers: bob }), 2, 0);
    assertLimited(await call(`${url}/v1/graph`, { headers: bob }), 2);
    assert.deepEqual(limit.limiter.keys, [
      'user:alice',
      'user:alice',
      'user:alice',
      'user:bob',
      'ip:127.0.0.1',
      'ip:127.0.0.1',
      'ip:127.0.0.1',
      'ip:127.0.0.1',
      'user:bob',
      'user:bob',
    ]);
  });
});

describe('the Redis backend (a real redis-server)', () => {
  const pool = serverPool();
  let redis: TestRedis;
  before(async () => {
    redis = await TestRedis.start();
  });
  after(async () => {
    await pool.closeAll();
    await redis?.stop();
  });

  /** The settings of a Redis limit under a prefix of its own (so that tests share nothing). */
  function redisSettings(section: Record<string, unknown>): RateLimitSettings {
    return settingsOf({ window: 60, backend: 'redis', redis: { url: '${TEST_REDIS_URL}', prefix: `test-${randomUUID()}` }, ...section }, { TEST_REDIS_URL: redis.url });
  }

  /** Two servers with limiters (and Redis clients) of their own on the same settings. */
  async function servePair(settings: RateLimitSettings, logs: [ApiLogger, ApiLogger] = [quiet, quiet]): Promise<[string, string]> {
    const urls: string[] = [];
    for (const log of logs) urls.push(await pool.serve({ rateLimit: { settings, limiter: await createRateLimiter(settings) }, log }));
    return [urls[0]!, urls[1]!];
  }

  test('two servers (two limiters, two clients) on one Redis share one limit exactly: requests alternating between them', async () => {
    const settings = redisSettings({ requests: 5 });
    const urls = await servePair(settings);
    const answers: Answer[] = [];
    for (let i = 0; i < 10; i++) answers.push(await call(`${urls[i % 2]}/v1/graph`));
    assert.deepEqual(statusesOf(answers), [200, 200, 200, 200, 200, 429, 429, 429, 429, 429]);
    assert.deepEqual(
      answers.slice(0, 5).map((answer) => answer.headers.get('x-ratelimit-remaining')),
      ['4', '3', '2', '1', '0'],
    );
    for (const answer of answers.slice(5)) assertLimited(answer, 5);
  });

  test('20 requests at once over the two servers: exactly `requests` (6) are served', async () => {
    const settings = redisSettings({ requests: 6 });
    const urls = await servePair(settings);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => call(`${urls[i % 2]}/v1/graph`)));
    assert.equal(answers.filter((answer) => answer.status === 200).length, 6, JSON.stringify(statusesOf(answers)));
    for (const answer of answers.filter((one) => one.status !== 200)) assertLimited(answer, 6);
  });

  test('two real `10xgraph api` processes on one Redis: 4 requests allowed in all, the 5th refused by either', async () => {
    const folder = mkdtempSync(join(tmpdir(), '10xgraph-rate-limit-cli-'));
    const processes: ApiProcess[] = [];
    const client = new Redis(redis.url, { lazyConnect: true });
    try {
      copyFileSync(join(ROOT, 'examples', 'quickstart', 'graph.ts'), join(folder, 'graph.ts'));
      symlinkSync(join(ROOT, 'node_modules'), join(folder, 'node_modules'), 'dir');
      const config = join(folder, '10xgraph.json');
      writeFileSync(config, JSON.stringify({ agent: 'graph:app', rate_limit: { requests: 4, window: 60, backend: 'redis', redis: { url: '${RATE_LIMIT_REDIS_URL}' } } }, null, 2));
      for (let i = 0; i < 2; i++) processes.push(await new ApiProcess({ config, db: ':memory:', env: { RATE_LIMIT_REDIS_URL: redis.url } }).start());
      for (const server of processes) assert.match(server.stdout, /Rate limits: 4 requests per 60 s by ip, in Redis/);
      const [a, b] = processes as [ApiProcess, ApiProcess];
      const answers: Answer[] = [];
      for (const server of [a, b, a, b]) answers.push(await call(`${server.url}/v1/graph`));
      assert.deepEqual(statusesOf(answers), [200, 200, 200, 200]);
      assert.deepEqual(
        answers.map((answer) => answer.headers.get('x-ratelimit-remaining')),
        ['3', '2', '1', '0'],
      );
      assertLimited(await call(`${a.url}/v1/graph`), 4);
      assertLimited(await call(`${b.url}/v1/graph`), 4);
      // The count lives in Redis under the default prefix and the client's address, as the real server keeps it.
      await client.connect();
      assert.equal(await client.zcard('10xgraph:rate-limit:127.0.0.1'), 4);
    } finally {
      client.disconnect();
      await Promise.all(processes.map((server) => server.stop()));
      rmSync(folder, { recursive: true, force: true });
    }
  });

  test('Redis stopped: fail_open true serves with one warning, false refuses 429 for a window; Redis back: limits apply again, said once', async () => {
    const openLog = capturingLog();
    const closedLog = capturingLog();
    const [openUrl] = await servePair(redisSettings({ requests: 2, fail_open: true }), [openLog, quiet]);
    const [closedUrl] = await servePair(redisSettings({ requests: 2, fail_open: false }), [closedLog, quiet]);
    assertCounted(await call(`${openUrl}/v1/graph`), 2, 1);
    assertCounted(await call(`${closedUrl}/v1/graph`), 2, 1);

    await redis.stopServer();
    const openAnswers: Answer[] = [];
    for (let i = 0; i < 5; i++) openAnswers.push(await call(`${openUrl}/v1/graph`));
    assert.deepEqual(statusesOf(openAnswers), [200, 200, 200, 200, 200]);
    assert.equal(openLog.count('warn', /rate-limit backend failed/), 1, JSON.stringify(openLog.lines));
    assert.match(openLog.lines.find((line) => line.level === 'warn')!.text, /requests go through unlimited \(fail_open\)/);
    assert.doesNotMatch(JSON.stringify(openLog.lines), /tenx|password/i);

    for (let i = 0; i < 3; i++) {
      const refused = await call(`${closedUrl}/v1/graph`);
      assert.equal(assertLimited(refused, 2), 60, 'Retry-After is the window');
    }
    assert.equal(closedLog.count('warn', /rate-limit backend failed/), 1, JSON.stringify(closedLog.lines));
    assert.match(closedLog.lines.find((line) => line.level === 'warn')!.text, /requests are refused \(fail_open is false\)/);
    // A WebSocket handshake is refused the same way.
    assert.deepEqual(await socketEnd(closedUrl), { opened: true, code: 1013, reason: 'Rate limit exceeded' });

    await redis.startServer();
    // Redis restarted empty: the fail-open server counts from zero again, up to its first refusal.
    const limited = await poll('the fail-open server to limit again', async () => {
      const answer = await call(`${openUrl}/v1/graph`);
      return answer.status === 429 ? answer : undefined;
    });
    assertLimited(limited, 2);
    assert.equal(openLog.count('info', /rate-limit backend answers again; limits apply/), 1, JSON.stringify(openLog.lines));
    assert.equal(openLog.count('warn', /rate-limit backend failed/), 1);

    const served = await poll('the fail-closed server to serve again', async () => {
      const answer = await call(`${closedUrl}/v1/graph`);
      return answer.status === 200 ? answer : undefined;
    });
    assertCounted(served, 2, 1);
    assertCounted(await call(`${closedUrl}/v1/graph`), 2, 0);
    assertLimited(await call(`${closedUrl}/v1/graph`), 2);
    assert.equal(closedLog.count('info', /rate-limit backend answers again; limits apply/), 1, JSON.stringify(closedLog.lines));
    assert.equal(closedLog.count('warn', /rate-limit backend failed/), 1);
  });
});

describe('WebSockets under a limit', () => {
  const pool = serverPool();
  after(() => pool.closeAll());

  test('a handshake counts in the same bucket (exclude_paths or not): with requests 2, a GET and one socket; the next handshake closes 1013 "Rate limit exceeded"', async () => {
    // exclude_paths is for HTTP: the real server's WebSocket guard does not consult it.
    const limit = memoryLimit({ requests: 2, window: 60, exclude_paths: ['/v1/graph/ws'] });
    const url = await pool.serve({ rateLimit: limit });
    assertCounted(await call(`${url}/v1/graph`), 2, 1);
    const session = await WsSession.open(url);
    try {
      assert.deepEqual(await socketEnd(url), { opened: true, code: 1013, reason: 'Rate limit exceeded' });
      assertLimited(await call(`${url}/v1/graph`), 2);
      assert.equal(session.socket.readyState, WebSocket.OPEN);
    } finally {
      await session.close();
    }
    assert.deepEqual(limit.limiter.keys, ['127.0.0.1', '127.0.0.1', '127.0.0.1', '127.0.0.1']);
  });

  test('each run on an open socket counts: past the limit an error chunk (reason, retry_after_seconds), then done; the socket stays open', async () => {
    const url = await pool.serve({ rateLimit: memoryLimit({ requests: 3, window: 60 }) });
    const session = await WsSession.open(url);
    try {
      for (let run = 0; run < 2; run++) assert.equal(joinLastText(collectMessages(await session.run(fresh('hello')))), TEST_REPLY);
      for (let refused = 0; refused < 2; refused++) {
        const chunks = await session.run(fresh('hello'));
        assert.equal(chunks.length, 2, JSON.stringify(chunks));
        const [error, done] = chunks;
        assert.equal(error.event, 'error');
        const retry = error.data.retry_after_seconds;
        assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= 61, JSON.stringify(error));
        assert.deepEqual(error.data, { reason: `Rate limit exceeded. Retry after ${retry}s.`, retry_after_seconds: retry });
        assert.ok(isDone(done), JSON.stringify(done));
        assert.equal(session.socket.readyState, WebSocket.OPEN);
      }
      assertLimited(await call(`${url}/v1/graph`), 3);
    } finally {
      await session.close();
    }
  });
});

describe('caps on open WebSockets', () => {
  const pool = serverPool();
  after(() => pool.closeAll());

  test('max 2 in all: the 3rd socket closes 1013 "Too many connections"; once one closes, a new one opens', async () => {
    const url = await pool.serve({ webSocketCaps: { maxConnections: 2, maxConnectionsPerUser: null } });
    const first = await openServed(url);
    const second = await openServed(url);
    let third: WsSession | undefined;
    try {
      assert.deepEqual(await socketEnd(url), { opened: true, code: 1013, reason: 'Too many connections' });
      await first.close();
      third = await openServedSoon(url, 'a socket to open once one of the two closed');
      assert.deepEqual(await socketEnd(url), { opened: true, code: 1013, reason: 'Too many connections' });
    } finally {
      await Promise.all([first.close(), second.close(), third?.close()]);
    }
  });

  test('6 handshakes at once under a cap of 2: exactly 2 sockets are served, 4 closed 1013 "Too many connections"', async () => {
    const url = await pool.serve({ webSocketCaps: { maxConnections: 2, maxConnectionsPerUser: null } });
    const attempts = await Promise.all(Array.from({ length: 6 }, () => attemptRun(url)));
    try {
      assert.equal(attempts.filter((attempt) => 'served' in attempt).length, 2, JSON.stringify(attempts.map((attempt) => ('served' in attempt ? 'served' : attempt))));
      for (const attempt of attempts.filter((one) => !('served' in one))) assert.deepEqual(attempt, { code: 1013, reason: 'Too many connections' });
    } finally {
      await closeServed(attempts);
    }
  });

  test('6 handshakes at once while an authorization that takes its time judges each: still exactly 2 served under a cap of 2', async () => {
    const secret = makeJwtSecret();
    const slow = { authorize: () => new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 20)), scopesFor: () => undefined, isolation: 'none' as const };
    const url = await pool.serve({
      auth: jwtAuthenticator({ secret, algorithm: 'HS256' }),
      authorization: slow,
      webSocketCaps: { maxConnections: 2, maxConnectionsPerUser: null },
    });
    const token = await signJwt(secret, { user_id: 'alice' });
    const attempts = await Promise.all(Array.from({ length: 6 }, () => attemptRun(url, bearerHeader(token))));
    try {
      assert.equal(attempts.filter((attempt) => 'served' in attempt).length, 2, JSON.stringify(attempts.map((attempt) => ('served' in attempt ? 'served' : attempt))));
      for (const attempt of attempts.filter((one) => !('served' in one))) assert.deepEqual(attempt, { code: 1013, reason: 'Too many connections' });
    } finally {
      await closeServed(attempts);
    }
  });

  test('max 1 per user (JWT): alice\'s second socket closes 1013 "Too many connections for this user"; bob\'s first opens', async () => {
    const secret = makeJwtSecret();
    const url = await pool.serve({ auth: jwtAuthenticator({ secret, algorithm: 'HS256' }), webSocketCaps: { maxConnections: null, maxConnectionsPerUser: 1 } });
    const alice = await signJwt(secret, { user_id: 'alice' });
    const bob = await signJwt(secret, { user_id: 'bob' });
    const aliceFirst = await openServed(url, alice);
    let bobFirst: WsSession | undefined;
    let aliceAgain: WsSession | undefined;
    try {
      assert.deepEqual(await socketEnd(url, bearerHeader(alice)), { opened: true, code: 1013, reason: 'Too many connections for this user' });
      bobFirst = await openServed(url, bob);
      assert.deepEqual(await socketEnd(url, bearerHeader(bob)), { opened: true, code: 1013, reason: 'Too many connections for this user' });
      await aliceFirst.close();
      aliceAgain = await openServedSoon(url, "alice's socket to open once her first closed", alice);
    } finally {
      await Promise.all([aliceFirst.close(), bobFirst?.close(), aliceAgain?.close()]);
    }
  });
});

describe('the websocket setting through the CLI', () => {
  const folder = mkdtempSync(join(tmpdir(), '10xgraph-websocket-cli-'));
  copyFileSync(join(ROOT, 'examples', 'quickstart', 'graph.ts'), join(folder, 'graph.ts'));
  symlinkSync(join(ROOT, 'node_modules'), join(folder, 'node_modules'), 'dir');
  after(() => rmSync(folder, { recursive: true, force: true }));

  /** Starts `10xgraph api` on a config with `websocket`. */
  function startWith(name: string, websocket: unknown): Promise<ApiProcess> {
    const config = join(folder, name);
    writeFileSync(config, JSON.stringify({ agent: 'graph:app', websocket }, null, 2));
    return new ApiProcess({ config, db: ':memory:' }).start();
  }

  test('"max_connections": 1: the second socket closes 1013 "Too many connections"', async () => {
    const server = await startWith('one.json', { max_connections: 1 });
    let session: WsSession | undefined;
    try {
      session = await WsSession.open(server.url);
      const chunks = await session.run(fresh('hello'));
      assert.match(joinLastText(collectMessages(chunks)), /^I can tell the time/);
      assert.deepEqual(await socketEnd(server.url), { opened: true, code: 1013, reason: 'Too many connections' });
    } finally {
      await session?.close();
      await server.stop();
    }
  });

  test('"max_connections": -1: the server starts, serves HTTP, and closes every handshake 1011 with what is wrong', async () => {
    const server = await startWith('negative.json', { max_connections: -1 });
    try {
      assert.equal((await call(`${server.url}/v1/graph`)).status, 200);
      for (let i = 0; i < 2; i++) {
        const end = await socketEnd(server.url);
        assert.ok('code' in end, JSON.stringify(end));
        assert.equal(end.code, 1011);
        assert.equal(end.opened, true);
        assert.equal(end.reason, '"websocket.max_connections" must be a whole number, not negative (0 or null: no limit); got -1.');
      }
      assert.match(
        server.stderr,
        /warning \[setting-invalid\] "websocket\.max_connections" must be 0 or more, not -1\. The server starts, but every WebSocket handshake refuses it\./,
      );
    } finally {
      await server.stop();
    }
  });
});
