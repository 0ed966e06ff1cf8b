/**
 * Sockets and limits of `10xgraph api`, each from an attack of the security review: refused
 * upgrades, malformed requests and CONNECT close their socket; stalled headers and bodies get 408;
 * a WebSocket that stops answering pings, or sits idle, is dropped; a client that never reads is
 * dropped rather than buffered for without bound (WebSocket and NDJSON stream); one WebSocket runs
 * one request at a time, each ended by a done, and refuses a flood past its waiting list.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import WebSocket from 'ws';
import { createApiServer, type ApiServer } from '../../runtime/src/api/index';
import type { SocketLimits } from '../../runtime/src/api/sockets';
import { poll } from '../support/poll';
import { buildTestGraph, isDone, latch, userText } from './serverHelpers';
import { CapturedLog, RawWebSocket, clientFrame, closesWithin, handshake, probeUntilClosed } from './rawSocket';

const TOKEN = 'sockets-s3cret';

interface Served {
  api: ApiServer;
  port: number;
  log: CapturedLog;
}

async function serve(limits: Partial<SocketLimits>, options: { token?: string; slowTool?: () => Promise<string> } = {}): Promise<Served> {
  const graph = buildTestGraph(options.slowTool ? [{ name: 'slow_tool', description: 'A server tool the test controls.', handler: options.slowTool }] : []);
  const log = new CapturedLog();
  const api = createApiServer({ graph, token: options.token ?? '', corsOrigins: [], allowedHosts: [], log, limits });
  const url = await api.listen(0, '127.0.0.1');
  return { api, port: Number(new URL(url).port), log };
}

function connections(api: ApiServer): Promise<number> {
  return new Promise((resolve, reject) => api.server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
}

/** Opens a half-open-capable socket, writes `bytes`, and resolves with what the server answered and a promise of its close. */
function rawExchange(port: number, bytes: string): Promise<{ answer: string; closed: Promise<void>; socket: Socket }> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    let answer = '';
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.on('error', () => {});
    socket.setEncoding('latin1');
    socket.on('data', (text: string) => (answer += text));
    socket.once('end', () => {
      // The server's FIN came; a byte back is reset only if the server also let the socket go.
      probeUntilClosed(socket);
      resolve({ answer, closed, socket });
    });
    socket.write(bytes);
  });
}

const UPGRADE = (port: number) =>
  `GET /v1/graph/ws HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`;

describe('refused sockets are closed after their answer', () => {
  let served: Served;
  before(async () => (served = await serve({}, { token: TOKEN })));
  after(() => served.api.close());

  const cases: Array<[string, (port: number) => string, number]> = [
    ['an upgrade without the token (401)', UPGRADE, 401],
    ['malformed HTTP (400)', () => 'FOO /ping HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', 400],
    ['CONNECT (405)', () => 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', 405],
  ];
  for (const [name, bytes, status] of cases) {
    test(`${name}: 200 of 200 sockets closed by the server, even when the client never closes its side`, async () => {
      const exchanges = await Promise.all(Array.from({ length: 200 }, () => rawExchange(served.port, bytes(served.port))));
      for (const { answer } of exchanges) assert.match(answer, new RegExp(`^HTTP/1\\.1 ${status} `));
      const closed = await Promise.all(exchanges.map(({ closed }) => closesWithin(closed, 5000)));
      assert.equal(closed.filter(Boolean).length, 200, 'sockets the server kept open');
      await poll('the server to hold no connection', async () => (await connections(served.api)) === 0, 5000);
    });
  }
});

describe('time-outs on requests', () => {
  let served: Served;
  before(async () => (served = await serve({ headersTimeoutMs: 300, bodyTimeoutMs: 300 })));
  after(() => served.api.close());

  test('headers that never end: 408 REQUEST_TIMEOUT (not 400), then the socket is closed', async () => {
    const { answer, closed } = await rawExchange(served.port, `GET /ping HTTP/1.1\r\nHost: 127.0.0.1:${served.port}\r\nX-Slow: `);
    assert.match(answer, /^HTTP\/1\.1 408 /);
    assert.match(answer, /"code":"REQUEST_TIMEOUT"/);
    assert.ok(await closesWithin(closed));
  });

  test('a body that stalls: 408 REQUEST_TIMEOUT naming the pause, then the socket is closed; nothing ran', async () => {
    const body = JSON.stringify({ messages: [userText('hello')], config: { thread_id: 'stalled' } });
    const { answer, closed } = await rawExchange(
      served.port,
      `POST /v1/graph/invoke HTTP/1.1\r\nHost: 127.0.0.1:${served.port}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
    );
    assert.match(answer, /^HTTP\/1\.1 408 /);
    assert.match(answer, /"code":"REQUEST_TIMEOUT".*stalled for 300 ms/);
    assert.ok(await closesWithin(closed));
    assert.equal(await served.api.store.load('stalled'), undefined, 'a thread was made from half a body');
  });

  test('a slow but steady body is read whole', async () => {
    const body = JSON.stringify({ messages: [userText('hello')] });
    const socket = connect(served.port, '127.0.0.1');
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    let answer = '';
    socket.setEncoding('latin1').on('data', (text: string) => (answer += text));
    socket.write(`POST /v1/graph/invoke HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`);
    // Five pieces, paced as a slow client sends them: each gap is under the body bound, all of them
    // together over it. The pacing is what is tested, not a wait for a result.
    const gapMs = 100;
    for (let at = 0; at < body.length; at += Math.ceil(body.length / 5)) {
      socket.write(body.slice(at, at + Math.ceil(body.length / 5)));
      await new Promise((resolve) => setTimeout(resolve, gapMs));
    }
    await closed;
    assert.match(answer, /^HTTP\/1\.1 200 /);
  });
});

describe('WebSocket heartbeat and idle bound', () => {
  let served: Served;
  before(async () => (served = await serve({ heartbeatMs: 150, idleTimeoutMs: 600 })));
  after(() => served.api.close());

  test('a client that never answers pings is dropped', async () => {
    const shake = await handshake(served.port, '/v1/graph/ws', { host: `127.0.0.1:${served.port}` });
    assert.equal(shake.status, 101);
    const raw = new RawWebSocket(shake);
    await raw.until('a ping', () => raw.frames.some((frame) => frame.opcode === 0x9));
    assert.ok(await closesWithin(shake.closed, 5000), 'the server kept a socket that never answered a ping');
    assert.ok(served.log.lines.some((entry) => entry.fields?.event === 'websocket_dropped' && entry.fields.reason === 'heartbeat'));
  });

  test('a client that answers pings but sends nothing is closed once idle, with 1001', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${served.port}/v1/graph/ws`);
    const opened = Date.now();
    const closed = new Promise<{ code: number; at: number }>((resolve) => ws.once('close', (code) => resolve({ code, at: Date.now() })));
    await new Promise((resolve) => ws.once('open', resolve));
    const { code, at } = await closed;
    assert.equal(code, 1001);
    assert.ok(at - opened >= 550, `closed after ${at - opened} ms, before the idle bound`);
    assert.ok(served.log.lines.some((entry) => entry.fields?.event === 'websocket_idle'));
  });
});

describe('a run in flight keeps its WebSocket', () => {
  test('no idle close while a run goes, and the close comes once it has ended', async () => {
    const hold = latch();
    const started = latch();
    const served = await serve(
      { heartbeatMs: 100, idleTimeoutMs: 300 },
      {
        slowTool: async () => {
          started.release();
          await hold.promise;
          return 'done';
        },
      },
    );
    try {
      const ws = new WebSocket(`ws://127.0.0.1:${served.port}/v1/graph/ws`);
      const chunks: any[] = [];
      ws.on('message', (data) => chunks.push(JSON.parse(String(data))));
      let closedAt: number | undefined;
      ws.once('close', () => (closedAt = Date.now()));
      await new Promise((resolve) => ws.once('open', resolve));
      ws.send(JSON.stringify({ invoke_type: 'fresh', messages: [userText('run the slow tool')] }));
      await started.promise;
      // Three idle bounds with the run held: the socket must stay open (heartbeats answered meanwhile).
      const heldSince = Date.now();
      await poll('three idle bounds to pass', () => Date.now() - heldSince > 900, 5000);
      assert.equal(closedAt, undefined, 'the socket was closed for idleness while its run was going');
      hold.release();
      await poll('the done of the run', () => chunks.some(isDone), 5000);
      await poll('the idle close after the run', () => closedAt !== undefined, 5000);
    } finally {
      hold.release();
      await served.api.close();
    }
  });
});

describe('back-pressure: a client that never reads', () => {
  const BIG = 'x'.repeat(512 * 1024);

  test('WebSocket: dropped once the bound is queued; its runs still end and are saved', async () => {
    const served = await serve({ maxBufferedBytes: 256 * 1024, maxRunsPerSocket: 4 }, { slowTool: async () => BIG });
    try {
      const shake = await handshake(served.port, '/v1/graph/ws', { host: `127.0.0.1:${served.port}` });
      assert.equal(shake.status, 101);
      // Never read: each run answers about 1 MB (the tool's output, and the model's answer quoting it).
      const raw = new RawWebSocket(shake, { read: false });
      for (let i = 0; i < 40; i++) raw.send(JSON.stringify({ invoke_type: 'fresh', messages: [userText('run the slow tool')], config: { thread_id: `bp-${i}` } }));
      await poll(
        'the drop for back-pressure',
        () => served.log.lines.some((entry) => entry.fields?.event === 'websocket_dropped' && entry.fields.reason === 'backpressure'),
        20_000,
      );
      await poll('the server to let the socket go', async () => (await connections(served.api)) === 0, 10_000);
      assert.equal(served.log.mentioning('Dropped a WebSocket').length, 1, 'one line per dropped socket');
      await poll('the runs started to end', async () => (await served.api.store.load('bp-0'))?.status === 'completed', 10_000);
    } finally {
      await served.api.close();
    }
  });

  test('NDJSON stream: the response is dropped once the bound is queued; the run is saved', async () => {
    const HUGE = 'y'.repeat(8 * 1024 * 1024);
    const served = await serve({ maxBufferedBytes: 256 * 1024 }, { slowTool: async () => HUGE });
    try {
      const body = JSON.stringify({ messages: [userText('run the slow tool')], config: { thread_id: 'bp-stream' } });
      const socket = connect(served.port, '127.0.0.1');
      socket.on('error', () => {});
      socket.pause();
      socket.write(`POST /v1/graph/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
      await poll('the dropped stream', () => served.log.lines.some((entry) => entry.fields?.event === 'stream_dropped'), 20_000);
      await poll('the run saved', async () => (await served.api.store.load('bp-stream'))?.status === 'completed', 10_000);
      socket.destroy();
    } finally {
      await served.api.close();
    }
  });
});

/** A slow tool that holds every run until `hold` is released, counting the runs in it now and at most. */
function concurrencyProbe(): { hold: ReturnType<typeof latch>; running: number; most: number; slowTool: () => Promise<string> } {
  const probe = {
    hold: latch(),
    running: 0,
    most: 0,
    slowTool: async () => {
      probe.running++;
      probe.most = Math.max(probe.most, probe.running);
      await probe.hold.promise;
      probe.running--;
      return 'ok';
    },
  };
  return probe;
}

describe('runs per WebSocket', () => {
  test('one run at a time, in the order sent; the others wait and each ends with its done; a flood past the waiting list is refused', async () => {
    const probe = concurrencyProbe();
    const { hold } = probe;
    const served = await serve({ maxRunsPerSocket: 2 }, { slowTool: probe.slowTool });
    try {
      const shake = await handshake(served.port, '/v1/graph/ws', { host: `127.0.0.1:${served.port}` });
      const raw = new RawWebSocket(shake);
      for (let i = 0; i < 6; i++) raw.send(JSON.stringify({ invoke_type: 'fresh', messages: [userText('run the slow tool')], config: { thread_id: `seq-${i}` } }));
      await poll('a run in the tool', () => probe.running === 1, 5000);
      hold.release();
      await raw.until('six dones', () => raw.chunks().filter(isDone).length === 6);
      assert.equal(probe.most, 1, 'two runs of one socket were in the tool at once');
      // Each run's chunks come whole between the done of the one before and its own.
      const runs: any[][] = [[]];
      for (const chunk of raw.chunks()) {
        if (isDone(chunk)) runs.push([]);
        else runs.at(-1)!.push(chunk);
      }
      assert.deepEqual(
        runs.slice(0, 6).map((run) => [...new Set(run.map((chunk) => chunk.thread_id))]),
        Array.from({ length: 6 }, (_, i) => [`seq-${i}`]),
      );
      for (const run of runs.slice(0, 6)) {
        assert.ok(run.every((chunk) => chunk.event === 'message'));
        assert.match(run.at(-1).message.content[0].text, /slow_tool: ok$/);
      }

      // 100 requests in one write: two are taken, 64 wait, the rest are refused at once with TOO_MANY_RUNS.
      const flood = latch();
      const floodServed = await serve({ maxRunsPerSocket: 2 }, { slowTool: () => flood.promise.then(() => 'ok') });
      try {
        const floodShake = await handshake(floodServed.port, '/v1/graph/ws', { host: `127.0.0.1:${floodServed.port}` });
        const floodRaw = new RawWebSocket(floodShake);
        floodShake.socket.write(Buffer.concat(Array.from({ length: 100 }, (_, i) => frameFor(i))));
        const refusals = () => floodRaw.chunks().filter((chunk) => chunk.event === 'error' && chunk.data.code === 'TOO_MANY_RUNS');
        await floodRaw.until('the refusals', () => refusals().length > 0);
        assert.ok(refusals().length <= 34, `${refusals().length} refused`);
        flood.release();
        await floodRaw.until('every request done', () => floodRaw.chunks().filter(isDone).length === 100, 20_000);
        const ran = floodRaw.chunks().filter((chunk) => chunk.event === 'message' && chunk.message.role === 'assistant' && chunk.message.delta !== true);
        assert.equal(new Set(ran.map((chunk) => chunk.thread_id)).size + refusals().length, 100, 'every request either ran or was refused');
        floodShake.socket.destroy();
      } finally {
        flood.release();
        await floodServed.api.close();
      }
      shake.socket.destroy();
    } finally {
      hold.release();
      await served.api.close();
    }
  });
});

describe('runs per HTTP connection (pipelining)', () => {
  test('40 pipelined invokes on one connection: at most maxRunsPerSocket run, the rest get 429 TOO_MANY_RUNS, answers in order', async () => {
    const probe = concurrencyProbe();
    const { hold } = probe;
    const served = await serve({ maxRunsPerSocket: 4 }, { slowTool: probe.slowTool });
    try {
      const body = JSON.stringify({ messages: [userText('run the slow tool')] });
      const one = `POST /v1/graph/invoke HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
      const socket = connect(served.port, '127.0.0.1');
      let answers = '';
      socket.setEncoding('latin1').on('data', (text: string) => (answers += text));
      socket.write(one.repeat(40));
      await poll('four runs in the tool', () => probe.running === 4, 5000);
      hold.release();
      const statusesOf = () => [...answers.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((match) => Number(match[1]));
      await poll('40 answers', () => statusesOf().length === 40, 10_000);
      socket.destroy();
      const statuses = statusesOf();
      assert.equal(probe.most, 4);
      assert.deepEqual(statuses.slice(0, 4), [200, 200, 200, 200]);
      assert.deepEqual(new Set(statuses.slice(4)), new Set([429]));
      assert.match(answers, /"code":"TOO_MANY_RUNS"/);
    } finally {
      hold.release();
      await served.api.close();
    }
  });
});

describe('a malformed request pipelined behind a stream', () => {
  test('ends the connection without writing an error answer into the stream', async () => {
    const hold = latch();
    let held = false;
    const served = await serve(
      {},
      {
        slowTool: async () => {
          held = true;
          await hold.promise;
          return 'ok';
        },
      },
    );
    try {
      const body = JSON.stringify({ messages: [userText('run the slow tool')] });
      const socket = connect(served.port, '127.0.0.1');
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      socket.on('error', () => {});
      let answer = '';
      socket.setEncoding('latin1').on('data', (text: string) => (answer += text));
      socket.write(`POST /v1/graph/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
      await poll('the stream to reach the held tool', () => held && answer.includes('"event":"message"'), 5000);
      socket.write('FOO / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      await closed;
      assert.match(answer, /^HTTP\/1\.1 200 /);
      assert.equal([...answer.matchAll(/HTTP\/1\.1 \d{3}/g)].length, 1, `an answer was written into the stream: ${answer}`);
    } finally {
      hold.release();
      await served.api.close();
    }
  });
});

function frameFor(i: number): Buffer {
  return clientFrame(JSON.stringify({ invoke_type: 'fresh', messages: [userText('run the slow tool')], config: { thread_id: `flood-${i}` } }));
}
