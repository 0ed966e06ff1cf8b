/**
 * CORS and origins on `10xgraph api`, over raw HTTP on loopback (browsers are the other helper's
 * suite): preflights, the allowed origin echoed (never `*`), `Vary: Origin`, loopback origins
 * without a token and only listed ones with a token, the WebSocket upgrade judged by the same
 * list, the token in `Sec-WebSocket-Protocol` after the `10xgraph-bearer` sentinel, refusals without
 * CORS headers and with one log line,
 * and bad origins and origin lists.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { join } from 'node:path';
import WebSocket from 'ws';
import { createApiServer, type ApiServer } from '../../runtime/src/api/index';
import { TenxGraphClient } from '../../client-sdk/src';
import { textOf } from '../../client-sdk/src/wire';
import { poll } from '../support/poll';
import { ROOT, QUICKSTART_CONFIG, buildTestGraph, userText } from './serverHelpers';
import { CapturedLog, closesWithin, corsHeadersOf, handshake, send } from './rawSocket';

const TOKEN = 'cors-s3cret';
const INVOKE_BODY = JSON.stringify({ messages: [userText('hello')] });

async function serve(options: { token?: string; corsOrigins?: string[] } = {}): Promise<{ api: ApiServer; port: number; log: CapturedLog }> {
  const log = new CapturedLog();
  const api = createApiServer({ graph: buildTestGraph(), token: options.token ?? '', corsOrigins: options.corsOrigins ?? [], allowedHosts: [], log });
  const url = await api.listen(0, '127.0.0.1');
  return { api, port: Number(new URL(url).port), log };
}

function preflight(port: number, origin: string, path = '/v1/graph/invoke', extra: Record<string, string> = {}) {
  return send(port, 'OPTIONS', path, { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type', ...extra });
}

describe('CORS without a token', () => {
  let api: ApiServer;
  let port: number;
  let log: CapturedLog;
  before(async () => ({ api, port, log } = await serve({ corsOrigins: ['https://app.example.com'] })));
  after(() => api.close());

  test('a preflight from any loopback origin is answered 204, the origin echoed, Authorization and Content-Type allowed', async () => {
    for (const origin of ['http://localhost:5173', 'http://127.0.0.1:3000', 'http://[::1]:8080', 'http://127.9.9.9:1', 'https://localhost:4443']) {
      const answer = await preflight(port, origin);
      assert.equal(answer.status, 204, origin);
      const cors = corsHeadersOf(answer);
      assert.equal(cors['access-control-allow-origin'], origin);
      assert.match(cors['access-control-allow-methods']!, /\bPOST\b/);
      assert.deepEqual(cors['access-control-allow-headers']!.toLowerCase().split(/, */).sort(), ['authorization', 'content-type']);
      assert.ok(Number(cors['access-control-max-age']) > 0);
      assert.equal(answer.headers.vary, 'Origin');
    }
  });

  test('a listed origin is allowed too; Chromium private-network preflights are answered', async () => {
    const answer = await preflight(port, 'https://app.example.com', '/v1/graph/stream', { 'access-control-request-private-network': 'true' });
    assert.equal(answer.status, 204);
    assert.equal(answer.headers['access-control-allow-origin'], 'https://app.example.com');
    assert.equal(answer.headers['access-control-allow-private-network'], 'true');
  });

  test('the actual request echoes the origin, exposes the request id and varies on Origin; no Origin gets no CORS headers', async () => {
    const allowed = await send(port, 'POST', '/v1/graph/invoke', { 'content-type': 'application/json', origin: 'http://localhost:5173' }, INVOKE_BODY);
    assert.equal(allowed.status, 200);
    assert.equal(allowed.headers['access-control-allow-origin'], 'http://localhost:5173');
    assert.match(String(allowed.headers['access-control-expose-headers']), /X-Request-Id/i);
    assert.equal(allowed.headers.vary, 'Origin');
    const stream = await send(port, 'POST', '/v1/graph/stream', { 'content-type': 'application/json', origin: 'http://localhost:5173' }, INVOKE_BODY);
    assert.equal(stream.status, 200);
    assert.equal(stream.headers['access-control-allow-origin'], 'http://localhost:5173');
    assert.equal(JSON.parse(stream.body.trim().split('\n').at(-1)!).message.role, 'assistant', 'the stream ends with the answer');
    const plain = await send(port, 'GET', '/v1/graph');
    assert.equal(plain.status, 200);
    assert.deepEqual(corsHeadersOf(plain), {});
    assert.equal(plain.headers.vary, 'Origin');
    // Error answers carry the CORS headers too, so a page can read why it was refused.
    const missing = await send(port, 'POST', '/v1/graph/invoke', { 'content-type': 'application/json', origin: 'http://localhost:5173' }, '{}');
    assert.equal(missing.status, 422);
    assert.equal(missing.headers['access-control-allow-origin'], 'http://localhost:5173');
  });

  test('the thread routes and stop answer preflights with their own methods, and a page reads a thread', async () => {
    const read = await preflight(port, 'http://localhost:5173', '/v1/threads/t-1', { 'access-control-request-method': 'GET' });
    assert.equal(read.status, 204);
    assert.equal(read.headers['access-control-allow-origin'], 'http://localhost:5173');
    assert.deepEqual(String(read.headers['access-control-allow-methods']).split(/, */).sort(), ['DELETE', 'GET']);
    const state = await preflight(port, 'http://localhost:5173', '/v1/threads/t-1/state', { 'access-control-request-method': 'PUT' });
    assert.equal(state.status, 204);
    assert.deepEqual(String(state.headers['access-control-allow-methods']).split(/, */).sort(), ['DELETE', 'GET', 'PUT']);
    const stop = await preflight(port, 'http://localhost:5173', '/v1/graph/stop');
    assert.equal(stop.status, 204);
    assert.equal(stop.headers['access-control-allow-methods'], 'POST');
    const refused = await preflight(port, 'http://evil.example', '/v1/threads/t-1', { 'access-control-request-method': 'DELETE' });
    assert.equal(refused.status, 403);
    assert.equal(refused.headers['access-control-allow-origin'], undefined);
    const absent = await send(port, 'GET', '/v1/threads/no-such-thread', { origin: 'http://localhost:5173' });
    assert.equal(absent.status, 200);
    assert.equal(JSON.parse(absent.body).data.thread_data.thread, null);
    assert.equal(absent.headers['access-control-allow-origin'], 'http://localhost:5173');
    const missing = await send(port, 'GET', '/v1/threads/no-such-thread/messages/m-1', { origin: 'http://localhost:5173' });
    assert.equal(missing.status, 404);
    assert.equal(JSON.parse(missing.body).error.code, 'RESOURCE_NOT_FOUND');
    assert.equal(missing.headers['access-control-allow-origin'], 'http://localhost:5173');
  });

  test('a preflight for an unknown route is 404', async () => {
    assert.equal((await preflight(port, 'http://localhost:5173', '/v1/nothing')).status, 404);
  });

  test('an origin that is neither loopback nor listed: 403, no CORS headers, one log line naming it', async () => {
    for (const origin of ['https://evil.example', 'http://127.attacker.example:5173', 'http://localhost.evil.example', 'https://app.example.com:8443', 'http://app.example.com']) {
      const before = log.mentioning(origin).length;
      for (const answer of [await preflight(port, origin), await send(port, 'POST', '/v1/graph/invoke', { 'content-type': 'application/json', origin }, INVOKE_BODY)]) {
        assert.equal(answer.status, 403, origin);
        assert.deepEqual(corsHeadersOf(answer), {}, origin);
        assert.equal(JSON.parse(answer.body).error.code, 'ORIGIN_NOT_ALLOWED');
      }
      const lines = log.mentioning(origin).slice(before);
      assert.equal(lines.length, 2, `one line per refusal naming ${origin}: ${JSON.stringify(lines)}`);
      assert.ok(lines.every((entry) => entry.level === 'warn' && /Refused a (preflight|request) from the origin/.test(entry.line)));
    }
  });

  test("'Origin: null', a 10 KB origin and control characters: refused with a clear message, logged escaped and cut", async () => {
    const nul = await send(port, 'POST', '/v1/graph/invoke', { 'content-type': 'application/json', origin: 'null' }, INVOKE_BODY);
    assert.equal(nul.status, 403);
    assert.match(JSON.parse(nul.body).error.message, /'null' are refused: pages without an origin/);
    assert.deepEqual(corsHeadersOf(nul), {});

    const long = `http://${'a'.repeat(10 * 1024)}.example`;
    const before = log.lines.length;
    const big = await preflight(port, long);
    assert.equal(big.status, 403);
    assert.ok(big.body.length < 1500, `the refusal repeats the whole origin (${big.body.length} bytes)`);
    const bigLines = log.lines.slice(before).filter((entry) => entry.fields?.event === 'origin_refused');
    assert.equal(bigLines.length, 1);
    assert.ok(bigLines[0]!.line.length < 800, `a ${bigLines[0]!.line.length}-character log line`);
    assert.match(bigLines[0]!.line, /\(10\d{3} characters\)/);

    // Bytes 0x85 and 0x9b are C1 controls (NEL, CSI) once read as Latin-1: they must not reach the log raw.
    const raw = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      let text = '';
      socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
      socket.on('close', () => resolve(text));
      socket.write(Buffer.from(`GET /v1/graph HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://evil.example\x85\x9b31m\r\nConnection: close\r\n\r\n`, 'latin1'));
    });
    assert.match(raw, /^HTTP\/1\.1 403 /);
    const forged = log.lines.filter((entry) => entry.fields?.event === 'origin_refused').at(-1)!;
    assert.match(forged.line, /evil\.example\\x85\\x9b31m/);
    assert.doesNotMatch(forged.line, /[\u0080-\u009f]/);
  });

  test('the WebSocket upgrade is judged by the same origins; it needs no subprotocol, and echoes the bearer sentinel when offered', async () => {
    for (const origin of ['http://localhost:5173', 'https://app.example.com']) {
      const plain = await handshake(port, '/v1/graph/ws', { host: `127.0.0.1:${port}`, origin });
      assert.equal(plain.status, 101, origin);
      assert.equal(plain.headers['sec-websocket-protocol'], undefined);
      plain.socket.destroy();
      const offered = await handshake(port, '/v1/graph/ws', { host: `127.0.0.1:${port}`, origin, 'sec-websocket-protocol': '10xgraph-bearer, unused' });
      assert.equal(offered.status, 101, origin);
      assert.equal(offered.headers['sec-websocket-protocol'], '10xgraph-bearer');
      offered.socket.destroy();
    }
    for (const origin of ['https://evil.example', 'http://127.attacker.example', 'null']) {
      const shake = await handshake(port, '/v1/graph/ws', { host: `127.0.0.1:${port}`, origin });
      assert.equal(shake.status, 403, origin);
      assert.ok(await closesWithin(shake.closed), 'the server kept the refused socket open');
    }
  });
});

describe('CORS with a token', () => {
  let api: ApiServer;
  let port: number;
  let log: CapturedLog;
  before(async () => ({ api, port, log } = await serve({ token: TOKEN, corsOrigins: ['http://localhost:5173', 'http://127.0.0.1:*'] })));
  after(async () => {
    await api.close();
    assert.equal(log.mentioning(TOKEN).length, 0, `the token reached the log: ${log.text()}`);
    assert.doesNotMatch(log.text(), /token=/);
  });

  test('only listed origins: a preflight (which carries no token) is answered for them, refused for other loopback origins', async () => {
    const ok = await preflight(port, 'http://localhost:5173');
    assert.equal(ok.status, 204);
    assert.equal(ok.headers['access-control-allow-origin'], 'http://localhost:5173');
    const anyPort = await preflight(port, 'http://127.0.0.1:4321');
    assert.equal(anyPort.headers['access-control-allow-origin'], 'http://127.0.0.1:4321');
    for (const origin of ['http://localhost:3000', 'http://[::1]:5173', 'https://localhost:5173']) {
      const refused = await preflight(port, origin);
      assert.equal(refused.status, 403, origin);
      assert.deepEqual(corsHeadersOf(refused), {});
      assert.match(JSON.parse(refused.body).error.message, /--cors-origin/);
    }
  });

  test('requests echo the listed origin, never *, and still need the token', async () => {
    const authorized = await send(
      port,
      'POST',
      '/v1/graph/invoke',
      { 'content-type': 'application/json', origin: 'http://localhost:5173', authorization: `Bearer ${TOKEN}` },
      INVOKE_BODY,
    );
    assert.equal(authorized.status, 200);
    assert.equal(authorized.headers['access-control-allow-origin'], 'http://localhost:5173');
    const anonymous = await send(port, 'POST', '/v1/graph/invoke', { 'content-type': 'application/json', origin: 'http://localhost:5173' }, INVOKE_BODY);
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.headers['access-control-allow-origin'], 'http://localhost:5173');
    for (const answer of [authorized, anonymous]) assert.notEqual(answer.headers['access-control-allow-origin'], '*');
  });

  test('WebSocket: the token after the 10xgraph-bearer (or agentflow-bearer) subprotocol, the answer names only the sentinel; ?token= still works; a wrong or missing one is 401', async () => {
    const host = `127.0.0.1:${port}`;
    for (const sentinel of ['10xgraph-bearer', 'agentflow-bearer']) {
      const good = await handshake(port, '/v1/graph/ws', { host, origin: 'http://localhost:5173', 'sec-websocket-protocol': `${sentinel}, ${TOKEN}` });
      assert.equal(good.status, 101, sentinel);
      assert.equal(good.headers['sec-websocket-protocol'], sentinel);
      good.socket.destroy();
    }
    const query = await handshake(port, `/v1/graph/ws?token=${TOKEN}`, { host });
    assert.equal(query.status, 101);
    query.socket.destroy();
    // A wrong token, the sentinel alone, the token without the sentinel, and the older `10xgraph.bearer.<base64url>` form.
    for (const protocols of ['10xgraph-bearer, wrong', '10xgraph-bearer', TOKEN, `10xgraph, 10xgraph.bearer.${Buffer.from(TOKEN).toString('base64url')}`]) {
      const refused = await handshake(port, '/v1/graph/ws', { host, 'sec-websocket-protocol': protocols });
      assert.equal(refused.status, 401, protocols);
      assert.ok(await closesWithin(refused.closed), 'the server kept the refused socket open');
    }
    const unlisted = await handshake(port, '/v1/graph/ws', { host, origin: 'http://localhost:3000', 'sec-websocket-protocol': `10xgraph-bearer, ${TOKEN}` });
    assert.equal(unlisted.status, 403, 'a right token from an origin that is not listed');
    assert.ok(await closesWithin(unlisted.closed), 'the server kept the refused socket open');
  });

  test('the TypeScript client sends its token as a subprotocol and runs over the WebSocket', async () => {
    const client = new TenxGraphClient({ baseUrl: `http://127.0.0.1:${port}`, token: TOKEN, WebSocket: WebSocket as never });
    try {
      const chunks = [];
      for await (const chunk of client.streamWs('hello')) chunks.push(chunk);
      assert.equal(chunks.at(-1)?.message?.role, 'assistant');
      assert.equal(textOf(chunks.at(-1)?.message ?? undefined), 'No tool needed.');
    } finally {
      client.close();
    }
  });
});

describe('origin lists at start-up (the built CLI)', () => {
  const CLI = join(ROOT, 'runtime', 'dist', 'cli.js');

  interface Outcome {
    code: number | null;
    stdout: string;
    stderr: () => string;
    url?: string;
    stop: () => Promise<void>;
  }

  function runApi(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Outcome> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [CLI, 'api', '--config', QUICKSTART_CONFIG, '--port', '0', '--db', ':memory:', ...args], {
        env: { ...process.env, TENXGRAPH_TOKEN: '', TENXGRAPH_CORS_ORIGINS: '', TENXGRAPH_ALLOWED_HOSTS: '', ...env },
      });
      let stdout = '';
      let stderr = '';
      const exited = new Promise<void>((done) => child.on('close', () => done()));
      const stop = async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        await exited;
      };
      child.stdout.setEncoding('utf8').on('data', (text: string) => {
        stdout += text;
        const url = /Listening on (http:\/\/\S+)/.exec(stdout)?.[1];
        if (url) resolve({ code: null, stdout, stderr: () => stderr, url, stop });
      });
      child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
      child.on('close', (code) => resolve({ code, stdout, stderr: () => stderr, stop }));
    });
  }

  test('a malformed origin in the flag or the variable: a clear error naming it, exit 2, nothing served', async () => {
    const cases: Array<[string[], NodeJS.ProcessEnv, RegExp]> = [
      [['--cors-origin', 'localhost:5173'], {}, /allowed origin 'localhost:5173'.*not an http or https origin/],
      [['--cors-origin', 'http://localhost:5173/app'], {}, /'http:\/\/localhost:5173\/app'/],
      [['--cors-origin', '*'], {}, /'\*'.*every web page/],
      [[], { TENXGRAPH_CORS_ORIGINS: 'http://localhost:5173, ftp://files.example' }, /'ftp:\/\/files\.example'.*TENXGRAPH_CORS_ORIGINS/],
      [[], { TENXGRAPH_CORS_ORIGINS: 'null' }, /'null'/],
      [['--allowed-host', 'https://api.example.com'], {}, /allowed host 'https:\/\/api\.example\.com'/],
    ];
    for (const [args, env, message] of cases) {
      const outcome = await runApi(args, env);
      assert.equal(outcome.code, 2, `${JSON.stringify([args, env])}: ${outcome.stderr()}`);
      assert.match(outcome.stderr(), message);
      assert.match(outcome.stderr(), /^10xgraph api: /);
      assert.doesNotMatch(outcome.stdout, /Listening/);
    }
  });

  test('--cors-origin (repeated) and TENXGRAPH_CORS_ORIGINS add up on a server with a token; so do --allowed-host and TENXGRAPH_ALLOWED_HOSTS', async () => {
    const server = await runApi(['--cors-origin', 'http://localhost:5173', '--cors-origin=https://a.example', '--allowed-host', 'api.example.com'], {
      TENXGRAPH_TOKEN: TOKEN,
      TENXGRAPH_CORS_ORIGINS: 'https://b.example, http://127.0.0.1:*',
      TENXGRAPH_ALLOWED_HOSTS: 'proxy.example.net,.corp.example',
    });
    assert.ok(server.url, server.stderr());
    try {
      const port = Number(new URL(server.url!).port);
      for (const origin of ['http://localhost:5173', 'https://a.example', 'https://b.example', 'http://127.0.0.1:9']) {
        assert.equal((await preflight(port, origin)).headers['access-control-allow-origin'], origin);
      }
      assert.equal((await preflight(port, 'http://localhost:5174')).status, 403);
      for (const host of ['api.example.com', 'proxy.example.net:443', 'x.corp.example']) assert.equal((await send(port, 'GET', '/ping', { host })).status, 200, host);
      assert.equal((await send(port, 'GET', '/ping', { host: 'other.example' })).status, 403);
      await poll('the refusal in the log', () => /Refused a preflight from the origin 'http:\/\/localhost:5174'/.test(server.stderr()), 10_000);
    } finally {
      await server.stop();
    }
  });
});
