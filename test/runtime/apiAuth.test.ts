/**
 * Authentication of `10xgraph api` (the config's `auth`), as the real 10xGraph server applies it:
 *
 * - JWT over HTTP against `createApiServer` with `jwtAuthenticator`: the 401s (`REVOKED_TOKEN`,
 *   `EXPIRED_TOKEN`, `INVALID_TOKEN`) with their messages, `WWW-Authenticate: Bearer
 *   realm="auth_required"` and the error envelope; forged tokens (`alg: none`, another key, another
 *   algorithm, the public key used as an HMAC secret); `exp` always required, `iss`/`aud` when set;
 *   where the token is read (and where not); RS256 and ES256 with PEM keys.
 * - JWT over the WebSocket `/v1/graph/ws`: the subprotocol pair and `?token=`; refusals as close
 *   1008 with the 401's message; a token that expires while the socket is open ends the session.
 * - A custom module (`customAuthenticator`): a function, a class, an async function, nobody (403),
 *   a 4xx it throws, a failure (500, logged with its stack).
 * - `TENXGRAPH_TOKEN` alone, unchanged: its own 401 and realm, and an HTTP 401 on the handshake.
 * - Start-up of the built CLI: the refusals (exit 1) and the lines it logs for `auth`, the keys it
 *   does not apply, `authorization` without `auth`, and a TypeScript auth module beside the config.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SignJWT, type JWTPayload } from 'jose';
import WebSocket from 'ws';
import { customAuthenticator, jwtAuthenticator, JWT_ALGORITHMS, type JwtSettings } from '../../runtime/src/api/auth';
import { createApiServer, type ApiServer, type ApiServerOptions } from '../../runtime/src/api/server';
import { buildTestGraph, collectMessages, getJson, joinLastText, postJson, ROOT, userText, WsSession, type JsonAnswer } from './serverHelpers';
import { bearerHeader, makeJwtSecret } from '../support/jwt';
import { poll } from '../support/poll';

/** An HMAC secret long enough for HS256 (32 bytes or more). */
const SECRET = makeJwtSecret();
const HS256: JwtSettings = { secret: SECRET, algorithm: 'HS256' };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const quiet = { info() {}, warn() {}, error() {} };

/** How to sign a token: the algorithm (HS256), the key (the secret), `exp` (an hour ahead; null: none). */
interface SignOptions {
  alg?: string;
  key?: Uint8Array | KeyObject;
  exp?: number | string | null;
  issuer?: string;
  audience?: string | string[];
}

/**
 * A signed token with `claims`. Beside `signJwt` of test/support/jwt.ts, it makes the tokens these
 * tests need and that one does not: without `exp`, with `iss`/`aud`, signed with a private key.
 */
async function sign(claims: JWTPayload, options: SignOptions = {}): Promise<string> {
  let jwt = new SignJWT(claims).setProtectedHeader({ alg: options.alg ?? 'HS256', typ: 'JWT' }).setIssuedAt();
  if (options.exp !== null) jwt = jwt.setExpirationTime(options.exp ?? '1h');
  if (options.issuer !== undefined) jwt = jwt.setIssuer(options.issuer);
  if (options.audience !== undefined) jwt = jwt.setAudience(options.audience);
  return jwt.sign(options.key ?? new TextEncoder().encode(SECRET));
}

/** An unsigned token (`alg: none`), made by hand: header and payload in base64url, an empty signature. */
function forgeUnsignedToken(claims: JWTPayload): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT' })}.${part(claims)}.`;
}

/** The epoch second an `exp` `seconds` from now stands for. */
function addSecondsToNow(seconds: number): number {
  return Math.floor(Date.now() / 1000) + seconds;
}

/** Asserts a 401 as the real server answers it: code, message, realm, the error envelope. */
function assertUnauthorized(answer: JsonAnswer, code: string, message: string, realm = 'auth_required'): void {
  assert.equal(answer.status, 401, JSON.stringify(answer.body));
  assert.equal(answer.headers.get('www-authenticate'), `Bearer realm="${realm}"`);
  assert.deepEqual(Object.keys(answer.body).sort(), ['error', 'metadata']);
  assert.deepEqual(answer.body.error, { code, message, details: [] });
  assert.deepEqual(Object.keys(answer.body.metadata).sort(), ['message', 'request_id', 'timestamp']);
  assert.equal(answer.body.metadata.message, message);
  assert.match(answer.body.metadata.request_id, UUID);
  assert.equal(answer.headers.get('x-request-id'), answer.body.metadata.request_id);
  assert.ok(Number.isFinite(Date.parse(answer.body.metadata.timestamp)), answer.body.metadata.timestamp);
}

/** Asserts an error answer other than a 401: status, code, message. */
function assertRefused(answer: JsonAnswer, status: number, code: string, message: string | RegExp): void {
  assert.equal(answer.status, status, JSON.stringify(answer.body));
  assert.equal(answer.body.error.code, code);
  if (typeof message === 'string') assert.equal(answer.body.error.message, message);
  else assert.match(answer.body.error.message, message);
}

/** A fresh run's frame or body. */
function buildFreshRun(text: string) {
  return { invoke_type: 'fresh', messages: [userText(text)] };
}

/** The two routes every HTTP case calls: `GET /v1/graph` and `POST /v1/graph/invoke`, with `headers` (and `query`). */
async function callBoth(url: string, headers: Record<string, string> = {}, query = ''): Promise<JsonAnswer[]> {
  return [await getJson(`${url}/v1/graph${query}`, headers), await postJson(`${url}/v1/graph/invoke${query}`, { messages: [userText('hello')] }, headers)];
}

/** The reply of the test graph (serverHelpers.ts) to "hello". */
const TEST_REPLY = 'No tool needed.';
/** The reply of the quick start's graph (the CLI tests' agent) to "hello". */
const QUICKSTART_REPLY = /^I can tell the time, find your location/;

/** Asserts that both routes answer the run's 200 for `headers`, the run's reply `reply`. */
async function assertServed(url: string, headers: Record<string, string>, reply: string | RegExp = TEST_REPLY): Promise<void> {
  const [graph, invoke] = await callBoth(url, headers);
  assert.equal(graph!.status, 200, JSON.stringify(graph!.body));
  assert.equal(invoke!.status, 200, JSON.stringify(invoke!.body));
  const text = joinLastText(invoke!.body.data.messages);
  if (typeof reply === 'string') assert.equal(text, reply);
  else assert.match(text, reply);
}

/** Asserts that both routes answer the 401 `code`/`message`. */
async function assertBothUnauthorized(url: string, headers: Record<string, string>, code: string, message: string, query = ''): Promise<void> {
  for (const answer of await callBoth(url, headers, query)) assertUnauthorized(answer, code, message);
}

/** Servers made by a suite, closed after it. */
function createServerPool() {
  const open: ApiServer[] = [];
  return {
    /** Starts a server with `options` (a test graph, a quiet log) on a free loopback port. */
    async serve(options: Partial<ApiServerOptions>): Promise<{ url: string; api: ApiServer }> {
      const api = createApiServer({ graph: buildTestGraph(), log: quiet, ...options });
      open.push(api);
      return { url: await api.listen(0, '127.0.0.1'), api };
    },
    async closeAll(): Promise<void> {
      await Promise.all(open.splice(0).map((api) => api.close()));
    },
  };
}

/** How a WebSocket attempt ended: refused on the handshake, or opened (or not) and then closed with a code and reason. */
type SocketEnd = { refusedStatus: number } | { opened: boolean; code: number; reason: string; protocol: string };

/** Opens `/v1/graph/ws` and waits for its end: the HTTP status of a refused handshake, or the close. */
function awaitSocketEnd(url: string, options: { protocols?: string[]; query?: string; headers?: Record<string, string> } = {}): Promise<SocketEnd> {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/v1/graph/ws${options.query ?? ''}`, options.protocols ?? [], { headers: options.headers ?? {} });
  let opened = false;
  return new Promise((resolveEnd, reject) => {
    socket.once('open', () => (opened = true));
    socket.once('unexpected-response', (_req, res) => {
      res.resume();
      socket.terminate();
      resolveEnd({ refusedStatus: res.statusCode ?? 0 });
    });
    socket.once('close', (code, reason) => resolveEnd({ opened, code, reason: reason.toString(), protocol: socket.protocol }));
    socket.once('error', (error) => {
      if (!/Unexpected server response/.test(error.message)) reject(error);
    });
  });
}

describe('JWT over HTTP', () => {
  const pool = createServerPool();
  let url: string;
  before(async () => {
    ({ url } = await pool.serve({ auth: jwtAuthenticator(HS256) }));
  });
  after(() => pool.closeAll());

  test('a valid token: 200 on GET /v1/graph and POST /v1/graph/invoke; /ping needs none (and reads none)', async () => {
    await assertServed(url, bearerHeader(await sign({ user_id: 'alice' })));
    for (const headers of [{}, bearerHeader(await sign({ user_id: 'alice' }, { exp: addSecondsToNow(-60) }))]) {
      const ping = await fetch(`${url}/ping`, { headers });
      assert.equal(ping.status, 200);
      await ping.arrayBuffer();
    }
  });

  test('no credential: 401 REVOKED_TOKEN "Invalid token, please login again", with the realm and the envelope', async () => {
    await assertBothUnauthorized(url, {}, 'REVOKED_TOKEN', 'Invalid token, please login again');
    // An Authorization header with nothing after the scheme is no credential either.
    await assertBothUnauthorized(url, { authorization: 'Bearer ' }, 'REVOKED_TOKEN', 'Invalid token, please login again');
  });

  test('an expired token: 401 EXPIRED_TOKEN "Token has expired, please login again"', async () => {
    const expired = await sign({ user_id: 'alice' }, { exp: addSecondsToNow(-60) });
    await assertBothUnauthorized(url, bearerHeader(expired), 'EXPIRED_TOKEN', 'Token has expired, please login again');
  });

  test('forged tokens: alg none, another key, another algorithm with the right key, garbage: 401 INVALID_TOKEN', async () => {
    const invalid = (token: string) => assertBothUnauthorized(url, bearerHeader(token), 'INVALID_TOKEN', 'Invalid token, please login again');
    await invalid(forgeUnsignedToken({ user_id: 'alice', exp: addSecondsToNow(3600) }));
    await invalid(await sign({ user_id: 'alice' }, { key: new TextEncoder().encode('another-secret-of-more-than-32-bytes-too') }));
    await invalid(await sign({ user_id: 'alice' }, { alg: 'HS384' }));
    await invalid('not.a.token');
    // A valid token with its signature cut off, and one whose payload was swapped for another user's.
    const valid = await sign({ user_id: 'alice' });
    await invalid(valid.slice(0, valid.lastIndexOf('.') + 1));
    const [header, , signature] = valid.split('.');
    await invalid(`${header}.${Buffer.from(JSON.stringify({ user_id: 'mallory', exp: addSecondsToNow(3600) })).toString('base64url')}.${signature}`);
  });

  test('claims: exp is required; user_id is required ("Invalid token, user_id missing"); an aud the server names none of is refused', async () => {
    await assertBothUnauthorized(url, bearerHeader(await sign({ user_id: 'alice' }, { exp: null })), 'INVALID_TOKEN', 'Invalid token, please login again');
    await assertBothUnauthorized(url, bearerHeader(await sign({ sub: 'alice' })), 'INVALID_TOKEN', 'Invalid token, user_id missing');
    await assertBothUnauthorized(url, bearerHeader(await sign({ user_id: 'alice' }, { audience: 'some-api' })), 'INVALID_TOKEN', 'Invalid token, please login again');
  });

  test('as PyJWT judges them: an empty aud names no audience (served); an iat in the future is not yet valid (INVALID_TOKEN)', async () => {
    for (const aud of ['', [], null]) await assertServed(url, bearerHeader(await sign({ user_id: 'alice', aud } as JWTPayload)));
    const future = await new SignJWT({ user_id: 'alice' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt(addSecondsToNow(3600))
      .setExpirationTime(addSecondsToNow(7200))
      .sign(new TextEncoder().encode(SECRET));
    await assertBothUnauthorized(url, bearerHeader(future), 'INVALID_TOKEN', 'Invalid token, please login again');
  });

  test('where the token is read: Authorization Bearer in any case; not ?token= on HTTP, not a cookie, not X-Api-Key, not Basic', async () => {
    const token = await sign({ user_id: 'alice' });
    await assertServed(url, { authorization: `bearer ${token}` });
    await assertServed(url, { authorization: `BEARER ${token}` });
    const revoked = (headers: Record<string, string>, query = '') => assertBothUnauthorized(url, headers, 'REVOKED_TOKEN', 'Invalid token, please login again', query);
    await revoked({}, `?token=${token}`);
    await revoked({ cookie: `token=${token}; access_token=${token}` });
    await revoked({ 'x-api-key': token });
    await revoked({ authorization: `Basic ${Buffer.from(`alice:${token}`).toString('base64')}` });
    await revoked({ authorization: `Basic ${token}` });
    await revoked({ authorization: token });
  });

  test('the subprotocol pair is read on HTTP too, as the real server reads it', async () => {
    await assertServed(url, { 'sec-websocket-protocol': `10xgraph-bearer, ${await sign({ user_id: 'alice' })}` });
  });
});

describe('JWT with JWT_ISSUER and JWT_AUDIENCE', () => {
  const pool = createServerPool();
  let url: string;
  before(async () => {
    ({ url } = await pool.serve({ auth: jwtAuthenticator({ ...HS256, issuer: 'https://issuer.example', audience: '10xgraph-api' }) }));
  });
  after(() => pool.closeAll());

  test('the right iss and aud: 200; a wrong or missing one of either: 401 INVALID_TOKEN', async () => {
    const claims = { user_id: 'alice' };
    await assertServed(url, bearerHeader(await sign(claims, { issuer: 'https://issuer.example', audience: '10xgraph-api' })));
    // `aud` may be a list that names the server.
    await assertServed(url, bearerHeader(await sign(claims, { issuer: 'https://issuer.example', audience: ['other', '10xgraph-api'] })));
    const invalid = async (options: SignOptions) => assertBothUnauthorized(url, bearerHeader(await sign(claims, options)), 'INVALID_TOKEN', 'Invalid token, please login again');
    await invalid({ issuer: 'https://evil.example', audience: '10xgraph-api' });
    await invalid({ issuer: 'https://issuer.example', audience: 'another-api' });
    await invalid({ audience: '10xgraph-api' });
    await invalid({ issuer: 'https://issuer.example' });
    await invalid({});
  });

  test('an expired token is EXPIRED_TOKEN with the right iss and aud, and with a wrong one (exp is judged first); a missing one is INVALID_TOKEN', async () => {
    const expired = (options: SignOptions) => sign({ user_id: 'alice' }, { ...options, exp: addSecondsToNow(-60) });
    for (const options of [
      { issuer: 'https://issuer.example', audience: '10xgraph-api' },
      { issuer: 'https://evil.example', audience: '10xgraph-api' },
      { issuer: 'https://issuer.example', audience: 'another-api' },
    ]) {
      await assertBothUnauthorized(url, bearerHeader(await expired(options)), 'EXPIRED_TOKEN', 'Token has expired, please login again');
    }
    await assertBothUnauthorized(url, bearerHeader(await expired({ audience: '10xgraph-api' })), 'INVALID_TOKEN', 'Invalid token, please login again');
  });
});

describe('JWT with key pairs (RS256, ES256)', () => {
  const pool = createServerPool();
  after(() => pool.closeAll());

  const pairs = {
    RS256: () => generateKeyPairSync('rsa', { modulusLength: 2048 }),
    ES256: () => generateKeyPairSync('ec', { namedCurve: 'P-256' }),
  };
  for (const [algorithm, generate] of Object.entries(pairs)) {
    test(`${algorithm}: the server holds the PEM public key; a token of the private key is served, others are INVALID_TOKEN`, async () => {
      const { publicKey, privateKey } = generate();
      const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
      const { url } = await pool.serve({ auth: jwtAuthenticator({ secret: pem, algorithm }) });
      await assertServed(url, bearerHeader(await sign({ user_id: 'alice' }, { alg: algorithm, key: privateKey })));
      const invalid = (token: string) => assertBothUnauthorized(url, bearerHeader(token), 'INVALID_TOKEN', 'Invalid token, please login again');
      await invalid(await sign({ user_id: 'alice' }, { alg: algorithm, key: generate().privateKey }));
      // The key confusion: the public key (which anyone may have) used as an HMAC secret.
      await invalid(await sign({ user_id: 'alice' }, { alg: 'HS256', key: new TextEncoder().encode(pem) }));
      await invalid(forgeUnsignedToken({ user_id: 'alice', exp: addSecondsToNow(3600) }));
      await assertBothUnauthorized(
        url,
        bearerHeader(await sign({ user_id: 'alice' }, { alg: algorithm, key: privateKey, exp: addSecondsToNow(-60) })),
        'EXPIRED_TOKEN',
        'Token has expired, please login again',
      );
    });
  }
});

describe('JWT over the WebSocket /v1/graph/ws', () => {
  const pool = createServerPool();
  let url: string;
  before(async () => {
    ({ url } = await pool.serve({ auth: jwtAuthenticator(HS256) }));
  });
  after(() => pool.closeAll());

  test('the token after the 10xgraph-bearer subprotocol, or as ?token=: the socket opens and runs', async () => {
    const token = await sign({ user_id: 'alice' });
    const sessions = [await WsSession.open(url, { protocols: ['10xgraph-bearer', token] }), await WsSession.open(url, { query: `?token=${token}` })];
    try {
      assert.deepEqual(
        sessions.map((ws) => ws.socket.protocol),
        ['10xgraph-bearer', ''],
      );
      for (const ws of sessions) assert.equal(joinLastText(collectMessages(await ws.run(buildFreshRun('hello')))), TEST_REPLY);
    } finally {
      for (const ws of sessions) await ws.close();
    }
  });

  test('no token, an expired, a forged one, one without user_id: the handshake completes and closes 1008 with the 401 message', async () => {
    const cases: Array<[string, Parameters<typeof awaitSocketEnd>[1], string]> = [
      ['no token', {}, 'Invalid token, please login again'],
      ['expired', { protocols: ['10xgraph-bearer', await sign({ user_id: 'alice' }, { exp: addSecondsToNow(-60) })] }, 'Token has expired, please login again'],
      ['expired in the query', { query: `?token=${await sign({ user_id: 'alice' }, { exp: addSecondsToNow(-60) })}` }, 'Token has expired, please login again'],
      ['alg none', { query: `?token=${forgeUnsignedToken({ user_id: 'alice', exp: addSecondsToNow(3600) })}` }, 'Invalid token, please login again'],
      ['another algorithm', { protocols: ['10xgraph-bearer', await sign({ user_id: 'alice' }, { alg: 'HS384' })] }, 'Invalid token, please login again'],
      ['garbage', { protocols: ['10xgraph-bearer', 'garbage'] }, 'Invalid token, please login again'],
      ['no user_id', { protocols: ['10xgraph-bearer', await sign({ sub: 'alice' })] }, 'Invalid token, user_id missing'],
      ['a cookie', { headers: { cookie: `token=${await sign({ user_id: 'alice' })}` } }, 'Invalid token, please login again'],
    ];
    for (const [name, options, reason] of cases) {
      assert.deepEqual(await awaitSocketEnd(url, options), { opened: true, code: 1008, reason, protocol: options?.protocols ? '10xgraph-bearer' : '' }, name);
    }
  });

  test('a token that expires while the socket is open: the next run gets "Session expired. Reconnect with a valid token." and the socket closes 1008', async () => {
    const exp = addSecondsToNow(2);
    const ws = await WsSession.open(url, { protocols: ['10xgraph-bearer', await sign({ user_id: 'alice' }, { exp })] });
    const first = await ws.run(buildFreshRun('hello'));
    assert.equal(joinLastText(collectMessages(first)), TEST_REPLY);
    // The token is past its exp once the clock's second reaches it (exp <= now is expired).
    await poll('the token to expire', () => Math.floor(Date.now() / 1000) >= exp, 10_000, 20);
    const chunks: any[] = [];
    ws.socket.on('message', (data) => chunks.push(JSON.parse(data.toString())));
    const closed = new Promise<number>((resolveClose) => ws.socket.once('close', (code) => resolveClose(code)));
    ws.send(buildFreshRun('hello again'));
    assert.equal(await closed, 1008);
    assert.deepEqual(
      chunks.map((chunk) => [chunk.event, chunk.data?.reason]),
      [['error', 'Session expired. Reconnect with a valid token.']],
    );
  });
});

describe('custom auth (customAuthenticator)', () => {
  const pool = createServerPool();
  after(() => pool.closeAll());

  /** A request's header, as a custom module reads it. */
  const readUserHeader = (request: { headers: Record<string, unknown> }) => (typeof request.headers['x-user'] === 'string' ? request.headers['x-user'] : undefined);
  const serveWith = async (exported: unknown, log: (line: string) => void = () => {}) =>
    (await pool.serve({ auth: customAuthenticator(exported, "'auth:authenticate'", log) })).url;

  /** Asserts that `x-user: alice` is served and a request without it is refused 403 "Not authorized to read graph". */
  async function assertHeaderGate(url: string): Promise<void> {
    await assertServed(url, { 'x-user': 'alice' });
    assertRefused(await getJson(`${url}/v1/graph`), 403, 'HTTPException', 'Not authorized to read graph');
    assertRefused(await postJson(`${url}/v1/graph/invoke`, { messages: [userText('hello')] }), 403, 'HTTPException', 'Not authorized to invoke graph');
  }

  test('a function returning {user_id} from the header x-user', async () => {
    const seen: any[] = [];
    const url = await serveWith((request: any) => {
      seen.push(request);
      const user = readUserHeader(request);
      return user ? { user_id: user } : null;
    });
    await assertHeaderGate(url);
    // It is told the request: method, path and query, headers, the credential if any.
    seen.length = 0;
    await getJson(`${url}/v1/graph?x=1`, { 'x-user': 'alice', authorization: 'Bearer abc' });
    assert.deepEqual(
      seen.map((r) => [r.method, r.url, r.websocket, r.credential, r.headers['x-user']]),
      [['GET', '/v1/graph?x=1', false, 'abc', 'alice']],
    );
  });

  test('a class with authenticate(), made once', async () => {
    let made = 0;
    class HeaderAuth {
      constructor() {
        made++;
      }
      authenticate(request: { headers: Record<string, unknown> }) {
        const user = readUserHeader(request);
        return user ? { user_id: user } : undefined;
      }
    }
    await assertHeaderGate(await serveWith(HeaderAuth));
    assert.equal(made, 1);
  });

  test('an object with authenticate(), and an async function', async () => {
    await assertHeaderGate(await serveWith({ authenticate: (request: any) => (readUserHeader(request) ? { user_id: readUserHeader(request) } : null) }));
    await assertHeaderGate(
      await serveWith(async (request: any) => {
        await Promise.resolve();
        return readUserHeader(request) ? { user_id: readUserHeader(request) } : null;
      }),
    );
  });

  test('returning nothing: 403 "Not authorized to read graph" on GET /v1/graph (allow_all); on the WebSocket a close 1008', async () => {
    const url = await serveWith(() => null);
    assertRefused(await getJson(`${url}/v1/graph`, { 'x-user': 'alice' }), 403, 'HTTPException', 'Not authorized to read graph');
    assert.deepEqual(await awaitSocketEnd(url), { opened: true, code: 1008, reason: 'Not authorized to stream graph', protocol: '' });
  });

  test('throwing {status: 401, message}: 401 with that message and the code HTTPException; on the WebSocket a close 1008 with it', async () => {
    const url = await serveWith(() => {
      throw { status: 401, message: 'no entry' };
    });
    for (const answer of await callBoth(url, { 'x-user': 'alice' })) assertRefused(answer, 401, 'HTTPException', 'no entry');
    assert.deepEqual(await awaitSocketEnd(url), { opened: true, code: 1008, reason: 'no entry', protocol: '' });
  });

  test('throwing a plain Error: 500 that does not show it, and the log gets its stack', async () => {
    const lines: string[] = [];
    const failure = new Error('the user database is down');
    const url = await serveWith(
      () => {
        throw failure;
      },
      (line) => lines.push(line),
    );
    const answer = await getJson(`${url}/v1/graph`, { 'x-user': 'alice' });
    assert.equal(answer.status, 500);
    assert.doesNotMatch(JSON.stringify(answer.body), /user database/);
    assert.equal(lines.length, 1);
    assert.ok(lines[0]!.includes(failure.stack!), lines[0]);
  });

  test('the x-user header on the WebSocket: the socket opens and runs as that user', async () => {
    const url = await serveWith((request: any) => (readUserHeader(request) ? { user_id: readUserHeader(request) } : null));
    const ws = await WsSession.open(url, { headers: { 'x-user': 'alice' } });
    try {
      assert.equal(joinLastText(collectMessages(await ws.run(buildFreshRun('hello')))), TEST_REPLY);
    } finally {
      await ws.close();
    }
  });
});

describe('TENXGRAPH_TOKEN alone (unchanged)', () => {
  const pool = createServerPool();
  let url: string;
  before(async () => {
    ({ url } = await pool.serve({ token: 's3cret' }));
  });
  after(() => pool.closeAll());

  test('a wrong token on HTTP: 401 INVALID_TOKEN with realm "10xgraph"; on a WebSocket handshake: HTTP 401', async () => {
    const message = 'This server needs a token: send the header Authorization: Bearer <TENXGRAPH_TOKEN>.';
    for (const answer of await callBoth(url, { authorization: 'Bearer wrong' })) assertUnauthorized(answer, 'INVALID_TOKEN', message, '10xgraph');
    for (const answer of await callBoth(url)) assertUnauthorized(answer, 'INVALID_TOKEN', message, '10xgraph');
    await assertServed(url, { authorization: 'Bearer s3cret' });
    assert.deepEqual(await awaitSocketEnd(url, { protocols: ['10xgraph-bearer', 'wrong'] }), { refusedStatus: 401 });
    assert.deepEqual(await awaitSocketEnd(url, { query: '?token=wrong' }), { refusedStatus: 401 });
    assert.deepEqual(await awaitSocketEnd(url), { refusedStatus: 401 });
    // A JWT means nothing to this mode.
    assert.deepEqual(await awaitSocketEnd(url, { protocols: ['10xgraph-bearer', await sign({ user_id: 'alice' })] }), { refusedStatus: 401 });
  });
});

// ---- Start-up: the built CLI (run `node esbuild.mjs` after changing runtime/src). ----

const CLI = resolve(ROOT, 'runtime', 'dist', 'cli.js');
const AGENT = 'graph:app';

/** The environment of a CLI process: this one's, without the variables these tests set themselves. */
function cliEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['JWT_SECRET_KEY', 'JWT_ALGORITHM', 'JWT_ISSUER', 'JWT_AUDIENCE', 'MODE', 'TENXGRAPH_TOKEN', 'TENXGRAPH_DATABASE_URL']) delete env[name];
  return { ...env, ...extra };
}

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

describe('10xgraph api start-up with auth (the built CLI)', () => {
  // The quick start's graph beside the configs, with a node_modules link for its `import '10xgraph'`.
  let folder: string;
  before(() => {
    folder = mkdtempSync(join(tmpdir(), '10xgraph-api-auth-'));
    copyFileSync(join(ROOT, 'examples', 'quickstart', 'graph.ts'), join(folder, 'graph.ts'));
    symlinkSync(join(ROOT, 'node_modules'), join(folder, 'node_modules'), 'dir');
  });
  const children = new Set<ChildProcessWithoutNullStreams>();
  after(async () => {
    for (const child of children) child.kill('SIGKILL');
    rmSync(folder, { recursive: true, force: true });
  });

  function writeConfig(name: string, config: unknown): void {
    writeFileSync(join(folder, name), JSON.stringify(config, null, 2));
  }

  function spawnApi(config: string, env: Record<string, string>): ChildProcessWithoutNullStreams {
    const child = spawn(process.execPath, [CLI, 'api', '--config', config, '--port', '0', '--db', ':memory:'], { cwd: folder, env: cliEnv(env) });
    children.add(child);
    child.once('close', () => children.delete(child));
    return child;
  }

  /** Runs `10xgraph api` on `config` to its end (a refusal). */
  function runApi(config: string, env: Record<string, string> = {}): Promise<Outcome> {
    return new Promise((resolveOutcome, reject) => {
      const child = spawnApi(config, env);
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      child.stderr.on('data', (chunk) => (stderr += chunk));
      child.on('error', reject);
      child.on('close', (code) => resolveOutcome({ code, stdout, stderr }));
    });
  }

  /** Starts `10xgraph api` on `config` and resolves once it listens; `stop()` ends it with SIGTERM and resolves to its exit code. */
  async function startApi(config: string, env: Record<string, string> = {}) {
    const child = spawnApi(config, env);
    const output = { stdout: '', stderr: '' };
    child.stderr.on('data', (chunk) => (output.stderr += chunk));
    const exited = new Promise<number | null>((resolveExit) => child.on('close', resolveExit));
    const url = await new Promise<string>((resolveUrl, reject) => {
      child.stdout.on('data', (chunk) => {
        output.stdout += chunk;
        const match = /Listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output.stdout);
        if (match) resolveUrl(match[1]!);
      });
      child.once('close', (code) => reject(new Error(`exited (${code}) before listening: ${output.stderr}`)));
    });
    return {
      url,
      output,
      async stop(): Promise<number | null> {
        child.kill('SIGTERM');
        return exited;
      },
    };
  }

  test('a setting it cannot apply is refused, never ignored: rate_limit.backend "custom" (a Python object) exits 1 naming it', async () => {
    writeConfig('custom-limit.json', { agent: AGENT, rate_limit: { backend: 'custom' } });
    const outcome = await runApi('custom-limit.json');
    assert.equal(outcome.code, 1, outcome.stderr);
    assert.match(
      outcome.stderr,
      /custom-limit\.json: error "rate_limit\.backend" is "custom", a BaseRateLimitBackend object bound in the InjectQ container of the Python server, which 10xgraph api cannot load; use "memory" or "redis"\./,
    );
    assert.doesNotMatch(outcome.stdout, /Listening/);
    // Off (`"enabled": false`), the same value is checked and nothing is applied: it starts, as the Python server does.
    writeConfig('custom-limit-off.json', { agent: AGENT, rate_limit: { backend: 'custom', enabled: false } });
    const off = await startApi('custom-limit-off.json');
    assert.doesNotMatch(off.output.stdout, /Rate limits:/);
    assert.equal(await off.stop(), 0);
  });

  test('"auth": "jwt" without JWT_SECRET_KEY: exit 1 naming it', async () => {
    writeConfig('jwt.json', { agent: AGENT, auth: 'jwt' });
    const outcome = await runApi('jwt.json');
    assert.equal(outcome.code, 1, outcome.stderr);
    assert.match(outcome.stderr, /JWT_SECRET_KEY/);
    assert.doesNotMatch(outcome.stdout, /Listening/);
    const noAlgorithm = await runApi('jwt.json', { JWT_SECRET_KEY: SECRET });
    assert.equal(noAlgorithm.code, 1, noAlgorithm.stderr);
    assert.match(noAlgorithm.stderr, /JWT_ALGORITHM/);
  });

  test('JWT_ALGORITHM=none: exit 1 naming the algorithms it takes', async () => {
    writeConfig('jwt.json', { agent: AGENT, auth: 'jwt' });
    const outcome = await runApi('jwt.json', { JWT_SECRET_KEY: SECRET, JWT_ALGORITHM: 'none' });
    assert.equal(outcome.code, 1, outcome.stderr);
    assert.match(outcome.stderr, /JWT_ALGORITHM is "none"/);
    assert.ok(outcome.stderr.includes(JWT_ALGORITHMS.join(', ')), outcome.stderr);
  });

  test('an HS256 secret of 10 bytes with MODE=production: exit 1 with the 32-byte sentence', async () => {
    writeConfig('jwt.json', { agent: AGENT, auth: 'jwt' });
    const outcome = await runApi('jwt.json', { JWT_SECRET_KEY: 'ten-bytes!', JWT_ALGORITHM: 'HS256', MODE: 'production' });
    assert.equal(outcome.code, 1, outcome.stderr);
    assert.match(outcome.stderr, /JWT_SECRET_KEY is shorter than 32 bytes, too weak for HS256/);
    assert.match(outcome.stderr, /MODE=production refuses it/);
    assert.doesNotMatch(outcome.stdout, /Listening/);
  });

  test('the same secret without MODE: starts, with the warning on stderr, and verifies tokens of that secret', async () => {
    writeConfig('jwt.json', { agent: AGENT, auth: 'jwt' });
    const server = await startApi('jwt.json', { JWT_SECRET_KEY: 'ten-bytes!', JWT_ALGORITHM: 'HS256' });
    try {
      await poll('the short-secret warning', () => /JWT_SECRET_KEY is shorter than 32 bytes, too weak for HS256/.test(server.output.stderr), 10_000);
      assert.doesNotMatch(server.output.stderr, /MODE=production refuses it/);
      const token = await sign({ user_id: 'alice' }, { key: new TextEncoder().encode('ten-bytes!') });
      assert.equal((await getJson(`${server.url}/v1/graph`, bearerHeader(token))).status, 200);
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });

  test('"auth": "jwt" with its variables: logs "Authentication: JWT (HS256)", serves tokens, refuses others', async () => {
    writeConfig('jwt.json', { agent: AGENT, auth: 'jwt' });
    const server = await startApi('jwt.json', { JWT_SECRET_KEY: SECRET, JWT_ALGORITHM: 'HS256' });
    try {
      assert.match(server.output.stdout, /^Authentication: JWT \(HS256\)$/m);
      assert.match(server.output.stdout, /^Authorization: allow all/m);
      await assertServed(server.url, bearerHeader(await sign({ user_id: 'alice' })), QUICKSTART_REPLY);
      await assertBothUnauthorized(server.url, {}, 'REVOKED_TOKEN', 'Invalid token, please login again');
      await assertBothUnauthorized(
        server.url,
        bearerHeader(await sign({ user_id: 'alice' }, { exp: addSecondsToNow(-60) })),
        'EXPIRED_TOKEN',
        'Token has expired, please login again',
      );
      assert.deepEqual(await awaitSocketEnd(server.url), { opened: true, code: 1008, reason: 'Invalid token, please login again', protocol: '' });
      assert.doesNotMatch(server.output.stderr, /shorter than 32 bytes/);
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });

  test('TENXGRAPH_TOKEN together with "auth": exit 1 naming both', async () => {
    writeConfig('jwt.json', { agent: AGENT, auth: 'jwt' });
    const outcome = await runApi('jwt.json', { JWT_SECRET_KEY: SECRET, JWT_ALGORITHM: 'HS256', TENXGRAPH_TOKEN: 's3cret' });
    assert.equal(outcome.code, 1, outcome.stderr);
    assert.match(outcome.stderr, /TENXGRAPH_TOKEN is set and the config sets "auth"/);
    assert.doesNotMatch(outcome.stdout, /Listening/);
  });

  test('settings of the Python server (injectq, observability): one WARNING line naming them', async () => {
    writeFileSync(join(folder, 'deps.py'), 'from injectq import InjectQ\n\ncontainer = InjectQ.get_instance()\n');
    writeConfig('python-keys.json', { agent: AGENT, injectq: 'deps:container', observability: { level: 'standard' } });
    const server = await startApi('python-keys.json');
    try {
      await poll('the not-applied line', () => /Not applied by 10xgraph api/.test(server.output.stderr), 10_000);
      const lines = server.output.stderr.split('\n').filter((line) => line.includes('Not applied by 10xgraph api'));
      assert.deepEqual(lines, ['Not applied by 10xgraph api (settings of the Python 10xGraph server and its tools): injectq, observability']);
    } finally {
      assert.equal(await server.stop(), 0);
      rmSync(join(folder, 'deps.py'));
    }
  });

  test('"authorization" without "auth": starts, with the warning that it has no effect', async () => {
    writeConfig('authorization-only.json', { agent: AGENT, authorization: 'ownership' });
    const server = await startApi('authorization-only.json');
    try {
      await poll('the no-effect warning', () => server.output.stderr.includes('"authorization" has no effect without "auth"'), 10_000);
      assert.doesNotMatch(server.output.stdout, /^Authorization:/m);
      // Nobody is identified, so nothing is checked.
      assert.equal((await getJson(`${server.url}/v1/graph`)).status, 200);
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });

  test('a custom auth module that does not exist: exit 1 with a sentence naming auth.path', async () => {
    writeConfig('custom-missing.json', { agent: AGENT, auth: { method: 'custom', path: 'nowhere:authenticate' } });
    const outcome = await runApi('custom-missing.json');
    assert.equal(outcome.code, 1, outcome.stderr);
    assert.match(outcome.stderr, /"auth\.path" 'nowhere:authenticate'/);
    assert.doesNotMatch(outcome.stdout, /Listening/);
  });

  test('a TypeScript auth module beside the config ("auth": {"method": "custom", "path": "auth:authenticate"}): the right header is served, others 403', async () => {
    writeFileSync(
      join(folder, 'auth.ts'),
      [
        'interface AuthRequest {',
        '  headers: Record<string, string | string[] | undefined>;',
        '}',
        '',
        '/** Lets in the users the header x-user names, if they are ours. */',
        'export function authenticate(request: AuthRequest): { user_id: string } | null {',
        "  const user = request.headers['x-user'];",
        "  return user === 'alice' || user === 'bob' ? { user_id: user } : null;",
        '}',
        '',
      ].join('\n'),
    );
    writeConfig('custom.json', { agent: AGENT, auth: { method: 'custom', path: 'auth:authenticate' } });
    const server = await startApi('custom.json');
    try {
      assert.match(server.output.stdout, /^Authentication: the module auth:authenticate$/m);
      await assertServed(server.url, { 'x-user': 'alice' }, QUICKSTART_REPLY);
      assertRefused(await getJson(`${server.url}/v1/graph`), 403, 'HTTPException', 'Not authorized to read graph');
      assertRefused(await getJson(`${server.url}/v1/graph`, { 'x-user': 'mallory' }), 403, 'HTTPException', 'Not authorized to read graph');
      assertRefused(await postJson(`${server.url}/v1/graph/invoke`, { messages: [userText('hello')] }), 403, 'HTTPException', 'Not authorized to invoke graph');
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });
});
