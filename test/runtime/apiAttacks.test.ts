/**
 * What an attack on `10xgraph api`'s authentication, ownership and limits found, each kept as a
 * test (docs/spec.md §4): a refused caller never takes another user's thread lock; a refused
 * request costs no authentication; a custom auth module that hangs or fails does not hold a
 * request or end the process; a JWT key of the wrong kind is refused at start-up; a request
 * target `//host/path` is a path, not a URL.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { generateKeyPairSync } from 'node:crypto';
import { request } from 'node:http';
import WebSocket from 'ws';
import { ownershipBackend } from '../../runtime/src/api/access';
import { customAuthenticator, jwtAuthenticator, JwtSettingError } from '../../runtime/src/api/auth';
import { createMemoryRateLimiter, readRateLimitSettings } from '../../runtime/src/api/rateLimit';
import { createApiServer, type ApiServer, type ApiServerOptions } from '../../runtime/src/api/server';
import { SqliteThreadStore, type ThreadStore } from '../../runtime/src/api/store/index';
import { bearerHeader, makeJwtSecret, signJwt } from '../support/jwt';
import { poll } from '../support/poll';
import { buildTestGraph, isDone, userText } from './serverHelpers';

const servers: ApiServer[] = [];
after(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

async function serve(options: Omit<ApiServerOptions, 'graph'>): Promise<string> {
  const api = createApiServer({ graph: buildTestGraph(), ...options });
  servers.push(api);
  return api.listen(0, '127.0.0.1');
}

async function call(url: string, method: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(url, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** Opens `/v1/graph/ws` and resolves to how it ended: the close code and reason, or the HTTP status of a refused handshake. */
function handshake(url: string, headers: Record<string, string> = {}): Promise<{ code: number; reason: string } | { status: number }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/v1/graph/ws`, { headers });
    socket.once('unexpected-response', (_request, response) => {
      resolve({ status: response.statusCode ?? 0 });
      response.resume();
      socket.terminate();
    });
    socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() }));
    socket.once('error', (error) => {
      if (!/Unexpected server response/.test(error.message)) reject(error);
    });
  });
}

describe("a refused caller never takes another user's thread lock", () => {
  test('every write and run of bob on alice’s thread is refused before the store is asked for its lock', async () => {
    const secret = makeJwtSecret();
    const store = new SqliteThreadStore(':memory:');
    const spied: ThreadStore = Object.create(store) as ThreadStore;
    const acquired: string[] = [];
    spied.acquire = (threadId, owner, options) => {
      acquired.push(threadId);
      return store.acquire(threadId, owner, options);
    };
    const url = await serve({ db: spied, auth: jwtAuthenticator({ secret, algorithm: 'HS256' }), authorization: ownershipBackend() });
    const alice = bearerHeader(await signJwt(secret, { user_id: 'alice' }));
    const bob = bearerHeader(await signJwt(secret, { user_id: 'bob' }));
    const made = await call(`${url}/v1/graph/invoke`, 'POST', alice, { messages: [userText('hello')], config: { thread_id: 't-alice' } });
    assert.equal(made.status, 200);
    const messageId = (await call(`${url}/v1/threads/t-alice/messages`, 'GET', alice)).body.data.messages[0].message_id;
    acquired.length = 0;
    const attempts: Array<[string, string, unknown]> = [
      ['PUT', '/v1/threads/t-alice/state', { state: { context: [userText('mine now')] } }],
      ['DELETE', '/v1/threads/t-alice/state', undefined],
      ['POST', '/v1/threads/t-alice/messages', { messages: [userText('mine now')] }],
      ['DELETE', `/v1/threads/t-alice/messages/${messageId}`, undefined],
      ['POST', '/v1/graph/invoke', { messages: [userText('mine now')], config: { thread_id: 't-alice' } }],
      ['POST', '/v1/graph/stream', { messages: [userText('mine now')], config: { thread_id: 't-alice' } }],
      ['POST', '/v1/graph/fix', { thread_id: 't-alice' }],
      ['POST', '/v1/graph/stop', { thread_id: 't-alice' }],
    ];
    for (const [method, path, body] of attempts) {
      const answer = await call(`${url}${path}`, method, bob, body);
      assert.equal(answer.status, 403, `${method} ${path}: ${JSON.stringify(answer.body)}`);
    }
    assert.deepEqual(acquired, [], 'no refused request took the lock');
    // Alice's own write still takes it.
    assert.equal((await call(`${url}/v1/threads/t-alice/messages`, 'POST', alice, { messages: [userText('still mine')] })).status, 200);
    assert.deepEqual(acquired, ['t-alice']);
  });
});

describe('a refused request costs no authentication', () => {
  test('with a limit by address, requests over it never reach the auth module', async () => {
    let calls = 0;
    const auth = customAuthenticator(
      () => {
        calls++;
        return { user_id: 'alice' };
      },
      "'counting'",
      () => {},
    );
    const settings = readRateLimitSettings({ requests: 1, window: 60, by: 'ip' }, {})!;
    const url = await serve({ auth, rateLimit: { settings, limiter: createMemoryRateLimiter(settings) } });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await call(`${url}/v1/graph`, 'GET', {})).status);
    assert.deepEqual(statuses, [200, 429, 429, 429, 429]);
    assert.equal(calls, 1);
    assert.deepEqual(await handshake(url), { code: 1013, reason: 'Rate limit exceeded' });
    assert.equal(calls, 1, 'nor does a refused handshake');
  });

  test('with TENXGRAPH_TOKEN, handshakes with a wrong token count too: 401, 401, then closed 1013', async () => {
    const settings = readRateLimitSettings({ requests: 2, window: 60 }, {})!;
    const url = await serve({ token: 'the-right-token', rateLimit: { settings, limiter: createMemoryRateLimiter(settings) } });
    const wrong = bearerHeader('a-wrong-token');
    assert.deepEqual(await handshake(url, wrong), { status: 401 });
    assert.deepEqual(await handshake(url, wrong), { status: 401 });
    assert.deepEqual(await handshake(url, wrong), { code: 1013, reason: 'Rate limit exceeded' });
  });
});

describe('a custom auth module that hangs or fails', () => {
  test('one that never answers: 503 AUTH_MODULE_TIMEOUT after its time limit, and a WebSocket closed 1011; the log says so', async () => {
    const lines: string[] = [];
    const auth = customAuthenticator(
      () => new Promise(() => {}),
      "'hanging'",
      (line) => lines.push(line),
      100,
    );
    const url = await serve({ auth });
    const answer = await call(`${url}/v1/graph`, 'GET', {});
    assert.equal(answer.status, 503);
    assert.equal(answer.body.error.code, 'AUTH_MODULE_TIMEOUT');
    assert.deepEqual(await handshake(url), { code: 1011, reason: "The server's auth module ('hanging') did not answer in time; try again." });
    assert.ok(
      lines.some((line) => line.includes('did not answer within 100 ms')),
      lines.join('\n'),
    );
  });

  test('one that fails on a later run of a WebSocket: that run gets an error and done, and the server goes on', async () => {
    let calls = 0;
    const auth = customAuthenticator(
      () => {
        calls++;
        if (calls === 1) return { user_id: 'alice' };
        return {
          get user_id(): string {
            throw new Error('session store down');
          },
        };
      },
      "'flaky'",
      () => {},
    );
    const url = await serve({ auth });
    const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/v1/graph/ws`);
    await once(socket, 'open');
    const chunks: any[] = [];
    socket.on('message', (data) => chunks.push(JSON.parse(data.toString())));
    socket.send(JSON.stringify({ invoke_type: 'fresh', messages: [userText('hello')] }));
    await poll('the done of the run', () => chunks.some(isDone));
    socket.close();
    const error = chunks.find((chunk) => chunk.event === 'error');
    assert.equal(error?.data?.code, 'INTERNAL_SERVER_ERROR', JSON.stringify(chunks));
    // The server still answers.
    assert.equal((await fetch(`${url}/ping`)).status, 200);
  });
});

describe('start-up refuses a JWT key of the wrong kind', () => {
  test('an EC key for RS256, an RSA key for ES256, a P-384 key for ES256: each refused with what the algorithm needs', () => {
    const pem = (type: 'rsa' | 'ec', curve?: string) =>
      (type === 'rsa' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ec', { namedCurve: curve! })).publicKey
        .export({ type: 'spki', format: 'pem' })
        .toString();
    assert.throws(
      () => jwtAuthenticator({ secret: pem('ec', 'P-256'), algorithm: 'RS256' }),
      (error: Error) => error instanceof JwtSettingError && /RS256 needs an RSA key/.test(error.message),
    );
    assert.throws(
      () => jwtAuthenticator({ secret: pem('rsa'), algorithm: 'ES256' }),
      (error: Error) => error instanceof JwtSettingError && /ES256 needs an EC key on P-256/.test(error.message),
    );
    assert.throws(
      () => jwtAuthenticator({ secret: pem('ec', 'P-384'), algorithm: 'ES256' }),
      (error: Error) => error instanceof JwtSettingError && /on secp384r1/.test(error.message),
    );
    assert.doesNotThrow(() => jwtAuthenticator({ secret: pem('ec', 'P-384'), algorithm: 'ES384' }));
  });
});

describe('a request target is a path', () => {
  test('//host/v1/threads is no route (404), not /v1/threads of the host "host"', async () => {
    const url = await serve({});
    const { port } = new URL(url);
    const status = await new Promise<number>((resolve, reject) => {
      const sent = request({ host: '127.0.0.1', port, path: '//evil.example/v1/threads', method: 'GET' }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      sent.on('error', reject);
      sent.end();
    });
    assert.equal(status, 404);
  });
});
