/**
 * `10xgraph api` fuzzed over loopback (the built CLI, with a token, a SQLite file): random
 * methods, paths, headers, content types and bodies (JSON of every wrong shape, huge and deep
 * JSON, bytes), and random WebSocket frame sequences (text, binary, invalid JSON, valid
 * requests interleaved, frames too large, a close while a run is under way). Every answer must
 * be well formed: an error is `{error: {code, message}, metadata}` with a 4xx status, never a
 * 5xx, and the process never dies. Meanwhile a well-behaved `TenxGraphClient` keeps running the
 * remote-tool loop and must finish every loop.
 *
 * Known failures have their own tests below (each says where the bug is); the random
 * generators leave those inputs out so the storm keeps testing everything else.
 *
 * CI runs a fixed seed; TENXGRAPH_FUZZ_SEED (a number or "random") and TENXGRAPH_FUZZ_RUNS
 * (HTTP requests; WebSocket sequences are a quarter of it) make other runs.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import WebSocket from 'ws';
import { TenxGraphClient } from '../../client-sdk/src';
import type { WebSocketConstructor } from '../../client-sdk/src';
import { ApiProcess, FAULT_AGENT_CONFIG, pollUntil } from './netSupport/apiProcess';
import { authorizes, BODY_LIMIT, frameSequenceArb, FUZZ_TOKEN, requestArb, ROUTES, wsAuthArb, type FuzzFrame, type FuzzRequest } from './netSupport/apiArbitraries';
import { exchangeRaw, parseRawAnswer, sendRaw, type RawAnswer } from './netSupport/rawHttp';
import { countFrom, seedFrom } from './netSupport/random';
import { ThreadDb, threadProblems } from './netSupport/threadDb';

const SEED = seedFrom('TENXGRAPH_FUZZ_SEED', 424_242);
const HTTP_RUNS = countFrom('TENXGRAPH_FUZZ_RUNS', 1500);
const WS_RUNS = Math.max(1, Math.round(HTTP_RUNS / 4));

const CODE = /^[a-z][a-z0-9_]*$/;

/** Checks an error envelope and returns its code. */
function checkErrorEnvelope(body: unknown, where: string): string {
  assert.ok(typeof body === 'object' && body !== null, `${where}: the body is not a JSON object`);
  const { error, metadata } = body as { error?: { code?: unknown; message?: unknown }; metadata?: { request_id?: unknown; timestamp?: unknown; message?: unknown } };
  assert.ok(error && typeof error.code === 'string' && CODE.test(error.code), `${where}: no snake_case error.code: ${JSON.stringify(body)}`);
  assert.ok(typeof error.message === 'string' && error.message.trim().length > 0, `${where}: no error.message`);
  assert.ok(metadata && typeof metadata.request_id === 'string' && typeof metadata.timestamp === 'string' && typeof metadata.message === 'string', `${where}: no metadata`);
  return error.code;
}

/** The status the routing, auth and method checks alone decide, or undefined when the body decides. */
function statusBeforeBody(req: FuzzRequest): number | undefined {
  // An absolute-form target names the host it is for: only names the server answers to pass.
  const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(req.path)?.[1];
  if (authority !== undefined && !/^(localhost|127\.\d+\.\d+\.\d+)(:\d+)?$/i.test(authority)) return 403;
  const pathname = new URL(req.path, 'http://localhost').pathname;
  const method = ROUTES[pathname];
  if (method === undefined) return 404;
  if (pathname !== '/ping' && !authorizes(req.authorization)) return 401;
  if (req.method !== method) return 405;
  if (pathname === '/v1/graph/ws') return 426;
  if (method === 'GET') return 200;
  return undefined;
}

function isJsonType(value: string | undefined): boolean {
  const type = (value ?? '').split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/**
 * Whether the server may close the connection on this request's body unread: a refusal made
 * before the body is read (or past its limit), of a body that is chunked or larger than 64 KiB.
 */
function resetAllowed(req: FuzzRequest): boolean {
  if (req.body.bytes === undefined) return false;
  const refusedUnread = statusBeforeBody(req) !== undefined || !isJsonType(req.contentType) || req.body.kind === 'huge';
  return refusedUnread && (req.chunkSize !== undefined || req.body.bytes.length > 64 * 1024);
}

/** Checks one answer against what the request makes certain. */
function checkAnswer(req: FuzzRequest, answer: RawAnswer): void {
  const where = `${req.method} ${req.path.slice(0, 80)} (${req.body.kind} body, content-type ${JSON.stringify(req.contentType)})`;
  assert.ok(answer.status < 500, `${where}: answered ${answer.status}: ${answer.body.subarray(0, 300).toString()}`);
  const expected = statusBeforeBody(req);
  const type = String(answer.headers['content-type'] ?? '');
  const streamed = type.startsWith('application/x-ndjson');
  if (expected !== undefined) assert.equal(answer.status, expected, `${where}: ${answer.body.subarray(0, 300).toString()}`);
  else if (!isJsonType(req.contentType)) assert.equal(answer.status, 415, where);
  else if (req.body.kind === 'huge') assert.equal(answer.status, 413, where);
  else if (req.body.expect === 'run') assert.equal(answer.status, 200, `${where}: ${answer.body.subarray(0, 300).toString()}`);
  else if (req.body.expect === 'refuse') {
    // A stream has started (200) before a run can fail: its refusal is an error chunk and an error end.
    if (streamed) assert.match(answer.body.toString('utf8'), /"event":"end","data":\{[^}]*"status":"error"/, `${where}: a bad body was run`);
    else assert.ok(answer.status >= 400, `${where}: a bad body was accepted with ${answer.status}`);
  }
  if (req.method === 'HEAD') {
    assert.equal(answer.body.length, 0);
    return;
  }
  if (answer.status >= 400) {
    assert.match(type, /^application\/json/, `${where}: an error that is not JSON`);
    checkErrorEnvelope(JSON.parse(answer.body.toString('utf8')), where);
    if (answer.status === 401) assert.match(String(answer.headers['www-authenticate']), /^Bearer/);
    if (answer.status === 405) assert.ok(answer.headers.allow, `${where}: a 405 without Allow`);
    return;
  }
  if (streamed) {
    const lines = answer.body
      .toString('utf8')
      .split('\n')
      .filter((l) => l.trim() !== '');
    const chunks = lines.map((line) => JSON.parse(line) as { event: string; data: any });
    assert.equal(chunks[0]?.event, 'metadata', where);
    assert.equal(chunks[chunks.length - 1]?.event, 'end', where);
    assert.equal(chunks.filter((c) => c.event === 'end').length, 1, where);
    for (const chunk of chunks) if (chunk.event === 'error') assert.ok(CODE.test(chunk.data.code) && chunk.data.message, where);
    return;
  }
  const body = JSON.parse(answer.body.toString('utf8')) as { data?: unknown; metadata?: unknown };
  assert.ok('data' in body && body.metadata, `${where}: a success without data and metadata`);
}

function toRaw(req: FuzzRequest) {
  const headers: Record<string, string> = { ...req.extraHeaders };
  if (req.contentType !== undefined) headers['content-type'] = req.contentType;
  if (req.authorization !== undefined) headers.authorization = req.authorization;
  const bytes = req.body.bytes;
  // At most 64 chunks: a huge body in one-byte chunks would test nothing more, only slower.
  const chunkSize = bytes && req.chunkSize ? Math.max(req.chunkSize, Math.ceil(bytes.length / 64)) : undefined;
  return { method: req.method, path: req.path, headers, ...(bytes ? { body: bytes } : {}), ...(chunkSize ? { chunkSize } : {}) };
}

/** The chunks one WebSocket session received, by request id (null for frames without one). */
class WsProbe {
  readonly chunks: Array<{ event: string; data: any; request_id: string | null }> = [];
  closeCode?: number;
  closed = false;
  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data, isBinary) => {
      assert.equal(isBinary, false, 'the server sent a binary frame');
      this.chunks.push(JSON.parse(data.toString()));
    });
    socket.on('close', (code) => {
      this.closed = true;
      this.closeCode = code;
    });
    socket.on('error', () => undefined);
  }

  static open(base: string, auth: 'header' | 'query' | 'wrong' | 'none'): Promise<WsProbe | { refused: number; body: string }> {
    const query = auth === 'query' ? `?token=${FUZZ_TOKEN}` : auth === 'wrong' ? '?token=nope' : '';
    const headers = auth === 'header' ? { authorization: `Bearer ${FUZZ_TOKEN}` } : {};
    const socket = new WebSocket(`${base.replace(/^http/, 'ws')}/v1/graph/ws${query}`, { headers });
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(new WsProbe(socket)));
      socket.once('unexpected-response', (_req, res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (text: string) => (body += text));
        res.on('end', () => resolve({ refused: res.statusCode ?? 0, body }));
      });
      socket.once('error', reject);
    });
  }

  ends(id: string | null): number {
    return this.chunks.filter((c) => c.event === 'end' && c.request_id === id).length;
  }
}

describe('10xgraph api under a fuzz storm', () => {
  const folder = mkdtempSync(join(tmpdir(), '10xgraph-fuzz-'));
  const server = new ApiProcess({ config: FAULT_AGENT_CONFIG, db: join(folder, 'threads.sqlite'), env: { TENXGRAPH_TOKEN: FUZZ_TOKEN } });
  const good = { loops: 0, failures: [] as string[], stop: false, done: Promise.resolve() };

  before(async () => {
    await server.start();
    // The well-behaved client: the remote-tool loop over each transport in turn, all storm long.
    const client = new TenxGraphClient({ baseUrl: server.url, token: FUZZ_TOKEN, WebSocket: WebSocket as unknown as WebSocketConstructor });
    client.registerToolHandler('lookup', (args) => `value(${String(args.key)})`);
    good.done = (async () => {
      for (let n = 0; !good.stop; n++) {
        const transport = (['invoke', 'http', 'ws'] as const)[n % 3]!;
        const tag = `good-${n}`;
        try {
          let answer = '';
          if (transport === 'invoke') {
            const result = await client.invoke(`[t:${tag}] rounds=2 calls=2`);
            const last = result.messages[result.messages.length - 1]!;
            answer = last.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
          } else {
            for await (const chunk of client.stream(`[t:${tag}] rounds=2 calls=2`, { transport })) {
              if (chunk.event === 'message' && chunk.data.role === 'assistant') answer = chunk.data.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
              if (chunk.event === 'error') throw new Error(JSON.stringify(chunk.data));
            }
          }
          const expected = `answer ${tag}: value(${tag}-r0-c0) value(${tag}-r0-c1) value(${tag}-r1-c0) value(${tag}-r1-c1)`;
          if (answer !== expected) good.failures.push(`${transport} loop ${n}: ${answer}`);
          good.loops++;
        } catch (error) {
          good.failures.push(`${transport} loop ${n}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      client.close();
    })();
  });

  after(async () => {
    good.stop = true;
    await good.done;
    await server.stop();
    rmSync(folder, { recursive: true, force: true });
  });

  test(`HTTP: ${HTTP_RUNS} random requests, each a well-formed answer, never a 5xx (seed ${SEED})`, { timeout: 120_000 }, async () => {
    const counts = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(requestArb, async (req) => {
        let answer: RawAnswer;
        try {
          answer = await sendRaw(server.port, toRaw(req));
        } catch (error) {
          // A body the server refuses unread is not read: the connection closes with the answer
          // (runtime/src/api/http.ts), and a client still writing the rest may see the reset before
          // it reads that answer (counted as status 0). Nothing else may end a request without one.
          const code = (error as NodeJS.ErrnoException).code;
          if (!(resetAllowed(req) && (code === 'EPIPE' || code === 'ECONNRESET'))) throw error;
          counts.set(0, (counts.get(0) ?? 0) + 1);
          return;
        }
        counts.set(answer.status, (counts.get(answer.status) ?? 0) + 1);
        checkAnswer(req, answer);
      }),
      { seed: SEED, numRuns: HTTP_RUNS, endOnFailure: false },
    );
    assert.ok(server.alive, 'the server died');
    console.log(
      `apiFuzz http: statuses ${[...counts]
        .sort((a, b) => a[0] - b[0])
        .map(([s, n]) => `${s}×${n}`)
        .join(' ')}`,
    );
    for (const status of [200, 400, 401, 404, 405, 413, 415, 422]) assert.ok(counts.has(status), `no request answered ${status}: the generators miss a class`);
  });

  test(`WebSocket: ${WS_RUNS} random frame sequences, each frame answered, the socket kept open (seed ${SEED})`, { timeout: 120_000 }, async () => {
    const seen = { frames: 0, refused: 0, oversized: 0, closedMidRun: 0 };
    await fc.assert(
      fc.asyncProperty(wsAuthArb, frameSequenceArb, async (auth, frames) => {
        const opened = await WsProbe.open(server.url, auth);
        if (!(opened instanceof WsProbe)) {
          assert.ok(auth === 'wrong' || auth === 'none', `a ${auth} upgrade was refused with ${opened.refused}`);
          assert.equal(opened.refused, 401);
          assert.equal(checkErrorEnvelope(JSON.parse(opened.body), 'refused upgrade'), 'unauthorized');
          seen.refused++;
          return;
        }
        assert.ok(auth === 'header' || auth === 'query', `an upgrade without the token was accepted (${auth})`);
        const probe = opened;
        let expectNullEnds = 0;
        let ended = false;
        for (const frame of frames) {
          seen.frames++;
          sendFrame(probe.socket, frame);
          if (frame.kind === 'oversized') {
            await pollUntil(() => probe.closed, 'the close of a frame too large', 10_000);
            assert.equal(probe.closeCode, 1009, 'a frame over the limit closes with 1009 (message too big)');
            seen.oversized++;
            ended = true;
            break;
          }
          if (frame.kind === 'close-mid-run') {
            probe.socket.terminate();
            seen.closedMidRun++;
            ended = true;
            break;
          }
          if (frame.kind !== 'ping' && frameId(frame) === null) expectNullEnds++;
        }
        if (ended) return;
        await pollUntil(
          () => frames.every((f) => f.kind === 'ping' || f.kind === 'binary' || frameId(f) === null || probe.ends(frameId(f)) === 1) && probe.ends(null) >= expectNullEnds,
          'an end chunk for every frame',
          10_000,
        );
        assert.equal(probe.ends(null), expectNullEnds, 'one end per frame without an id');
        for (const frame of frames) checkFrameAnswer(frame, probe);
        for (const chunk of probe.chunks) assert.ok(['metadata', 'message', 'remote_tool_calls', 'error', 'end'].includes(chunk.event), `unknown chunk ${chunk.event}`);
        assert.equal(probe.closed, false, 'the server closed the socket after bad frames');
        probe.socket.close();
      }),
      { seed: SEED, numRuns: WS_RUNS, endOnFailure: false },
    );
    assert.ok(server.alive, 'the server died');
    console.log(
      `apiFuzz ws: ${WS_RUNS} sequences, ${seen.frames} frames, ${seen.refused} upgrades refused, ${seen.oversized} frames too large, ${seen.closedMidRun} closes mid-run`,
    );
  });

  test('the well-behaved client finished every loop during the storm; the server logged no failure; every thread is consistent', async () => {
    good.stop = true;
    await good.done;
    assert.deepEqual(good.failures, []);
    assert.ok(good.loops >= 6, `only ${good.loops} loops ran`);
    console.log(`apiFuzz: the well-behaved client finished ${good.loops} loops during the storm`);
    assert.ok(server.alive);
    assert.doesNotMatch(server.allStderr, /failed|Error/, 'the server logged a failure');
    const db = new ThreadDb(join(folder, 'threads.sqlite'));
    try {
      // Runs of sockets closed mid-run end on their own: poll the server until none is running.
      const running = async (threadId: string) => {
        const answer = await fetch(`${server.url}/v1/threads/${encodeURIComponent(threadId)}`, { headers: { authorization: `Bearer ${FUZZ_TOKEN}` } });
        return answer.status === 200 && ((await answer.json()) as { data: { running: boolean } }).data.running;
      };
      await pollUntil(async () => (await Promise.all(db.threads().map((t) => running(t.threadId)))).every((r) => !r), 'no thread running', 10_000, 10);
      assert.deepEqual(db.threads().flatMap(threadProblems), []);
    } finally {
      db.close();
    }
  });
});

function frameId(frame: FuzzFrame): string | null {
  if (frame.kind === 'valid' || frame.kind === 'unknown-call' || frame.kind === 'close-mid-run') return frame.id;
  if (frame.kind === 'invalid') return frame.id === null ? null : String(frame.id);
  return null;
}

function sendFrame(socket: WebSocket, frame: FuzzFrame): void {
  switch (frame.kind) {
    case 'valid':
    case 'close-mid-run':
      socket.send(JSON.stringify(frame.id === null ? frame.body : { id: frame.id, ...frame.body }));
      return;
    case 'invalid':
      socket.send(frame.text);
      return;
    case 'binary':
      socket.send(frame.bytes, { binary: true });
      return;
    case 'unknown-call':
      socket.send(JSON.stringify({ id: frame.id, messages: [{ role: 'tool', content: [{ type: 'tool_result', call_id: 'call_never_made', output: 1, status: 'completed' }] }] }));
      return;
    case 'ping':
      socket.ping();
      return;
    case 'oversized':
      socket.send(JSON.stringify({ id: 'big', messages: [{ role: 'user', content: [{ type: 'text', text: 'x'.repeat(BODY_LIMIT) }] }] }));
  }
}

/** The chunks of one frame with an id: one end, after either a run's chunks or exactly one error. */
function checkFrameAnswer(frame: FuzzFrame, probe: WsProbe): void {
  const id = frameId(frame);
  if (id === null) return;
  const mine = probe.chunks.filter((c) => c.request_id === id);
  const end = mine[mine.length - 1];
  assert.equal(end?.event, 'end', `frame ${id}: the last chunk is not its end`);
  const errors = mine.filter((c) => c.event === 'error');
  for (const error of errors)
    assert.ok(CODE.test(error.data.code) && typeof error.data.message === 'string' && error.data.message.length > 0, `frame ${id}: a malformed error chunk`);
  if (end.data.status === 'error') assert.equal(errors.length, 1, `frame ${id}: an error end without one error chunk`);
  else assert.equal(errors.length, 0);
  if (frame.kind === 'valid') {
    assert.equal(end.data.status, 'waiting', `frame ${id}: ${JSON.stringify(mine)}`);
    assert.deepEqual(
      mine.map((c) => c.event),
      ['metadata', 'message', 'message', 'remote_tool_calls', 'end'],
    );
  }
  if (frame.kind === 'unknown-call') assert.equal(errors[0]?.data.code, 'unknown_call_id');
  if (frame.kind === 'invalid' && end.data.status === 'error' && mine.length === 2)
    assert.ok(['invalid_json', 'invalid_request', 'unknown_call_id', 'missing_tool_results'].includes(errors[0]!.data.code), `frame ${id}: ${errors[0]!.data.code}`);
}

describe('known failures found by the fuzz (each fails until its bug is fixed)', () => {
  const folder = mkdtempSync(join(tmpdir(), '10xgraph-fuzz-bugs-'));
  const server = new ApiProcess({ config: FAULT_AGENT_CONFIG, db: join(folder, 'threads.sqlite') });
  before(() => server.start());
  after(async () => {
    await server.stop();
    rmSync(folder, { recursive: true, force: true });
  });

  for (const where of ['args', 'output'] as const) {
    test(`deeply nested JSON in a block's ${where} is refused with a 4xx, not a 500 (runtime/src/api/validate.ts)`, async () => {
      const deep = '['.repeat(20_000) + ']'.repeat(20_000);
      let body: string;
      if (where === 'args') {
        body = `{"messages":[{"role":"user","content":[{"type":"tool_call","id":"c1","name":"lookup","args":${deep}}]}]}`;
      } else {
        const first = await sendRaw(server.port, {
          method: 'POST',
          path: '/v1/graph/invoke',
          headers: { 'content-type': 'application/json' },
          body: Buffer.from(JSON.stringify({ messages: [{ role: 'user', content: [{ type: 'text', text: 'deep output' }] }], config: { thread_id: 'deep-output' } })),
        });
        const call = JSON.parse(first.body.toString()).data.pending_remote_calls[0].id as string;
        body = `{"messages":[{"role":"tool","content":[{"type":"tool_result","call_id":"${call}","output":${deep},"status":"completed"}]}],"config":{"thread_id":"deep-output"}}`;
      }
      const answer = await sendRaw(server.port, { method: 'POST', path: '/v1/graph/invoke', headers: { 'content-type': 'application/json' }, body: Buffer.from(body) });
      assert.ok(answer.status >= 400 && answer.status < 500, `answered ${answer.status}: ${answer.body.subarray(0, 300).toString()}`);
      checkErrorEnvelope(JSON.parse(answer.body.toString()), `deep ${where}`);
    });
  }

  test('a request target that is not a valid URL is a 400 JSON error, not a 500 (runtime/src/api/server.ts, handle)', async () => {
    for (const target of ['http://[', 'http://a:b:c/', '//[/', 'http://x:99999/ping', 'http://user@/ping']) {
      const answer = parseRawAnswer(await exchangeRaw(server.port, `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`));
      assert.equal(answer.status, 400, `GET ${target} answered ${answer.status}: ${answer.body}`);
      checkErrorEnvelope(JSON.parse(answer.body), `GET ${target}`);
    }
  });

  test('malformed HTTP gets the JSON error envelope too, not a bare 400 (no clientError handler in runtime/src/api/server.ts)', async () => {
    const cases = [
      'FOO /ping HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET /ping HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n',
      'POST /v1/graph/invoke HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
    ];
    for (const request of cases) {
      const answer = parseRawAnswer(await exchangeRaw(server.port, request));
      assert.equal(answer.status, 400, `${JSON.stringify(request)} answered ${answer.status}`);
      assert.match(answer.headers['content-type'] ?? '', /^application\/json/, `${JSON.stringify(request)}: a bare ${answer.status} without a JSON body`);
      checkErrorEnvelope(JSON.parse(answer.body), JSON.stringify(request));
    }
  });

  test('a WebSocket upgrade whose target is not a valid URL does not crash the server (runtime/src/api/server.ts, upgrade)', async () => {
    const victim = new ApiProcess({ config: FAULT_AGENT_CONFIG, db: join(folder, 'crash.sqlite'), env: { TENXGRAPH_TOKEN: 'secret' } });
    await victim.start();
    try {
      const raw = await exchangeRaw(
        victim.port,
        'GET http://[ HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
        3000,
      );
      // The server must still answer a ping afterwards.
      const ping = await sendRaw(victim.port, { method: 'GET', path: '/ping', headers: {} }).catch((error: unknown) => error as Error);
      if (ping instanceof Error) await pollUntil(() => !victim.alive, 'the process to end', 2000).catch(() => undefined);
      assert.ok(
        !(ping instanceof Error) && ping.status === 200 && victim.alive,
        `one unauthenticated request killed the server (exit ${JSON.stringify(victim.exit)}): ${victim.stderr.split('\n').slice(-12).join('\n')}`,
      );
      const answer = parseRawAnswer(raw);
      assert.ok(answer.status >= 400 && answer.status < 500, `answered ${answer.status}`);
    } finally {
      await victim.kill();
    }
  });
});
