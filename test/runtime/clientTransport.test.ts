// TenxGraphClient against servers that are not 10xgraph or that fail: what the caller is told.
// Each server here is a real node:http server on loopback answering one fixed way.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import WebSocket from 'ws';
import { Message, TenxGraphClient, TenxGraphError, WS_BEARER_PROTOCOL } from '../../client-sdk/src';
import type { StreamChunk } from '../../client-sdk/src';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

let server: Server;
let baseUrl: string;
let wss: WebSocketServer;
const routes = new Map<string, Handler>();
const seen: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }> = [];

before(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (part: string) => (body += part));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const handler = routes.get(`${req.method} ${(req.url ?? '').split('?')[0]}`);
      if (handler) handler(req, res, body);
      else {
        res.writeHead(404, { 'content-type': 'text/html' });
        res.end('<h1>Not Found</h1>');
      }
    });
  });
  wss = new WebSocketServer({ server, path: '/v1/graph/ws' });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  for (const socket of wss.clients) socket.terminate();
  await new Promise((resolve) => wss.close(resolve));
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

const metadata = { request_id: 'req-1', timestamp: '2024-01-01T00:00:00.000Z', message: 'ok' };

/** A stream chunk of the real wire: every key present, those the event does not use null. */
function chunk(event: StreamChunk['event'], fields: Partial<StreamChunk> = {}): StreamChunk {
  return { event, message: null, state: null, data: null, thread_id: 't', run_id: 'r', metadata: { thread_id: 't', is_new_thread: true }, timestamp: 1, ...fields };
}

/** A ToolNode's message handing `read_clipboard` to the client: a run that ends on it waits for the result. */
const PLACEHOLDER: Message = {
  message_id: 'p1',
  role: 'tool',
  content: [{ type: 'remote_tool_call', id: 'call_1', name: 'read_clipboard', args: {}, tool_type: 'remote' }],
  metadata: { is_remote: true, node_name: 'TOOL' },
};

/** The chunk the WebSocket sends after every run. */
const DONE = JSON.stringify(chunk('updates', { data: { status: 'done' }, thread_id: null, run_id: null, metadata: null }));

async function rejection(promise: Promise<unknown>): Promise<TenxGraphError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof TenxGraphError, `expected a TenxGraphError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected a rejection');
}

async function collect(iterable: AsyncIterable<StreamChunk>): Promise<StreamChunk[]> {
  const out: StreamChunk[] = [];
  for await (const chunk of iterable) out.push(chunk);
  return out;
}

describe('TenxGraphClient transport', () => {
  test('an API error envelope becomes a TenxGraphError with its status, code, message, details and request id', async () => {
    routes.set('POST /v1/graph/invoke', (_req, res) =>
      json(res, 409, {
        error: { code: 'THREAD_BUSY', message: 'Thread t1 is running another request; retry when it ends.', details: [] },
        metadata: { ...metadata, request_id: 'req-409' },
      }),
    );
    const error = await rejection(new TenxGraphClient({ baseUrl }).invoke([Message.text_message('hi')], { config: { thread_id: 't1' } }));
    assert.equal(error.status, 409);
    assert.equal(error.code, 'THREAD_BUSY');
    assert.equal(error.message, 'Thread t1 is running another request; retry when it ends.');
    assert.deepEqual(error.details, []);
    assert.equal(error.requestId, 'req-409');
  });

  test('a non-10xgraph answer is reported as such, not as a crash', async () => {
    const client = new TenxGraphClient({ baseUrl });
    const notFound = await rejection(client.graph());
    assert.equal(notFound.status, 404);
    assert.equal(notFound.code, 'HTTP_404');
    assert.match(notFound.message, /GET \/v1\/graph answered 404 .*without a 10xgraph error \(<h1>Not Found<\/h1>\)/);
    routes.set('GET /ping', (_req, res) => json(res, 200, { ok: true }));
    const odd = await rejection(client.ping());
    assert.equal(odd.code, 'UNEXPECTED_RESPONSE');
    assert.match(odd.message, /is not a 10xgraph envelope/);
  });

  test('an unreachable server gives NETWORK_ERROR naming the URL', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const error = await rejection(new TenxGraphClient({ baseUrl: `http://127.0.0.1:${port}/` }).ping());
    assert.equal(error.status, 0);
    assert.equal(error.code, 'NETWORK_ERROR');
    assert.ok(error.message.includes(`http://127.0.0.1:${port}`), error.message);
  });

  test('the token is sent as a bearer header over HTTP and as a subprotocol on the WebSocket, never in its URL', async () => {
    routes.set('GET /v1/graph/tools', (_req, res) => json(res, 200, { data: { node_count: 0, tool_count: 0, nodes: [] }, metadata }));
    seen.length = 0;
    const client = new TenxGraphClient({ baseUrl: `${baseUrl}/`, token: 's3cret', WebSocket });
    assert.deepEqual(await client.graphTools(), { node_count: 0, tool_count: 0, nodes: [] });
    assert.equal(seen[0]?.headers.authorization, 'Bearer s3cret');
    assert.equal(seen[0]?.url, '/v1/graph/tools');

    const upgraded = new Promise<{ url: string; protocols: string; chosen: string }>((resolve) =>
      wss.once('connection', (socket, req) => resolve({ url: req.url ?? '', protocols: String(req.headers['sec-websocket-protocol']), chosen: socket.protocol })),
    );
    const frames: unknown[] = [];
    wss.once('connection', (socket) => {
      socket.on('message', (data) => {
        frames.push(JSON.parse(String(data)));
        const answer: Message = { message_id: 'a1', role: 'assistant', content: [{ type: 'text', text: 'hello' }] };
        socket.send(JSON.stringify(chunk('message', { message: answer })));
        socket.send(DONE);
      });
    });
    const chunks = await collect(client.streamWs('hi'));
    const { url, protocols, chosen } = await upgraded;
    assert.equal(url, '/v1/graph/ws');
    // The sentinel the server answers with, then the token.
    assert.deepEqual(protocols.split(/, */), [WS_BEARER_PROTOCOL, 's3cret']);
    assert.equal(chosen, '10xgraph-bearer');
    // One fresh run: the message, no request id; the run's chunks up to its done, which is not yielded.
    assert.equal(frames.length, 1);
    const frame = frames[0] as { invoke_type: string; messages: Message[]; id?: unknown };
    assert.equal(frame.invoke_type, 'fresh');
    assert.equal(frame.id, undefined);
    assert.deepEqual(
      frame.messages.map((message) => [message.role, Message.text(message)]),
      [['user', 'hi']],
    );
    assert.deepEqual(
      chunks.map((c) => `${c.event}:${c.message?.message_id ?? ''}`),
      ['message:a1'],
    );
    client.close();
  });

  test('without a token the WebSocket offers no subprotocol and HTTP sends no authorization', async () => {
    routes.set('GET /ping', (_req, res) => json(res, 200, { data: 'pong', metadata }));
    seen.length = 0;
    const client = new TenxGraphClient({ baseUrl, WebSocket });
    assert.equal(await client.ping(), 'pong');
    assert.equal(seen[0]?.headers.authorization, undefined);
    const upgraded = new Promise<string | undefined>((resolve) => wss.once('connection', (_socket, req) => resolve(req.headers['sec-websocket-protocol'])));
    wss.once('connection', (socket) => socket.on('message', () => socket.send(DONE)));
    assert.deepEqual(await collect(client.streamWs('hi')), []);
    assert.equal(await upgraded, undefined);
  });

  test("an error chunk is yielded as it came and ends the loop: the run's remote calls are not run", async () => {
    routes.set('POST /v1/graph/stream', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(JSON.stringify(chunk('message', { message: PLACEHOLDER, thread_id: 't9' })) + '\n');
      res.end(JSON.stringify(chunk('error', { data: { reason: 'The run failed inside the server.', code: 'INTERNAL_SERVER_ERROR' }, thread_id: 't9' })) + '\n');
    });
    let ran = 0;
    const client = new TenxGraphClient({ baseUrl }).registerToolHandler('read_clipboard', () => ++ran);
    seen.length = 0;
    const chunks = await collect(client.stream('hi', { config: { thread_id: 't9' } }));
    assert.deepEqual(
      chunks.map((c) => c.event),
      ['message', 'error'],
    );
    assert.deepEqual(chunks[1]!.data, { reason: 'The run failed inside the server.', code: 'INTERNAL_SERVER_ERROR' });
    assert.equal(ran, 0);
    assert.deepEqual(
      seen.map((request) => `${request.method} ${request.url}`),
      ['POST /v1/graph/stream'],
    );
  });

  test('a stream validation error before the run is thrown with its status and details', async () => {
    const details = [{ loc: ['body', 'messages'], msg: 'Field required', type: 'missing' }];
    routes.set('POST /v1/graph/stream', (_req, res) => json(res, 422, { error: { code: 'VALIDATION_ERROR', message: "Field 'messages' is required.", details }, metadata }));
    const error = await rejection(collect(new TenxGraphClient({ baseUrl }).stream('hi')));
    assert.equal(error.status, 422);
    assert.equal(error.code, 'VALIDATION_ERROR');
    assert.deepEqual(error.details, details);
  });

  test('an aborted invoke stops its thread with POST /v1/graph/stop, naming the thread the client gave it', async () => {
    routes.set('POST /v1/graph/invoke', (_req, res, body) => {
      const threadId = (JSON.parse(body) as { config: { thread_id: string } }).config.thread_id;
      json(res, 200, { data: { messages: [PLACEHOLDER], state: null, context: null, summary: null, meta: { is_new_thread: true, thread_id: threadId } }, metadata });
    });
    routes.set('POST /v1/graph/stop', (_req, res) => json(res, 200, { data: { ok: true, running: false, reason: 'not-running' }, metadata }));
    const controller = new AbortController();
    const client = new TenxGraphClient({ baseUrl }).registerToolHandler('read_clipboard', (_args, context) => {
      // The user gives up while the handler runs.
      controller.abort(new Error('the user closed the page'));
      return new Promise((resolve) => context.signal.addEventListener('abort', () => resolve('late'), { once: true }));
    });
    seen.length = 0;
    await assert.rejects(client.invoke('hi', { signal: controller.signal }), /the user closed the page/);
    assert.deepEqual(
      seen.map((request) => `${request.method} ${request.url}`),
      ['POST /v1/graph/invoke', 'POST /v1/graph/stop'],
    );
    const named = (JSON.parse(seen[0]!.body) as { config: { thread_id: string } }).config.thread_id;
    assert.match(named, /^thread_[0-9a-f-]{36}$/);
    assert.equal((JSON.parse(seen[1]!.body) as { thread_id: string }).thread_id, named);
  });

  test('a WebSocket closed by the server mid-run fails that run with CONNECTION_CLOSED', async () => {
    wss.once('connection', (socket) => {
      socket.on('message', () => socket.close(1011, 'going away'));
    });
    const client = new TenxGraphClient({ baseUrl, WebSocket });
    const error = await rejection(collect(client.streamWs('hi')));
    assert.equal(error.code, 'CONNECTION_CLOSED');
    assert.match(error.message, /closed \(code 1011: going away\)/);
    client.close();
  });

  test('without a WebSocket implementation, streaming over ws says what to pass', async () => {
    // Hide any global WebSocket (Node 22+ has one) while the client picks its implementation.
    const global = globalThis as { WebSocket?: unknown };
    const saved = Object.getOwnPropertyDescriptor(global, 'WebSocket');
    Object.defineProperty(global, 'WebSocket', { value: undefined, configurable: true, writable: true });
    let client: TenxGraphClient;
    try {
      client = new TenxGraphClient({ baseUrl });
    } finally {
      if (saved) Object.defineProperty(global, 'WebSocket', saved);
      else delete global.WebSocket;
    }
    const error = await rejection(collect(client.streamWs('hi')));
    assert.equal(error.code, 'UNSUPPORTED_ENVIRONMENT');
    assert.match(error.message, /import WebSocket from 'ws'/);
  });

  test('options are checked when given', () => {
    assert.throws(() => new TenxGraphClient({ baseUrl: 'localhost:8000' }), /baseUrl must be an http:\/\/ or https:\/\/ URL/);
    assert.throws(() => new TenxGraphClient({ handlerTimeoutMs: -1 }), /timeoutMs must be a positive number/);
    const client = new TenxGraphClient({ baseUrl });
    return assert.rejects(client.invoke('hi', { recursion_limit: 0 }), /recursion_limit must be a whole number of at least 1/);
  });

  test('trailing slashes of baseUrl are dropped, and a long run of slashes elsewhere is not a quadratic cost', async () => {
    const asked: string[] = [];
    const fetch = async (input: string) => {
      asked.push(input);
      return new Response(JSON.stringify({ data: 'pong', metadata: { request_id: 'r', timestamp: '', message: '' } }), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      });
    };
    await new TenxGraphClient({ baseUrl: 'http://127.0.0.1:1///', fetch }).ping();
    assert.deepEqual(asked, ['http://127.0.0.1:1/ping']);
    const started = performance.now();
    assert.throws(() => new TenxGraphClient({ baseUrl: `http://127.0.0.1:1/${'/'.repeat(50_000)}x`, handlerTimeoutMs: -1 }), /timeoutMs must be a positive number/);
    assert.ok(performance.now() - started < 1000, 'trimming 50,000 slashes took a second or more');
  });
});
