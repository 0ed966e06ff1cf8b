/**
 * `10xgraph api` fuzzed over loopback (the built CLI, with a token, a SQLite file): random
 * methods, paths, headers, content types and bodies (JSON of every wrong shape, huge and deep
 * JSON, bytes), and random WebSocket frame sequences (text, binary, invalid JSON, `fresh` and
 * `resume` frames valid and not, frames too large, a close while a run is under way). Every
 * answer must be well formed: an error is `{error: {code, message, details}, metadata}` with a
 * 4xx status, never a 5xx; a stream is NDJSON chunks with every key; on a WebSocket each frame
 * gets one run or one refusal, then `done`, the runs one after another; and the process never
 * dies. Meanwhile a well-behaved `TenxGraphClient` keeps running the remote-tool loop and must
 * finish every loop.
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
import { completedResult, pendingRemoteCalls, TenxGraphClient, WS_BEARER_PROTOCOL, WS_LEGACY_BEARER_PROTOCOL } from '../../client-sdk/src';
import type { Message, StreamChunk, WebSocketConstructor } from '../../client-sdk/src';
import { ApiProcess, FAULT_AGENT_CONFIG, pollUntil } from './netSupport/apiProcess';
import {
  authorizes,
  BODY_LIMIT,
  frameSequenceArb,
  FUZZ_TOKEN,
  requestArb,
  ROUTES,
  RUN_ROUTES,
  UPGRADE_ROUTES,
  wsAuthArb,
  wsAuthorizes,
  type FuzzFrame,
  type FuzzRequest,
  type WsAuth,
} from './netSupport/apiArbitraries';
import { exchangeRaw, parseRawAnswer, sendRaw, type RawAnswer } from './netSupport/rawHttp';
import { countFrom, seedFrom } from './netSupport/random';
import { ThreadDb, threadProblems } from './netSupport/threadDb';

const SEED = seedFrom('TENXGRAPH_FUZZ_SEED', 424_242);
const HTTP_RUNS = countFrom('TENXGRAPH_FUZZ_RUNS', 1500);
const WS_RUNS = Math.max(1, Math.round(HTTP_RUNS / 4));

/** An error code: UPPER_SNAKE_CASE, or the Python server's `HTTPException` of features not configured. */
const CODE = /^([A-Z][A-Z0-9_]*|HTTPException)$/;

/** The keys of every stream chunk and WebSocket frame, null when the event does not use them. */
const CHUNK_KEYS = ['data', 'event', 'message', 'metadata', 'run_id', 'state', 'thread_id', 'timestamp'];

/** Checks an error envelope and returns its code. */
function checkErrorEnvelope(body: unknown, where: string): string {
  assert.ok(typeof body === 'object' && body !== null, `${where}: the body is not a JSON object`);
  const { error, metadata } = body as {
    error?: { code?: unknown; message?: unknown; details?: unknown };
    metadata?: { request_id?: unknown; timestamp?: unknown; message?: unknown };
  };
  assert.ok(error && typeof error.code === 'string' && CODE.test(error.code), `${where}: no UPPER_SNAKE_CASE error.code: ${JSON.stringify(body)}`);
  assert.ok(typeof error.message === 'string' && error.message.trim().length > 0, `${where}: no error.message`);
  assert.ok(Array.isArray(error.details), `${where}: no error.details list: ${JSON.stringify(body)}`);
  for (const detail of error.details as Array<{ loc?: unknown; msg?: unknown; type?: unknown }>) {
    assert.ok(
      Array.isArray(detail?.loc) && typeof detail.msg === 'string' && typeof detail.type === 'string',
      `${where}: a detail without loc, msg and type: ${JSON.stringify(detail)}`,
    );
  }
  if (error.code === 'VALIDATION_ERROR') assert.ok((error.details as unknown[]).length > 0, `${where}: a VALIDATION_ERROR without details`);
  assert.ok(metadata && typeof metadata.request_id === 'string' && typeof metadata.timestamp === 'string' && typeof metadata.message === 'string', `${where}: no metadata`);
  return error.code;
}

/**
 * Checks a stream chunk or WebSocket frame: every key, a known event, and an error's `data`
 * a reason and a code.
 */
function checkChunk(chunk: StreamChunk, where: string): void {
  assert.deepEqual(Object.keys(chunk).sort(), CHUNK_KEYS, `${where}: a chunk without the chunk keys: ${JSON.stringify(chunk).slice(0, 300)}`);
  assert.ok(['message', 'updates', 'state', 'error'].includes(chunk.event), `${where}: unknown event ${chunk.event}`);
  assert.equal(typeof chunk.timestamp, 'number', where);
  if (chunk.event === 'message')
    assert.ok(chunk.message && typeof chunk.message.message_id === 'string' && Array.isArray(chunk.message.content), `${where}: a message chunk without a message`);
  if (chunk.event === 'error') {
    const data = chunk.data as { reason?: unknown; code?: unknown } | null;
    assert.ok(
      data && typeof data.reason === 'string' && data.reason.length > 0 && typeof data.code === 'string' && CODE.test(data.code),
      `${where}: a malformed error chunk: ${JSON.stringify(chunk)}`,
    );
  }
}

/** The status the routing, auth and method checks alone decide, or undefined when the body decides. */
function statusBeforeBody(req: FuzzRequest): number | undefined {
  // An absolute-form target names the host it is for: only names the server answers to pass.
  const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(req.path)?.[1];
  if (authority !== undefined && !/^(localhost|127\.\d+\.\d+\.\d+)(:\d+)?$/i.test(authority)) return 403;
  const pathname = pathOf(req);
  const method = ROUTES[pathname];
  if (method === undefined) return 404;
  if (pathname !== '/ping' && !authorizes(req.authorization)) return 401;
  if (req.method !== method) return 405;
  if (UPGRADE_ROUTES.has(pathname)) return 426;
  if (method === 'GET') return 200;
  return undefined;
}

function pathOf(req: FuzzRequest): string {
  return new URL(req.path, 'http://localhost').pathname;
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
  const streamed = type.startsWith('text/event-stream');
  // Stop and fix take `{thread_id}`: a run request is no body of theirs.
  const runRoute = RUN_ROUTES.has(pathOf(req));
  if (expected !== undefined) assert.equal(answer.status, expected, `${where}: ${answer.body.subarray(0, 300).toString()}`);
  else if (!isJsonType(req.contentType)) assert.equal(answer.status, 415, where);
  else if (req.body.kind === 'huge') assert.equal(answer.status, 413, where);
  else if (req.body.expect === 'run' && runRoute) assert.equal(answer.status, 200, `${where}: ${answer.body.subarray(0, 300).toString()}`);
  else if (req.body.expect === 'run') assert.equal(answer.status, 422, `${where}: ${answer.body.subarray(0, 300).toString()}`);
  else if (req.body.expect === 'refuse') {
    // A stream has started (200) before a run can fail: its refusal is an error chunk.
    if (streamed) assert.match(answer.body.toString('utf8'), /"event":"error"/, `${where}: a bad body was run`);
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
    const chunks = lines.map((line) => JSON.parse(line) as StreamChunk);
    assert.ok(chunks.length > 0, `${where}: an empty stream`);
    for (const chunk of chunks) checkChunk(chunk, where);
    checkRun(chunks, where);
    return;
  }
  const body = JSON.parse(answer.body.toString('utf8')) as { data?: unknown; metadata?: unknown };
  assert.ok('data' in body && body.metadata, `${where}: a success without data and metadata`);
}

/**
 * Checks the chunks of one run: one thread and one run id throughout, the request's messages
 * echoed first, at most one error and nothing after it, and a run that did not fail waiting on
 * the remote call of the fault agent (an assistant message calling tools, then the ToolNode's
 * `remote_tool_call` message).
 */
function checkRun(chunks: readonly StreamChunk[], where: string): void {
  assert.equal(new Set(chunks.map((c) => c.thread_id)).size, 1, `${where}: chunks of several threads`);
  assert.equal(new Set(chunks.map((c) => c.run_id)).size, 1, `${where}: chunks of several runs`);
  for (const chunk of chunks) assert.equal(chunk.metadata?.thread_id, chunk.thread_id, `${where}: metadata.thread_id is not the chunk's thread`);
  const errors = chunks.filter((c) => c.event === 'error');
  assert.ok(errors.length <= 1, `${where}: ${errors.length} error chunks`);
  const messages = chunks.filter((c) => c.event === 'message').map((c) => c.message!);
  const whole = messages.filter((m) => m.delta !== true);
  const firstRunMessage = whole.findIndex((m) => m.role === 'assistant' || m.metadata?.is_remote === true);
  assert.ok(
    whole.slice(0, firstRunMessage === -1 ? whole.length : firstRunMessage).every((m) => m.role === 'user' || m.role === 'system' || m.role === 'tool'),
    `${where}: the request's messages are not echoed first`,
  );
  if (errors.length === 1) {
    const at = chunks.indexOf(errors[0]!);
    assert.ok(
      chunks.slice(at + 1).every((c) => c.event !== 'message'),
      `${where}: messages after the error`,
    );
    return;
  }
  const calls = pendingRemoteCalls(whole);
  assert.ok(
    calls.length > 0 && calls.every((call) => call.name === 'lookup' && call.tool_type === 'remote'),
    `${where}: the run does not wait on lookup: ${JSON.stringify(whole).slice(0, 500)}`,
  );
  const placeholder = whole[whole.length - 1]!;
  assert.equal(placeholder.role, 'tool', `${where}: the last message is not the ToolNode's remote call`);
  assert.equal(placeholder.metadata?.is_remote, true, where);
  const asking = whole[whole.length - 2];
  assert.ok(asking?.role === 'assistant' && asking.content.some((b) => b.type === 'tool_call'), `${where}: no assistant message calls the tools`);
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

/** The frames one WebSocket session received, in order. */
class WsProbe {
  readonly chunks: StreamChunk[] = [];
  closeCode?: number;
  closed = false;
  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data, isBinary) => {
      assert.equal(isBinary, false, 'the server sent a binary frame');
      this.chunks.push(JSON.parse(data.toString()) as StreamChunk);
    });
    socket.on('close', (code) => {
      this.closed = true;
      this.closeCode = code;
    });
    socket.on('error', () => undefined);
  }

  static open(base: string, auth: WsAuth): Promise<WsProbe | { refused: number; body: string }> {
    const query = auth === 'query' ? `?token=${FUZZ_TOKEN}` : auth === 'wrong' ? '?token=nope' : '';
    const headers = auth === 'header' ? { authorization: `Bearer ${FUZZ_TOKEN}` } : {};
    const protocols =
      auth === 'protocol'
        ? [WS_BEARER_PROTOCOL, FUZZ_TOKEN]
        : auth === 'legacy-protocol'
          ? [WS_LEGACY_BEARER_PROTOCOL, FUZZ_TOKEN]
          : auth === 'wrong-protocol'
            ? [WS_BEARER_PROTOCOL, 'nope']
            : [];
    const socket = new WebSocket(`${base.replace(/^http/, 'ws')}/v1/graph/ws${query}`, protocols, { headers });
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

  /** How many runs or refusals have ended (`{event: "updates", data: {status: "done"}}`). */
  get dones(): number {
    return this.chunks.filter(isDone).length;
  }
}

function isDone(chunk: StreamChunk): boolean {
  return chunk.event === 'updates' && chunk.data?.status === 'done';
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
              const message = chunk.message;
              if (chunk.event === 'message' && message && message.delta !== true && message.role === 'assistant') {
                answer = message.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
              }
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

  test(`WebSocket: ${WS_RUNS} random frame sequences, each frame a run or a refusal and then done, the socket kept open (seed ${SEED})`, { timeout: 120_000 }, async () => {
    const seen = { frames: 0, refused: 0, oversized: 0, closedMidRun: 0, runs: 0, refusals: 0 };
    await fc.assert(
      fc.asyncProperty(wsAuthArb, frameSequenceArb, async (auth, frames) => {
        const opened = await WsProbe.open(server.url, auth);
        if (!(opened instanceof WsProbe)) {
          assert.ok(!wsAuthorizes(auth), `a ${auth} upgrade was refused with ${opened.refused}`);
          assert.equal(opened.refused, 401);
          assert.equal(checkErrorEnvelope(JSON.parse(opened.body), 'refused upgrade'), 'INVALID_TOKEN');
          seen.refused++;
          return;
        }
        assert.ok(wsAuthorizes(auth), `an upgrade without the token was accepted (${auth})`);
        const probe = opened;
        // The server names the bearer subprotocol the client offered, never the token after it.
        assert.equal(probe.socket.protocol, auth === 'protocol' ? WS_BEARER_PROTOCOL : auth === 'legacy-protocol' ? WS_LEGACY_BEARER_PROTOCOL : '');
        const answered: FuzzFrame[] = [];
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
          if (frame.kind !== 'ping') answered.push(frame);
        }
        if (ended) return;
        await pollUntil(() => probe.dones >= answered.length, 'a done for every frame', 10_000);
        const counts = checkFrameAnswers(answered, probe.chunks);
        seen.runs += counts.runs;
        seen.refusals += counts.refusals;
        assert.equal(probe.closed, false, 'the server closed the socket after bad frames');
        probe.socket.close();
      }),
      { seed: SEED, numRuns: WS_RUNS, endOnFailure: false },
    );
    assert.ok(server.alive, 'the server died');
    console.log(
      `apiFuzz ws: ${WS_RUNS} sequences, ${seen.frames} frames (${seen.runs} runs, ${seen.refusals} refused), ${seen.refused} upgrades refused, ${seen.oversized} frames too large, ${seen.closedMidRun} closes mid-run`,
    );
    assert.ok(seen.runs > 0 && seen.refusals > 0, 'the frames were all run or all refused: the generators miss a class');
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
        const thread =
          answer.status === 200
            ? ((await answer.json()) as { data: { thread_data: { thread: { metadata: { running?: unknown } | null } | null } } }).data.thread_data.thread
            : null;
        return thread?.metadata?.running === true;
      };
      await pollUntil(async () => (await Promise.all(db.threads().map((t) => running(t.threadId)))).every((r) => !r), 'no thread running', 10_000, 10);
      assert.deepEqual(db.threads().flatMap(threadProblems), []);
    } finally {
      db.close();
    }
  });
});

function sendFrame(socket: WebSocket, frame: FuzzFrame): void {
  switch (frame.kind) {
    case 'valid':
    case 'close-mid-run':
      socket.send(JSON.stringify(frame.body));
      return;
    case 'invalid':
      socket.send(frame.text);
      return;
    case 'binary':
      socket.send(frame.bytes, { binary: true });
      return;
    case 'unknown-call':
      socket.send(
        JSON.stringify({
          invoke_type: 'resume',
          tool_result: [{ role: 'tool', content: [completedResult('call_never_made', 1)] }],
          config: { thread_id: frame.threadId },
        }),
      );
      return;
    case 'ping':
      socket.ping();
      return;
    case 'oversized':
      socket.send(JSON.stringify({ invoke_type: 'fresh', messages: [{ role: 'user', content: [{ type: 'text', text: 'x'.repeat(BODY_LIMIT) }] }] }));
  }
}

/**
 * Checks what the frames of one socket got: each frame one run (its chunks under one run id)
 * or one refusal (an error chunk without a run id), and then one `done`; runs one after
 * another, never interleaved; every valid frame a run that waits on the fault agent's call;
 * frames that cannot be runs refused with the code that says why.
 */
function checkFrameAnswers(frames: readonly FuzzFrame[], chunks: readonly StreamChunk[]): { runs: number; refusals: number } {
  chunks.forEach((chunk, i) => checkChunk(chunk, `frame chunk ${i}`));
  const dones = chunks.filter(isDone);
  assert.equal(dones.length, frames.length, `one done per frame: ${frames.length} frames, ${dones.length} dones`);
  for (const done of dones) assert.ok(done.run_id === null && done.message === null, `a done that names a run: ${JSON.stringify(done)}`);
  const refusals = chunks.filter((c) => c.event === 'error' && c.run_id === null);
  const runs = new Map<string, StreamChunk[]>();
  const order: string[] = [];
  for (const chunk of chunks) {
    if (chunk.run_id === null) continue;
    if (!runs.has(chunk.run_id)) {
      runs.set(chunk.run_id, []);
      order.push(chunk.run_id);
    }
    runs.get(chunk.run_id)!.push(chunk);
  }
  assert.equal(runs.size + refusals.length, frames.length, `each frame a run or a refusal: ${frames.length} frames, ${runs.size} runs, ${refusals.length} refusals`);
  // One run after another: a run's chunks all come before the next run's first.
  const lastIndex = (id: string) => chunks.reduce((last, c, i) => (c.run_id === id ? i : last), -1);
  const spans = order.map((id) => ({ first: chunks.findIndex((c) => c.run_id === id), last: lastIndex(id) }));
  spans.forEach((span, i) => assert.ok(i === 0 || spans[i - 1]!.last < span.first, 'the chunks of two runs interleave'));
  for (const [id, run] of runs) checkRun(run, `run ${id}`);
  // Each run's last chunk is followed by its done before the next run starts.
  for (const span of spans) assert.ok(chunks.slice(span.last + 1).some(isDone), 'a run without a done after it');
  const codes = refusals.map((c) => (c.data as { code: string }).code);
  const count = (kind: FuzzFrame['kind'], test: (frame: FuzzFrame) => boolean = () => true) => frames.filter((f) => f.kind === kind && test(f)).length;
  const notJson = count('binary') + count('invalid', (f) => f.kind === 'invalid' && !f.json);
  assert.ok(codes.filter((code) => code === 'VALIDATION_ERROR').length >= notJson, `frames that are not JSON text not refused as invalid: ${codes.join(', ')}`);
  assert.ok(codes.filter((code) => code === 'UNKNOWN_CALL_ID').length >= count('unknown-call'), `results for calls never made not refused: ${codes.join(', ')}`);
  for (const code of codes) assert.ok(['VALIDATION_ERROR', 'UNKNOWN_CALL_ID', 'MISSING_TOOL_RESULTS', 'THREAD_BUSY'].includes(code), `a refusal coded ${code}`);
  const waiting = [...runs.values()].filter((run) => !run.some((c) => c.event === 'error'));
  assert.ok(waiting.length >= count('valid'), `${count('valid')} valid frames but ${waiting.length} runs that did not fail`);
  for (const frame of frames) {
    const threadId = frame.kind === 'valid' ? (frame.body.config as { thread_id?: string } | undefined)?.thread_id : undefined;
    if (threadId === undefined) continue;
    const run = [...runs.values()].find((r) => r[0]!.thread_id === threadId);
    assert.ok(run && !run.some((c) => c.event === 'error'), `the valid frame on ${threadId} did not run: ${JSON.stringify(run)}`);
  }
  return { runs: runs.size, refusals: refusals.length };
}

describe('known failures found by the fuzz (each fails until its bug is fixed)', () => {
  const folder = mkdtempSync(join(tmpdir(), '10xgraph-fuzz-bugs-'));
  const server = new ApiProcess({ config: FAULT_AGENT_CONFIG, db: join(folder, 'threads.sqlite') });
  before(() => server.start());
  after(async () => {
    await server.stop();
    rmSync(folder, { recursive: true, force: true });
  });

  for (const where of ['initial_state', 'output', 'thread state'] as const) {
    test(`deeply nested JSON in ${where === 'output' ? "a result's output" : where} is refused with a 4xx, not a 500 (runtime/src/api/validate.ts)`, async () => {
      const deep = '['.repeat(20_000) + ']'.repeat(20_000);
      let body: string;
      let path = '/v1/graph/invoke';
      let method = 'POST';
      if (where === 'initial_state') {
        body = `{"messages":[{"role":"user","content":[{"type":"text","text":"deep state"}]}],"initial_state":{"deep":${deep}}}`;
      } else if (where === 'thread state') {
        path = '/v1/threads/deep-state/state';
        method = 'PUT';
        body = `{"state":{"deep":${deep}}}`;
      } else {
        const first = await sendRaw(server.port, {
          method: 'POST',
          path: '/v1/graph/invoke',
          headers: { 'content-type': 'application/json' },
          body: Buffer.from(JSON.stringify({ messages: [{ role: 'user', content: [{ type: 'text', text: 'deep output' }] }], config: { thread_id: 'deep-output' } })),
        });
        const call = pendingRemoteCalls((JSON.parse(first.body.toString()) as { data: { messages: Message[] } }).data.messages)[0]!.id;
        body = `{"messages":[{"role":"tool","content":[{"type":"tool_result","call_id":"${call}","output":${deep},"is_error":false,"status":"completed"}]}],"config":{"thread_id":"deep-output"}}`;
      }
      const answer = await sendRaw(server.port, { method, path, headers: { 'content-type': 'application/json' }, body: Buffer.from(body) });
      assert.ok(answer.status >= 400 && answer.status < 500, `answered ${answer.status}: ${answer.body.subarray(0, 300).toString()}`);
      checkErrorEnvelope(JSON.parse(answer.body.toString()), `deep ${where}`);
    });
  }

  test('a request target that is not a valid URL is a 400 JSON error, not a 500 (runtime/src/api/server.ts, handle)', async () => {
    for (const target of ['http://[', 'http://a:b:c/', 'http://x:99999/ping', 'http://user@/ping']) {
      const answer = parseRawAnswer(await exchangeRaw(server.port, `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`));
      assert.equal(answer.status, 400, `GET ${target} answered ${answer.status}: ${answer.body}`);
      checkErrorEnvelope(JSON.parse(answer.body), `GET ${target}`);
    }
    // A target that starts with one slash is a path, whatever follows: `//[/` is no URL of a host, and no route.
    const path = parseRawAnswer(await exchangeRaw(server.port, `GET //[/ HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nConnection: close\r\n\r\n`));
    assert.equal(path.status, 404, `GET //[/ answered ${path.status}: ${path.body}`);
    checkErrorEnvelope(JSON.parse(path.body), 'GET //[/');
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
