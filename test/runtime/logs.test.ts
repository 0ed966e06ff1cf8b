/**
 * The log of `10xgraph api`: one record per request (method, route, status, duration, request id),
 * per WebSocket run, per remote call sent and per result answered (thread, call id, tool, node,
 * duration); never a token, a query string or a body, wherever the token came from. Then the real
 * CLI: `--log-format json` (one JSON object a line, pino's), `pretty` (the start-up lines exactly as
 * docs/spec.md §4 shows them), and `--log-level`.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer as createNetServer, connect } from 'node:net';
import { join } from 'node:path';
import WebSocket from 'ws';
import { createApiServer, type ApiServer } from '../../runtime/src/api/index';
import { createLogger } from '../../runtime/src/api/log';
import { poll } from '../support/poll';
import { ROOT, QUICKSTART_CONFIG, buildTestGraph, isDone, latch, findRemoteCalls, resultsFor, userText } from './serverHelpers';
import { CapturedLog, handshake, send } from './rawSocket';

const TOKEN = 'logs-t0ken-Secret';
const BODY_SECRET = 'body-text-that-must-not-be-logged';

describe('what the server logs (createApiServer, captured)', () => {
  let api: ApiServer;
  let port: number;
  let log: CapturedLog;
  const hold = latch();
  let held = false;
  const auth = { authorization: `Bearer ${TOKEN}` };

  before(async () => {
    log = new CapturedLog();
    const graph = buildTestGraph([
      {
        name: 'slow_tool',
        description: 'A server tool held by the test.',
        handler: async () => {
          held = true;
          await hold.promise;
          return 'ok';
        },
      },
    ]);
    api = createApiServer({ graph, token: TOKEN, corsOrigins: [], allowedHosts: [], log });
    port = Number(new URL(await api.listen(0, '127.0.0.1')).port);
  });
  after(async () => {
    hold.release();
    await api.close();
  });

  const requests = () => log.lines.filter((entry) => entry.fields?.event === 'request');

  test('one record per request: method, route, status, duration and the request id the client got', async () => {
    const before = requests().length;
    const ping = await send(port, 'GET', '/ping');
    const graph = await send(port, 'GET', '/v1/graph?token=' + TOKEN + '&detail=1', auth);
    const missing = await send(port, 'GET', `/nowhere/${TOKEN}?token=${TOKEN}`);
    const refused = await send(port, 'POST', '/v1/graph/invoke', { 'content-type': 'application/json' }, '{}');
    await poll('four request records', () => requests().length - before === 4, 5000);
    const records = requests().slice(before);
    assert.deepEqual(
      records.map((entry) => [entry.fields!.method, entry.fields!.route, entry.fields!.status]),
      [
        ['GET', '/ping', 200],
        ['GET', '/v1/graph', 200],
        ['GET', '-', 404],
        ['POST', '/v1/graph/invoke', 401],
      ],
    );
    assert.deepEqual(
      records.map((entry) => entry.fields!.request_id),
      [ping, graph, missing, refused].map((answer) => answer.headers['x-request-id']),
    );
    for (const entry of records) {
      assert.equal(typeof entry.fields!.duration_ms, 'number');
      assert.ok((entry.fields!.duration_ms as number) >= 0);
      assert.match(
        entry.line,
        new RegExp(`^${entry.fields!.method} ${entry.fields!.route === '-' ? '-' : entry.fields!.route} ${entry.fields!.status} in [\\d.]+ ms \\[${entry.fields!.request_id}\\]$`),
      );
    }
  });

  test('one record per remote call sent and per result answered, with thread, call id, tool, node and duration', async () => {
    const first = await send(
      port,
      'POST',
      '/v1/graph/invoke',
      { 'content-type': 'application/json', ...auth },
      JSON.stringify({ messages: [userText(`where am i ${BODY_SECRET}`)], config: { thread_id: 'logged' } }),
    );
    const calls = findRemoteCalls(JSON.parse(first.body).data.messages);
    assert.equal(calls.length, 1);
    const sent = log.lines.filter((entry) => entry.fields?.event === 'remote_call');
    assert.equal(sent.length, 1);
    assert.deepEqual(sent[0]!.fields, { event: 'remote_call', thread_id: 'logged', call_id: calls[0]!.id, tool: 'get_user_location', node: 'TOOL' });
    await send(
      port,
      'POST',
      '/v1/graph/invoke',
      { 'content-type': 'application/json', ...auth },
      JSON.stringify({ messages: [resultsFor(calls, () => ({ secret: BODY_SECRET }))], config: { thread_id: 'logged' } }),
    );
    const answered = log.lines.filter((entry) => entry.fields?.event === 'remote_result');
    assert.equal(answered.length, 1);
    const { duration_ms, ...rest } = answered[0]!.fields!;
    assert.deepEqual(rest, { event: 'remote_result', thread_id: 'logged', call_id: calls[0]!.id, tool: 'get_user_location', node: 'TOOL', status: 'completed' });
    assert.equal(typeof duration_ms, 'number');
    assert.match(answered[0]!.line, new RegExp(`^Remote call ${calls[0]!.id} to get_user_location on TOOL answered completed after \\d+ ms \\(thread logged\\)$`));
  });

  test('WebSocket: one record for the upgrade and one per run on it', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/v1/graph/ws`, ['10xgraph-bearer', TOKEN]);
    const chunks: any[] = [];
    ws.on('message', (data) => chunks.push(JSON.parse(String(data))));
    await new Promise((resolve) => ws.once('open', resolve));
    ws.send(JSON.stringify({ invoke_type: 'fresh', messages: [userText('hello')], config: { thread_id: 'ws-logged' } }));
    ws.send(JSON.stringify({ invoke_type: 'fresh', messages: [{ role: 'assistant', content: [] }] }));
    await poll('both dones', () => chunks.filter(isDone).length === 2, 5000);
    ws.close();
    const upgrade = log.lines.filter((entry) => entry.fields?.event === 'request' && entry.fields.websocket === true);
    assert.equal(upgrade.at(-1)?.fields?.status, 101);
    const frames = log.lines.filter((entry) => entry.fields?.event === 'ws_request');
    assert.deepEqual(
      // The second frame is refused at once, the first ends after its run: sorted by thread.
      frames
        .slice(-2)
        .map((entry) => [entry.fields!.route, entry.fields!.thread_id, entry.fields!.status, entry.fields!.code ?? null])
        .sort((a, b) => String(a[1]).localeCompare(String(b[1]))),
      [
        ['/v1/graph/ws', null, 'error', 'VALIDATION_ERROR'],
        ['/v1/graph/ws', 'ws-logged', 'completed', null],
      ],
    );
  });

  test('a request whose client goes away mid-run is logged as such, without its query', async () => {
    const body = JSON.stringify({ messages: [userText('run the slow tool')] });
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    socket.write(
      `POST /v1/graph/invoke?token=${TOKEN}&x=${BODY_SECRET} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    await poll('the run to reach the held tool', () => held, 5000);
    socket.destroy();
    const aborted = await poll('the aborted request record', () => log.lines.find((entry) => entry.fields?.event === 'request' && entry.fields.aborted === true), 5000);
    assert.equal(aborted.fields!.route, '/v1/graph/invoke');
    assert.match(aborted.line, /the client went away/);
    hold.release();
  });

  test('refused upgrades are logged with their status; the token is never logged from any place', async () => {
    const wrong = await handshake(port, `/v1/graph/ws?token=wrong-${TOKEN}`, { host: `127.0.0.1:${port}`, 'sec-websocket-protocol': `10xgraph-bearer, ${TOKEN}x` });
    assert.equal(wrong.status, 401);
    await poll('the refused upgrade record', () => log.lines.some((entry) => entry.fields?.websocket === true && entry.fields.status === 401), 5000);
    const text = log.text();
    for (const secret of [TOKEN, 'token=', BODY_SECRET]) assert.ok(!text.includes(secret), `the log holds '${secret}':\n${text}`);
  });
});

describe('the pino logger', () => {
  test('json: one JSON object a line with level, time, msg and the fields; pretty: the message alone; warnings to the other sink', () => {
    const out: string[] = [];
    const err: string[] = [];
    const json = createLogger({ format: 'json', level: 'info', out: { write: (t: string) => out.push(t) }, err: { write: (t: string) => err.push(t) } });
    json.info('Listening on http://127.0.0.1:1');
    json.info('GET /ping 200 in 1 ms [id]', { event: 'request', status: 200 });
    json.warn('careful');
    json.debug?.('hidden at info');
    assert.equal(out.length, 2);
    const records = out.map((line) => JSON.parse(line));
    assert.equal(records[0].msg, 'Listening on http://127.0.0.1:1');
    assert.equal(records[0].level, 30);
    assert.match(records[0].time, /^\d{4}-\d\d-\d\dT/);
    assert.equal(records[1].event, 'request');
    assert.equal(records[1].status, 200);
    assert.equal(JSON.parse(err[0]!).level, 40);

    const prettyOut: string[] = [];
    const pretty = createLogger({ format: 'pretty', level: 'debug', out: { write: (t: string) => prettyOut.push(t) }, err: { write: () => {} } });
    pretty.info('Attached 3 configured remote tools (to TOOL)', undefined);
    pretty.debug?.('shown at debug', { event: 'x' });
    assert.deepEqual(prettyOut, ['Attached 3 configured remote tools (to TOOL)\n', 'shown at debug\n']);
  });

  test("json: a frame's thread id of 5,000 characters is refused and never logged; the record stays short", async () => {
    const out: string[] = [];
    const log = createLogger({ format: 'json', level: 'info', out: { write: (t: string) => out.push(t) }, err: { write: () => {} } });
    const api = createApiServer({ graph: buildTestGraph(), token: '', corsOrigins: [], allowedHosts: [], log });
    try {
      const url = await api.listen(0, '127.0.0.1');
      const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/v1/graph/ws`);
      const chunks: any[] = [];
      ws.on('message', (data) => chunks.push(JSON.parse(String(data))));
      await new Promise((resolve) => ws.once('open', resolve));
      const long = `t${'x'.repeat(4999)}`;
      ws.send(JSON.stringify({ invoke_type: 'fresh', messages: [userText('hello')], config: { thread_id: long } }));
      ws.send(JSON.stringify({ invoke_type: 'fresh', messages: [userText('hello')], config: { thread_id: 'short-id' } }));
      await poll('both dones', () => chunks.filter(isDone).length === 2, 5000);
      ws.close();
      assert.equal(chunks.find((chunk) => chunk.event === 'error')?.data.code, 'VALIDATION_ERROR');
      const records = out.map((line) => JSON.parse(line)).filter((record) => record.event === 'ws_request');
      assert.deepEqual(
        records.map((record) => [record.thread_id, record.status]),
        [
          [null, 'error'],
          ['short-id', 'completed'],
        ],
      );
      for (const record of records) assert.ok(record.msg.length <= 200, `a message of ${record.msg.length} characters was logged`);
      assert.ok(!out.join('').includes('x'.repeat(100)), 'the long thread id reached the log');
    } finally {
      await api.close();
    }
  });
});

describe('--log-format and --log-level (the built CLI)', () => {
  const CLI = join(ROOT, 'runtime', 'dist', 'cli.js');

  function freePort(): Promise<number> {
    return new Promise((resolve) => {
      const probe = createNetServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
  }

  async function withApi(
    args: string[],
    body: (port: number, output: () => { stdout: string; stderr: string }) => Promise<void>,
  ): Promise<{ stdout: string; stderr: string; code: number | null }> {
    // The port is picked here (at --log-level warn nothing says where the server listens) and
    // taken by the server later: another process may take it between, so a start refused for a
    // port in use is tried again on another port.
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const child = spawn(process.execPath, [CLI, 'api', '--config', QUICKSTART_CONFIG, '--port', String(port), '--db', ':memory:', ...args], {
        env: { ...process.env, TENXGRAPH_TOKEN: TOKEN, TENXGRAPH_CORS_ORIGINS: '', TENXGRAPH_ALLOWED_HOSTS: '' },
      });
      let stdout = '';
      let stderr = '';
      let closed = false;
      child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
      child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
      const exited = new Promise<number | null>((resolve) =>
        child.on('close', (code) => {
          closed = true;
          resolve(code);
        }),
      );
      let exitedFirst = false;
      try {
        await poll('the server to answer', async () => closed || (await send(port, 'GET', '/ping').catch(() => undefined))?.status === 200, 20_000);
        exitedFirst = closed;
        if (!exitedFirst) await body(port, () => ({ stdout, stderr }));
      } finally {
        child.kill('SIGTERM');
      }
      const code = await exited;
      if (!exitedFirst) return { stdout, stderr, code };
      if (!(code === 2 && /the port is in use/.test(stderr)) || attempt === 5) throw new Error(`10xgraph api exited (code ${code}) before answering:\n${stderr}`);
    }
  }

  test('json: every line of stdout and stderr is a pino record; the start-up lines are their messages; no token', async () => {
    const outcome = await withApi(['--log-format', 'json'], async (port, output) => {
      await send(port, 'GET', `/v1/graph?token=${TOKEN}`, { authorization: `Bearer ${TOKEN}` });
      await poll('the request record', () => output().stdout.includes('"event":"request"'), 5000);
    });
    assert.equal(outcome.code, 0);
    const lines = (outcome.stdout + outcome.stderr).split('\n').filter((line) => line !== '');
    const records = lines.map((line) => JSON.parse(line));
    for (const record of records) {
      assert.equal(typeof record.level, 'number');
      assert.equal(typeof record.time, 'string');
      assert.equal(typeof record.msg, 'string');
    }
    const messages = records.map((record) => record.msg as string);
    assert.ok(messages.includes('Attached 3 configured remote tools (to TOOL)'), messages.join('\n'));
    assert.ok(messages.some((msg) => /^Listening on http:\/\/127\.0\.0\.1:\d+$/.test(msg)));
    assert.ok(messages.includes('Stopping (SIGTERM)'));
    const request = records.find((record) => record.event === 'request' && record.route === '/v1/graph');
    assert.ok(request);
    assert.equal(request.method, 'GET');
    assert.equal(request.status, 200);
    assert.ok(!(outcome.stdout + outcome.stderr).includes(TOKEN), 'the token reached the log');
  });

  test('pretty (the default): the start-up lines exactly; a request line; --log-level warn hides information', async () => {
    const pretty = await withApi([], async (port, output) => {
      await send(port, 'GET', '/ping');
      await poll('the request line', () => /^GET \/ping 200 in [\d.]+ ms \[[0-9a-f-]{36}\]$/m.test(output().stdout), 5000);
    });
    assert.match(pretty.stdout, /^Attached 3 configured remote tools \(to TOOL\)\nThreads in [^\n]+\nListening on http:\/\/127\.0\.0\.1:\d+\n/);
    assert.match(pretty.stdout, /^Stopping \(SIGTERM\)$/m);

    const quiet = await withApi(['--log-level', 'warn'], async (port) => {
      await send(port, 'GET', '/ping');
      await send(port, 'OPTIONS', '/v1/graph', { origin: 'https://evil.example', 'access-control-request-method': 'GET' });
    });
    assert.equal(quiet.stdout, '', 'information was logged at --log-level warn');
    assert.match(quiet.stderr, /Refused a preflight from the origin 'https:\/\/evil\.example'/);
  });

  test('a bad --log-level or --log-format: exit 2 naming the choices', async () => {
    for (const [flag, value, message] of [
      ['--log-level', 'verbose', /--log-level takes error, warn, info, debug, not 'verbose'/],
      ['--log-format', 'xml', /--log-format takes pretty or json, not 'xml'/],
    ] as const) {
      const child = spawn(process.execPath, [CLI, 'api', '--config', QUICKSTART_CONFIG, flag, value]);
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      assert.equal(code, 2);
      assert.match(stderr, message);
    }
  });
});
