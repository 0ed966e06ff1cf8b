/**
 * Request limits (`rate_limit`): the settings as the server reads them and as the rule set judges
 * them, the client address behind trusted proxies (spoofed headers ignored, bounded work), the
 * keys, the answers, the memory backend's sliding window on an injected clock, and the Redis
 * backend against a real redis-server: one limit shared by two clients, a hit that fails fast
 * while Redis is down, and limits that work again once it is back.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import {
  DEFAULT_REDIS_PREFIX,
  RateLimitBackendError,
  RateLimitSettingError,
  clientAddress,
  createMemoryRateLimiter,
  createOutageWatch,
  createRateLimiter,
  createRedisRateLimiter,
  decisionOnFailure,
  isExcluded,
  rateLimitHeaders,
  rateLimitKey,
  rateLimitUserId,
  rateLimitedBody,
  readRateLimitSettings,
  type RateLimitDecision,
  type RateLimitSettings,
  type RateLimitVerdict,
  type RateLimiter,
} from '../../runtime/src/api/rateLimit';
import { FILE_FIELDS } from '../../runtime/src/rules/fields';
import { analyzeConfig } from '../../runtime/src/rules/index';
import { poll } from '../support/poll';
import { TestRedis } from '../support/redis';

/** Settings read from a section, which must turn limits on. */
function settingsOf(section: Record<string, unknown>, env: NodeJS.ProcessEnv = {}): RateLimitSettings {
  const settings = readRateLimitSettings(section, env);
  assert.ok(settings, 'the section turns limits off');
  return settings;
}

/** The field a refusal names. */
function refusedField(section: unknown, env: NodeJS.ProcessEnv = {}): string {
  try {
    readRateLimitSettings(section, env);
  } catch (error) {
    assert.ok(error instanceof RateLimitSettingError, String(error));
    return error.field;
  }
  assert.fail(`${JSON.stringify(section)} was accepted`);
}

/** A decision, asserted not to be a failure. */
function decided(verdict: RateLimitVerdict): RateLimitDecision {
  if (verdict.failed) assert.fail(`the backend failed: ${verdict.error.message}`);
  return verdict;
}

describe('reading the rate_limit section', () => {
  test('absent or null: no limits; {} turns them on with the defaults', () => {
    assert.equal(readRateLimitSettings(undefined, {}), undefined);
    assert.equal(readRateLimitSettings(null, {}), undefined);
    assert.deepEqual(readRateLimitSettings({}, {}), {
      enabled: true,
      requests: 100,
      windowSeconds: 60,
      by: 'ip',
      backend: 'memory',
      excludePaths: [],
      trustedProxyHeaders: false,
      trustedProxyHops: 1,
      trustedProxies: [],
      failOpen: true,
      redis: { url: undefined, prefix: '10xgraph:rate-limit' },
    });
  });

  test("the defaults are the rule set's (runtime/src/rules/fields.ts)", () => {
    const fields = FILE_FIELDS.rate_limit.fields!;
    const defaults = settingsOf({});
    const read: Record<string, unknown> = {
      enabled: defaults.enabled,
      requests: defaults.requests,
      window: defaults.windowSeconds,
      by: defaults.by,
      backend: defaults.backend,
      exclude_paths: defaults.excludePaths,
      trusted_proxy_headers: defaults.trustedProxyHeaders,
      trusted_proxy_hops: defaults.trustedProxyHops,
      trusted_proxies: defaults.trustedProxies,
      fail_open: defaults.failOpen,
    };
    for (const [name, spec] of Object.entries(fields)) {
      if (name === 'redis') continue;
      assert.ok(name in read, `the reader does not read "${name}"`);
      assert.deepEqual(read[name], spec.default, name);
    }
    assert.equal(defaults.redis.prefix, fields.redis.fields!.prefix.default);
    assert.equal(DEFAULT_REDIS_PREFIX, fields.redis.fields!.prefix.default);
  });

  test('each field, read as the server reads it', () => {
    assert.equal(readRateLimitSettings({ enabled: false }, {}), undefined);
    assert.equal(readRateLimitSettings({ enabled: ' OFF ' }, {}), undefined);
    assert.equal(settingsOf({ enabled: 'yes' }).enabled, true);
    assert.equal(settingsOf({ requests: '250' }).requests, 250);
    assert.equal(settingsOf({ requests: 2.9 }).requests, 2);
    assert.equal(settingsOf({ requests: true }).requests, 1);
    assert.equal(settingsOf({ requests: ' 1_000 ' }).requests, 1000);
    assert.equal(settingsOf({ window: 5 }).windowSeconds, 5);
    assert.equal(settingsOf({ by: 'user' }).by, 'user');
    assert.equal(settingsOf({ by: 'global' }).by, 'global');
    assert.deepEqual(settingsOf({ exclude_paths: ['/docs', 7] }).excludePaths, ['/docs', '7']);
    assert.equal(settingsOf({ trusted_proxy_headers: 'on' }).trustedProxyHeaders, true);
    assert.equal(settingsOf({ trusted_proxy_hops: '2' }).trustedProxyHops, 2);
    assert.deepEqual(settingsOf({ trusted_proxies: [' 10.0.0.0/8 ', '::1', '192.168.0.0/255.255.0.0'] }).trustedProxies, ['10.0.0.0/8', '::1', '192.168.0.0/255.255.0.0']);
    assert.equal(settingsOf({ fail_open: 'false' }).failOpen, false);
  });

  test('the Redis URL: a string or {url, prefix}, $VAR and ${VAR} expanded, no other source', () => {
    const env = { REDIS_URL: 'redis://cache:6379/2', REDIS_HOST: 'cache' };
    assert.deepEqual(settingsOf({ backend: 'redis', redis: '${REDIS_URL}' }, env).redis, { url: 'redis://cache:6379/2', prefix: '10xgraph:rate-limit' });
    assert.deepEqual(settingsOf({ backend: 'redis', redis: { url: 'redis://$REDIS_HOST:6379/0', prefix: 'svc' } }, env).redis, { url: 'redis://cache:6379/0', prefix: 'svc' });
    // An empty value names no Redis; the memory backend does not need one.
    assert.deepEqual(settingsOf({ redis: { url: '', prefix: null } }).redis, { url: undefined, prefix: 'None' });
    assert.deepEqual(settingsOf({ redis: {} }).redis, { url: undefined, prefix: '10xgraph:rate-limit' });
    // A variable that is not set stops the server, whatever the backend; REDIS_URL is not read by itself.
    assert.equal(refusedField({ redis: '${REDIS_URL}' }, {}), 'rate_limit.redis');
    assert.equal(refusedField({ redis: { url: '$REDIS_URL' } }, {}), 'rate_limit.redis.url');
    assert.equal(refusedField({ backend: 'redis' }, { REDIS_URL: 'redis://cache:6379/0' }), 'rate_limit.redis');
    assert.equal(refusedField({ backend: 'redis', redis: 'http://cache:6379' }), 'rate_limit.redis.url');
    assert.equal(settingsOf({ backend: 'redis', redis: 'unix:///run/redis.sock?db=1' }).redis.url, 'unix:///run/redis.sock?db=1');
  });

  test('values the server refuses name their field, even with limits off', () => {
    assert.equal(refusedField([]), 'rate_limit');
    assert.equal(refusedField('on'), 'rate_limit');
    assert.equal(refusedField({ enabled: 'maybe' }), 'rate_limit.enabled');
    assert.equal(refusedField({ enabled: false, requests: 0 }), 'rate_limit.requests');
    assert.equal(refusedField({ requests: 'ten' }), 'rate_limit.requests');
    assert.equal(refusedField({ requests: null }), 'rate_limit.requests');
    assert.equal(refusedField({ window: -1 }), 'rate_limit.window');
    assert.equal(refusedField({ by: 'IP' }), 'rate_limit.by');
    assert.equal(refusedField({ backend: 'Memory' }), 'rate_limit.backend');
    assert.equal(refusedField({ exclude_paths: '/ping' }), 'rate_limit.exclude_paths');
    assert.equal(refusedField({ trusted_proxy_hops: 0 }), 'rate_limit.trusted_proxy_hops');
    assert.equal(refusedField({ trusted_proxies: ['10.0.0.300'] }), 'rate_limit.trusted_proxies');
    assert.equal(refusedField({ trusted_proxies: '10.0.0.0/8' }), 'rate_limit.trusted_proxies');
    assert.equal(refusedField({ fail_open: 2 }), 'rate_limit.fail_open');
    assert.equal(refusedField({ redis: 5 }), 'rate_limit.redis');
    assert.equal(refusedField({ redis: { url: 5 } }), 'rate_limit.redis.url');
    // The custom backend is an object of the Python server's container: refused when limits are on.
    assert.equal(refusedField({ backend: 'custom' }), 'rate_limit.backend');
    assert.equal(readRateLimitSettings({ enabled: false, backend: 'custom' }, {}), undefined);
  });

  test('the reader refuses exactly what the rule set refuses, and what it warns the server cannot start with', () => {
    const sections = [
      '{}',
      '{"enabled": "yes"}',
      '{"enabled": "maybe"}',
      '{"enabled": null}',
      '{"enabled": 1}',
      '{"requests": "100"}',
      '{"requests": " 7 "}',
      '{"requests": 2.5}',
      '{"requests": true}',
      '{"requests": 0}',
      '{"requests": "1_000"}',
      '{"requests": "ten"}',
      '{"requests": null}',
      '{"window": -1}',
      '{"window": "60"}',
      '{"by": "user"}',
      '{"by": "IP"}',
      '{"by": null}',
      '{"backend": "redis", "redis": "redis://127.0.0.1:1/0"}',
      '{"backend": "redis", "redis": {"url": "redis://127.0.0.1:1/0", "prefix": "x"}}',
      '{"backend": "redis"}',
      '{"backend": "custom"}',
      '{"enabled": false, "backend": "custom"}',
      '{"backend": "Memory"}',
      '{"redis": 5}',
      '{"redis": []}',
      '{"redis": {"url": null, "prefix": 7}}',
      '{"redis": {"url": 5}}',
      '{"redis": "$TENXGRAPH_RATE_LIMIT_TEST_UNSET"}',
      '{"redis": "redis://${HOME}"}',
      '{"exclude_paths": "/ping"}',
      '{"exclude_paths": ["/a", 1]}',
      '{"trusted_proxy_headers": "on"}',
      '{"trusted_proxy_headers": "sometimes"}',
      '{"trusted_proxy_hops": 0}',
      '{"trusted_proxy_hops": "2"}',
      '{"trusted_proxies": ["10.0.0.0/8", " ::1 ", "fe80::1%eth0", "10.0.0.0/0.255.255.255", "10.1.2.3/8"]}',
      '{"trusted_proxies": ["10.0.0.300"]}',
      '{"trusted_proxies": ["010.0.0.1"]}',
      '{"trusted_proxies": "10.0.0.0/8"}',
      '{"trusted_proxies": [null]}',
      '{"fail_open": 0}',
      '{"fail_open": "nope"}',
      '{"enabled": false, "requests": 0}',
      'null',
      '[]',
    ];
    const environment = new Set(Object.keys(process.env));
    for (const section of sections) {
      const problems = analyzeConfig(`{"agent": "graph.ts:app", "rate_limit": ${section}}`, { files: { environment } }).problems;
      // As `10xgraph api` starts: errors, and variables nobody set, stop it.
      const refused = problems.some((p) => p.severity === 'error' || p.code === 'env-var-not-set');
      const unbound = problems.some((p) => p.code === 'rate-limit-backend-unbound');
      let thrown: unknown;
      try {
        readRateLimitSettings(JSON.parse(section), process.env);
      } catch (error) {
        thrown = error;
      }
      if (thrown !== undefined) assert.ok(thrown instanceof RateLimitSettingError, `${section}: ${String(thrown)}`);
      if (refused) assert.ok(thrown, `${section}: the rule set refuses it (${problems.map((p) => p.code).join(', ')}), the reader took it`);
      else if (!unbound) assert.equal(thrown, undefined, `${section}: the rule set takes it, the reader refused it: ${String(thrown)}`);
    }
  });

  test('messages say what is wrong and where, without the Redis password', () => {
    assert.throws(() => readRateLimitSettings({ requests: 0 }, {}), { message: /^"rate_limit\.requests" in 10xgraph\.json must be at least 1, not 0\.$/ });
    assert.throws(
      () => readRateLimitSettings({ backend: 'redis', redis: 'http://user:hunter2@cache:6379' }, {}),
      (error: Error) => error.message.includes('redis://') && !error.message.includes('hunter2'),
    );
  });

  test('a Redis that does not answer is named without its password, in the user part or the query (?password=)', async () => {
    for (const url of ['redis://127.0.0.1:1/0?password=hunter2', 'redis://user:hunter2@127.0.0.1:1/0', 'redis://127.0.0.1:1/0?username=u&password=hunter2']) {
      const limiter = await createRedisRateLimiter(settingsOf({ backend: 'redis', redis: url }), { redisTimeoutMs: 200 });
      try {
        const verdict = await limiter.hit('k');
        assert.equal(verdict.failed, true, url);
        const message = verdict.failed ? verdict.error.message : '';
        assert.match(message, /redis:\/\/(\S*@)?127\.0\.0\.1:1\/0/, message);
        assert.doesNotMatch(message, /hunter2/, message);
      } finally {
        await limiter.close();
      }
    }
  });
});

describe('the client address', () => {
  const base = settingsOf({});
  const behindProxy = settingsOf({ trusted_proxy_headers: true });
  const twoHops = settingsOf({ trusted_proxy_headers: true, trusted_proxy_hops: 2 });
  const listed = settingsOf({ trusted_proxy_headers: true, trusted_proxies: ['10.0.0.0/8', '192.168.1.7', 'fd00::/8'] });

  test('X-Forwarded-For is not read unless trusted_proxy_headers is on', () => {
    assert.equal(clientAddress('203.0.113.9', { 'x-forwarded-for': '198.51.100.1' }, base), '203.0.113.9');
    assert.equal(clientAddress('203.0.113.9', {}, behindProxy), '203.0.113.9');
    assert.equal(clientAddress(undefined, {}, base), 'unknown');
  });

  test('the entry trusted_proxy_hops from the right, blank entries skipped, every line in order', () => {
    const header = { 'x-forwarded-for': '6.6.6.6, 198.51.100.1 , 10.0.0.2' };
    assert.equal(clientAddress('10.0.0.9', header, behindProxy), '10.0.0.2');
    assert.equal(clientAddress('10.0.0.9', header, twoHops), '198.51.100.1');
    assert.equal(clientAddress('10.0.0.9', { 'x-forwarded-for': '198.51.100.1, ,10.0.0.2,' }, twoHops), '198.51.100.1');
    assert.equal(clientAddress('10.0.0.9', { 'x-forwarded-for': ['6.6.6.6, 198.51.100.1', '10.0.0.2'] }, twoHops), '198.51.100.1');
    // Fewer entries than hops: the header is not what the proxies write, and the peer counts.
    assert.equal(clientAddress('10.0.0.9', { 'x-forwarded-for': '198.51.100.1' }, twoHops), '10.0.0.9');
    assert.equal(clientAddress('10.0.0.9', { 'x-forwarded-for': ' , ' }, behindProxy), '10.0.0.9');
  });

  test('with trusted_proxies, only those peers are believed: a spoofed header from anyone else is ignored', () => {
    const spoofed = { 'x-forwarded-for': '1.2.3.4' };
    assert.equal(clientAddress('10.20.30.40', spoofed, listed), '1.2.3.4');
    assert.equal(clientAddress('192.168.1.7', spoofed, listed), '1.2.3.4');
    assert.equal(clientAddress('192.168.1.8', spoofed, listed), '192.168.1.8');
    assert.equal(clientAddress('203.0.113.9', spoofed, listed), '203.0.113.9');
    assert.equal(clientAddress('fd12::1', spoofed, listed), '1.2.3.4');
    assert.equal(clientAddress('2001:db8::1', spoofed, listed), '2001:db8::1');
    assert.equal(clientAddress(undefined, spoofed, listed), 'unknown');
  });

  test('an IPv4 peer written as IPv6 (a server listening on ::) is its IPv4 address', () => {
    const loopback = settingsOf({ trusted_proxy_headers: true, trusted_proxies: ['127.0.0.1'] });
    assert.equal(clientAddress('::ffff:127.0.0.1', { 'x-forwarded-for': '198.51.100.1' }, loopback), '198.51.100.1');
    assert.equal(clientAddress('::ffff:203.0.113.9', { 'x-forwarded-for': '198.51.100.1' }, loopback), '203.0.113.9');
    assert.equal(clientAddress('::ffff:203.0.113.9', {}, base), '203.0.113.9');
    assert.equal(clientAddress('::1', { 'x-forwarded-for': '198.51.100.1' }, loopback), '::1');
    const mappedNetwork = settingsOf({ trusted_proxy_headers: true, trusted_proxies: ['::ffff:10.0.0.0/104'] });
    assert.equal(clientAddress('10.1.1.1', { 'x-forwarded-for': '198.51.100.1' }, mappedNetwork), '198.51.100.1');
  });

  test('a header of megabytes costs a bounded scan from its right end', () => {
    const commas = ','.repeat(20_000_000);
    const padded = `${'1.1.1.1,'.repeat(2_000_000)} 198.51.100.1`;
    const long = `${'x'.repeat(20_000_000)}, 198.51.100.1`;
    // Made flat first, as the HTTP parser hands headers over (V8 flattens a joined string on first read).
    for (const text of [commas, padded, long]) assert.equal(text.charCodeAt(text.length - 1) > 0, true);
    const started = performance.now();
    assert.equal(clientAddress('10.0.0.9', { 'x-forwarded-for': commas }, twoHops), '10.0.0.9');
    assert.equal(clientAddress('10.0.0.9', { 'x-forwarded-for': padded }, behindProxy), '198.51.100.1');
    assert.equal(clientAddress('10.0.0.9', { 'x-forwarded-for': long }, behindProxy), '198.51.100.1');
    assert.equal(clientAddress('10.0.0.9', { 'x-forwarded-for': long }, twoHops), '10.0.0.9');
    // Splitting any of these whole takes seconds; the scan reads a few kilobytes.
    assert.ok(performance.now() - started < 100, `took ${Math.round(performance.now() - started)} ms`);
  });
});

describe('keys, users and excluded paths', () => {
  test('by ip, by user (the address without one), global', () => {
    const headers = { 'x-forwarded-for': '1.2.3.4' };
    assert.equal(rateLimitKey(settingsOf({}), '10.0.0.1', headers), '10.0.0.1');
    assert.equal(rateLimitKey(settingsOf({ by: 'user' }), '10.0.0.1', headers, 'alice'), 'user:alice');
    assert.equal(rateLimitKey(settingsOf({ by: 'user' }), '10.0.0.1', headers), 'ip:10.0.0.1');
    assert.equal(rateLimitKey(settingsOf({ by: 'user' }), '10.0.0.1', headers, ''), 'ip:10.0.0.1');
    assert.equal(rateLimitKey(settingsOf({ by: 'user', trusted_proxy_headers: true }), '10.0.0.1', headers), 'ip:1.2.3.4');
    assert.equal(rateLimitKey(settingsOf({ by: 'global' }), '10.0.0.1', headers, 'alice'), '__global__');
  });

  test("a verified user's id is its user_id as text, when set", () => {
    assert.equal(rateLimitUserId({ user_id: 'alice' }), 'alice');
    assert.equal(rateLimitUserId({ user_id: 42 }), '42');
    assert.equal(rateLimitUserId({ user_id: '' }), undefined);
    assert.equal(rateLimitUserId({ user_id: 0 }), undefined);
    assert.equal(rateLimitUserId({ sub: 'alice' }), undefined);
    assert.equal(rateLimitUserId(null), undefined);
    assert.equal(rateLimitUserId('alice'), undefined);
  });

  test('/ping and the listed paths, compared exactly', () => {
    const settings = settingsOf({ exclude_paths: ['/docs', '/v1/graph'] });
    assert.equal(isExcluded('/ping', settings), true);
    assert.equal(isExcluded('/ping', settingsOf({})), true);
    assert.equal(isExcluded('/docs', settings), true);
    assert.equal(isExcluded('/v1/graph', settings), true);
    for (const path of ['/docs/', '/docs/x', '/v1/graph/invoke', '/DOCS', '/do%63s', '/ping/']) assert.equal(isExcluded(path, settings), false, path);
  });
});

describe('the answers', () => {
  const refused: RateLimitDecision = { failed: false, allowed: false, limit: 3, windowSeconds: 10, remaining: 0, resetSeconds: 7, retryAfterSeconds: 7 };
  const allowed: RateLimitDecision = { failed: false, allowed: true, limit: 3, windowSeconds: 10, remaining: 2, resetSeconds: 10, retryAfterSeconds: 0 };

  test('429: the body and headers of a refusal', () => {
    assert.deepEqual(rateLimitedBody(refused, 'req-1'), {
      error: { code: 'RATE_LIMIT_EXCEEDED', message: 'Too many requests. Limit: 3 per 10s. Retry after 7s.', limit: 3, window_seconds: 10, retry_after_seconds: 7 },
      metadata: { request_id: 'req-1', status: 'error' },
    });
    assert.deepEqual(rateLimitHeaders(refused, 1_700_000_000_900), {
      'Retry-After': '7',
      'X-RateLimit-Limit': '3',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': '1700000007',
      'X-RateLimit-Reset-After': '7',
    });
  });

  test('the headers of an allowed request', () => {
    assert.deepEqual(rateLimitHeaders(allowed, 1_700_000_000_000), {
      'X-RateLimit-Limit': '3',
      'X-RateLimit-Remaining': '2',
      'X-RateLimit-Reset': '1700000010',
      'X-RateLimit-Reset-After': '10',
    });
  });

  test('a failed backend: allowed with fail_open, else refused for a window (a 429)', () => {
    assert.deepEqual(decisionOnFailure(settingsOf({ requests: 3, window: 10 })), { ...allowed, remaining: 0 });
    const closed = decisionOnFailure(settingsOf({ requests: 3, window: 10, fail_open: false }));
    assert.deepEqual(closed, { ...refused, resetSeconds: 10, retryAfterSeconds: 10 });
    assert.equal(rateLimitedBody(closed, 'r').error.message, 'Too many requests. Limit: 3 per 10s. Retry after 10s.');
  });

  test('an outage is told once when it starts and once when it ends', () => {
    const watch = createOutageWatch();
    const failure: RateLimitVerdict = { failed: true, error: new RateLimitBackendError('down') };
    assert.deepEqual(
      [allowed, failure, failure, failure, allowed, allowed, failure].map((verdict) => watch.observe(verdict)),
      [undefined, 'down', undefined, undefined, 'up', undefined, 'down'],
    );
  });
});

describe('the memory backend', () => {
  /** A limiter on a clock the test moves. */
  function limiterAt(section: Record<string, unknown>, maxKeys?: number) {
    const clock = { ms: 0 };
    const limiter = createMemoryRateLimiter(settingsOf(section), { now: () => clock.ms, maxKeys });
    const hit = async (key: string, at: number) => {
      clock.ms = at;
      return decided(await limiter.hit(key));
    };
    return { limiter, hit };
  }

  test('N requests per window, then refusals with the seconds to wait', async () => {
    const { limiter, hit } = limiterAt({ requests: 3, window: 10 });
    assert.equal(limiter.backend, 'memory');
    assert.deepEqual(
      [await hit('a', 0), await hit('a', 500), await hit('a', 900)].map((d) => [d.allowed, d.remaining, d.resetSeconds, d.retryAfterSeconds]),
      [
        [true, 2, 10, 0],
        [true, 1, 10, 0],
        [true, 0, 10, 0],
      ],
    );
    assert.deepEqual(await hit('a', 1000), { failed: false, allowed: false, limit: 3, windowSeconds: 10, remaining: 0, resetSeconds: 10, retryAfterSeconds: 10 });
    assert.equal((await hit('a', 9999)).retryAfterSeconds, 1);
    // Another key has a window of its own.
    assert.equal((await hit('b', 9999)).allowed, true);
    await limiter.close();
  });

  test('the window slides: each request frees its place one window after it', async () => {
    const { hit } = limiterAt({ requests: 3, window: 10 });
    for (const at of [0, 5000, 6000]) assert.equal((await hit('a', at)).allowed, true);
    // A time exactly one window old still counts; a millisecond later it has left the window.
    assert.equal((await hit('a', 10_000)).allowed, false);
    const freed = await hit('a', 10_001);
    assert.deepEqual([freed.allowed, freed.remaining], [true, 0]);
    const next = await hit('a', 10_002);
    assert.deepEqual([next.allowed, next.retryAfterSeconds], [false, 5]);
    // Refused requests are not counted: after the window of the last allowed one, the key is fresh.
    const fresh = await hit('a', 40_000);
    assert.deepEqual([fresh.allowed, fresh.remaining], [true, 2]);
  });

  test('beyond maxKeys, the key seen longest ago is dropped', async () => {
    const { hit } = limiterAt({ requests: 1, window: 60 }, 3);
    assert.equal((await hit('a', 0)).allowed, true);
    assert.equal((await hit('a', 1)).allowed, false);
    for (const key of ['b', 'c']) assert.equal((await hit(key, 2)).allowed, true);
    // 'a' is seen again, so 'b' is now the key seen longest ago: it goes when 'd' comes.
    assert.equal((await hit('a', 3)).allowed, false);
    assert.equal((await hit('d', 4)).allowed, true);
    assert.equal((await hit('a', 5)).allowed, false);
    assert.equal((await hit('b', 6)).allowed, true);
  });

  test('a flood of made-up keys does not push out a key in use', async () => {
    const { hit } = limiterAt({ requests: 2, window: 60 }, 1000);
    await hit('steady', 0);
    for (let i = 0; i < 20_000; i++) {
      await hit(`spoofed-${i}`, 1);
      if (i % 500 === 0) await hit('steady', 1);
    }
    assert.equal((await hit('steady', 2)).allowed, false);
  });
});

describe('the Redis backend', () => {
  let redis: TestRedis;
  let raw: Redis;
  const opened: RateLimiter[] = [];
  let prefixes = 0;

  before(async () => {
    redis = await TestRedis.start();
    raw = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await raw.connect();
  });
  after(async () => {
    for (const limiter of opened) await limiter.close();
    raw?.disconnect();
    await redis?.stop();
  });

  /** A limiter on the test Redis, with a prefix of its own unless told. */
  async function open(section: Record<string, unknown>, prefix = `test-${++prefixes}`): Promise<RateLimiter> {
    const limiter = await createRateLimiter(settingsOf({ backend: 'redis', redis: { url: redis.url, prefix }, ...section }));
    opened.push(limiter);
    return limiter;
  }

  test('exactly N requests per window, under PREFIX:KEY, expiring', async () => {
    const limiter = await open({ requests: 5, window: 60 }, 'exact');
    assert.equal(limiter.backend, 'redis');
    const decisions = [];
    for (let i = 0; i < 7; i++) decisions.push(decided(await limiter.hit('10.0.0.1')));
    assert.deepEqual(
      decisions.map((d) => d.allowed),
      [true, true, true, true, true, false, false],
    );
    assert.deepEqual(
      decisions.slice(0, 5).map((d) => d.remaining),
      [4, 3, 2, 1, 0],
    );
    assert.equal(decisions[0].resetSeconds, 60);
    const refused = decisions[5];
    assert.equal(refused.remaining, 0);
    assert.ok(refused.retryAfterSeconds >= 60 && refused.retryAfterSeconds <= 61, String(refused.retryAfterSeconds));
    assert.deepEqual(await raw.keys('exact:*'), ['exact:10.0.0.1']);
    assert.equal(await raw.zcard('exact:10.0.0.1'), 5);
    const ttl = await raw.ttl('exact:10.0.0.1');
    assert.ok(ttl > 0 && ttl <= 61, String(ttl));
  });

  test('two clients of one Redis share one limit, also when their hits race', async () => {
    const first = await open({ requests: 4, window: 60 }, 'shared');
    const second = await open({ requests: 4, window: 60 }, 'shared');
    const sequential = [];
    for (let i = 0; i < 3; i++) {
      sequential.push(decided(await first.hit('k')).allowed);
      sequential.push(decided(await second.hit('k')).allowed);
    }
    assert.deepEqual(sequential, [true, true, true, true, false, false]);
    const racing = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? first : second).hit('race')));
    assert.equal(racing.map(decided).filter((d) => d.allowed).length, 4);
  });

  test('a script Redis no longer holds is sent again', async () => {
    const limiter = await open({ requests: 2, window: 60 });
    assert.equal(decided(await limiter.hit('k')).allowed, true);
    await raw.script('FLUSH');
    assert.equal(decided(await limiter.hit('k')).remaining, 0);
  });

  test('Redis down: hits fail within a second; Redis back on the same port: limits work again', async () => {
    const limiter = await open({ requests: 2, window: 60 });
    let late: RateLimiter | undefined;
    assert.equal(decided(await limiter.hit('before')).allowed, true);
    await redis.stopServer();
    try {
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        const verdict = await limiter.hit('during');
        const took = performance.now() - started;
        assert.equal(verdict.failed, true);
        assert.ok(took < 1500, `a hit took ${Math.round(took)} ms while Redis was down`);
        if (verdict.failed) assert.match(verdict.error.message, /^The Redis of the rate limits \(redis:\/\/127\.0\.0\.1:\d+\/0\) did not answer: /);
      }
      // A limiter made while Redis is down starts without waiting for it.
      const started = performance.now();
      late = await open({ requests: 2, window: 60 }, 'late');
      assert.ok(performance.now() - started < 1500);
      assert.equal((await late.hit('k')).failed, true);
    } finally {
      await redis.startServer();
    }
    await poll('the limiter to reach Redis again', async () => !(await limiter.hit('probe')).failed, 15_000);
    const again = [];
    for (let i = 0; i < 3; i++) again.push(decided(await limiter.hit('after')).allowed);
    assert.deepEqual(again, [true, true, false]);
    await poll('the limiter made during the outage to reach Redis', async () => !(await late!.hit('probe')).failed, 15_000);
  });

  test('a closed limiter fails its hits', async () => {
    const limiter = await createRateLimiter(settingsOf({ backend: 'redis', redis: redis.url }));
    await limiter.close();
    assert.equal((await limiter.hit('k')).failed, true);
  });
});
