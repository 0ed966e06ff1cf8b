// TenxGraphClient against servers that are not 10xgraph or that fail: what the caller is told.
// Each server here is a real node:http server on loopback answering one fixed way.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import WebSocket from 'ws';
import { Message, TenxGraphClient, TenxGraphError } from '../../client-sdk/src';
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
  test('an API error envelope becomes a TenxGraphError with its status, code, message and request id', async () => {
    routes.set('POST /v1/graph/invoke', (_req, res) =>
      json(res, 409, { error: { code: 'thread_busy', message: 'Thread t1 is running another request; retry when it ends.' }, metadata: { ...metadata, request_id: 'req-409' } }),
    );
    const error = await rejection(new TenxGraphClient({ baseUrl }).invoke([Message.text_message('hi')], { config: { thread_id: 't1' } }));
    assert.equal(error.status, 409);
    assert.equal(error.code, 'thread_busy');
    assert.equal(error.message, 'Thread t1 is running another request; retry when it ends.');
    assert.equal(error.requestId, 'req-409');
  });

  test('a non-10xgraph answer is reported as such, not as a crash', async () => {
    const client = new TenxGraphClient({ baseUrl });
    const notFound = await rejection(client.graph());
    assert.equal(notFound.status, 404);
    assert.equal(notFound.code, 'http_404');
    assert.match(notFound.message, /GET \/v1\/graph answered 404 .*without a 10xgraph error \(<h1>Not Found<\/h1>\)/);
    routes.set('GET /ping', (_req, res) => json(res, 200, { ok: true }));
    const odd = await rejection(client.ping());
    assert.equal(odd.code, 'unexpected_response');
    assert.match(odd.message, /is not a 10xgraph envelope/);
  });

  test('an unreachable server gives network_error naming the URL', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const error = await rejection(new TenxGraphClient({ baseUrl: `http://127.0.0.1:${port}/` }).ping());
    assert.equal(error.status, 0);
    assert.equal(error.code, 'network_error');
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
    wss.once('connection', (socket) => {
      socket.on('message', (data) => {
        const frame = JSON.parse(String(data)) as { id: string };
        socket.send(JSON.stringify({ event: 'metadata', data: { thread_id: 't', run_id: 'r' }, request_id: frame.id }));
        socket.send(JSON.stringify({ event: 'end', data: { thread_id: 't', status: 'completed' }, request_id: frame.id }));
      });
    });
    const chunks = await collect(client.streamWs('hi'));
    const { url, protocols, chosen } = await upgraded;
    assert.equal(url, '/v1/graph/ws');
    // 's3cret' in base64url, after the protocol the server answers with.
    assert.deepEqual(protocols.split(/, */), ['10xgraph', `10xgraph.bearer.${Buffer.from('s3cret').toString('base64url')}`]);
    assert.equal(chosen, '10xgraph');
    assert.deepEqual(
      chunks.map((c) => c.event),
      ['metadata', 'end'],
    );
    client.close();
  });

  test('a stream cut before its end chunk is reported as stream_incomplete', async () => {
    routes.set('POST /v1/graph/stream', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      res.end(JSON.stringify({ event: 'metadata', data: { thread_id: 't9', run_id: 'r' } }) + '\n');
    });
    const client = new TenxGraphClient({ baseUrl });
    const got: string[] = [];
    const error = await rejection(
      (async () => {
        for await (const chunk of client.stream('hi', { config: { thread_id: 't9' } })) got.push(chunk.event);
      })(),
    );
    assert.deepEqual(got, ['metadata']);
    assert.equal(error.code, 'stream_incomplete');
    assert.equal(error.threadId, 't9');
  });

  test('a stream validation error before the run is thrown with its status', async () => {
    routes.set('POST /v1/graph/stream', (_req, res) => json(res, 422, { error: { code: 'invalid_field', message: "Field 'messages' must be an array of messages." }, metadata }));
    const error = await rejection(collect(new TenxGraphClient({ baseUrl }).stream('hi')));
    assert.equal(error.status, 422);
    assert.equal(error.code, 'invalid_field');
  });

  test('a WebSocket closed by the server mid-request fails that request with connection_closed', async () => {
    wss.once('connection', (socket) => {
      socket.on('message', () => socket.close(1011, 'going away'));
    });
    const client = new TenxGraphClient({ baseUrl, WebSocket });
    const error = await rejection(collect(client.streamWs('hi')));
    assert.equal(error.code, 'connection_closed');
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
    assert.equal(error.code, 'unsupported_environment');
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
