/**
 * `10xgraph api` over real HTTP and WebSocket on loopback: the graph routes, the remote tool
 * cycle through invoke, stream and WebSocket, and every refusal.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createApiServer, startApiServer, type ApiServer, type RunningApiServer } from '../../runtime/src/api/index';
import { ModelNode, StateGraph, ToolNode, END, toolsCondition } from '../../runtime/src/graph/index';
import { ScriptedModel } from '../../runtime/src/models/index';
import { ROOT, QUICKSTART_CONFIG, WsSession, buildTestGraph, getJson, latch, postJson, postStream, resultsFor, userText } from './serverHelpers';

const quiet = { info() {}, warn() {}, error() {} };
const VERSION = JSON.parse(readFileSync(resolve(ROOT, 'runtime', 'package.json'), 'utf8')).version as string;

function lastText(messages: any[]): string {
  const last = messages.at(-1);
  return last.content
    .filter((b: any) => b.type === 'text')
    .map((b: any) => b.text)
    .join('');
}

describe('the quick start served by startApiServer', () => {
  let server: RunningApiServer;
  before(async () => {
    server = await startApiServer({ configPath: QUICKSTART_CONFIG, port: 0, db: ':memory:', token: '', log: quiet });
  });
  after(() => server.close());

  test('GET /ping, /v1/graph and /v1/graph/tools', async () => {
    const ping = await getJson(`${server.url}/ping`);
    assert.equal(ping.status, 200);
    assert.equal(ping.body.data, 'pong');
    assert.deepEqual(Object.keys(ping.body.metadata).sort(), ['message', 'request_id', 'timestamp']);

    const graph = await getJson(`${server.url}/v1/graph`);
    assert.equal(graph.status, 200);
    assert.equal(graph.body.data.info.version, VERSION);
    assert.equal(graph.body.data.info.node_count, 2);
    assert.deepEqual(graph.body.data.nodes, [
      { id: 'agent', name: 'agent', type: 'model_node' },
      { id: 'TOOL', name: 'TOOL', type: 'tool_node' },
    ]);
    assert.deepEqual(graph.body.data.edges.map((e: any) => `${e.source}->${e.target}`).sort(), ['TOOL->agent', 'agent->TOOL']);
    assert.equal(graph.body.data.info.edge_count, 2);

    const tools = await getJson(`${server.url}/v1/graph/tools`);
    assert.equal(tools.body.data.node_count, 1);
    assert.equal(tools.body.data.tool_count, 4);
    const node = tools.body.data.nodes[0];
    assert.equal(node.node_name, 'TOOL');
    assert.deepEqual(
      node.tools.map((t: any) => `${t.name}:${t.source}`),
      ['get_time:local', 'get_user_location:remote', 'read_clipboard:remote', 'search_local_database:remote'],
    );
    assert.deepEqual(node.tools[3].parameters.required, ['query']);
  });

  test('unknown routes are 404, wrong methods 405 with Allow, a plain GET of the WebSocket route 426', async () => {
    const missing = await getJson(`${server.url}/v1/nothing`);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'not_found');
    const wrong = await postJson(`${server.url}/v1/graph`, {});
    assert.equal(wrong.status, 405);
    assert.equal(wrong.body.error.code, 'method_not_allowed');
    assert.equal(wrong.headers.get('allow'), 'GET');
    const get = await getJson(`${server.url}/v1/graph/invoke`);
    assert.equal(get.status, 405);
    assert.equal((await getJson(`${server.url}/v1/graph/ws`)).status, 426);
  });

  test('invoke: remote call, result, answer', async () => {
    const first = await postJson(`${server.url}/v1/graph/invoke`, { messages: [userText('Where am I right now?')] });
    assert.equal(first.status, 200);
    const data = first.body.data;
    assert.equal(data.status, 'waiting');
    assert.equal(typeof data.thread_id, 'string');
    assert.equal(data.pending_remote_calls.length, 1);
    const call = data.pending_remote_calls[0];
    assert.deepEqual({ name: call.name, node: call.node, args: call.args }, { name: 'get_user_location', node: 'TOOL', args: {} });
    assert.deepEqual(
      data.messages.map((m: any) => m.role),
      ['assistant', 'tool'],
    );
    assert.deepEqual(data.messages[1].content, [{ type: 'remote_tool_call', id: call.id, name: 'get_user_location', args: {} }]);

    const second = await postJson(`${server.url}/v1/graph/invoke`, {
      messages: [resultsFor([call], () => ({ latitude: 59.91, longitude: 10.75, city: 'Oslo' }))],
      config: { thread_id: data.thread_id },
    });
    assert.equal(second.status, 200);
    assert.equal(second.body.data.thread_id, data.thread_id);
    assert.equal(second.body.data.status, 'completed');
    assert.deepEqual(second.body.data.pending_remote_calls, []);
    assert.equal(second.body.data.messages.length, 1);
    assert.match(lastText(second.body.data.messages), /get_user_location: \{"latitude":59\.91,"longitude":10\.75,"city":"Oslo"\}/);
  });

  test('stream: NDJSON chunks in order, through the remote call and back', async () => {
    const first = await postStream(server.url, { messages: [userText('What is on my clipboard?')] });
    assert.equal(first.status, 200);
    assert.match(first.contentType ?? '', /^application\/x-ndjson/);
    assert.deepEqual(
      first.chunks.map((c) => c.event),
      ['metadata', 'message', 'message', 'remote_tool_calls', 'end'],
    );
    const threadId = first.chunks[0].data.thread_id;
    assert.equal(typeof first.chunks[0].data.run_id, 'string');
    const calls = first.chunks[3].data.calls;
    assert.equal(first.chunks[3].data.thread_id, threadId);
    assert.deepEqual(
      calls.map((c: any) => c.name),
      ['read_clipboard'],
    );
    assert.deepEqual(first.chunks[4].data, { thread_id: threadId, status: 'waiting' });

    const second = await postStream(server.url, { messages: [resultsFor(calls, () => 'copied text')], config: { thread_id: threadId } });
    assert.deepEqual(
      second.chunks.map((c) => c.event),
      ['metadata', 'message', 'end'],
    );
    assert.match(lastText([second.chunks[1].data]), /read_clipboard: copied text/);
    assert.deepEqual(second.chunks[2].data, { thread_id: threadId, status: 'completed' });
  });

  test('WebSocket: chunks tagged with the request id; the socket stays open between requests', async () => {
    const ws = await WsSession.open(server.url);
    try {
      const first = await ws.request('r1', { messages: [userText('search for invoices')] });
      assert.ok(first.every((c) => c.request_id === 'r1'));
      assert.deepEqual(
        first.map((c) => c.event),
        ['metadata', 'message', 'message', 'remote_tool_calls', 'end'],
      );
      const calls = first[3].data.calls;
      assert.deepEqual(calls[0].args, { query: 'invoices' });
      const threadId = first[0].data.thread_id;
      const second = await ws.request('r2', { messages: [resultsFor(calls, () => [{ id: 7, title: 'Invoice 7' }])], config: { thread_id: threadId } });
      assert.deepEqual(
        second.map((c) => c.event),
        ['metadata', 'message', 'end'],
      );
      assert.match(lastText([second[1].data]), /search_local_database: \[\{"id":7,"title":"Invoice 7"\}\]/);
      assert.equal(second[2].data.status, 'completed');
      const third = await ws.request('r3', { messages: [userText('hello')], config: { thread_id: threadId } });
      assert.equal(third.at(-1).data.status, 'completed');
    } finally {
      await ws.close();
    }
  });

  test('two remote calls in one turn need both results', async () => {
    const first = await postJson(`${server.url}/v1/graph/invoke`, { messages: [userText("Where am I, and what's on my clipboard?")] });
    const { thread_id: threadId, pending_remote_calls: calls } = first.body.data;
    assert.deepEqual(calls.map((c: any) => c.name).sort(), ['get_user_location', 'read_clipboard']);
    const location = calls.find((c: any) => c.name === 'get_user_location');
    const clipboard = calls.find((c: any) => c.name === 'read_clipboard');

    const partial = await postJson(`${server.url}/v1/graph/invoke`, { messages: [resultsFor([location], () => 'Oslo')], config: { thread_id: threadId } });
    assert.equal(partial.status, 400);
    assert.equal(partial.body.error.code, 'missing_tool_results');
    assert.match(partial.body.error.message, new RegExp(clipboard.id));

    const both = await postJson(`${server.url}/v1/graph/invoke`, {
      messages: [resultsFor([location], () => 'Oslo'), resultsFor([clipboard], () => 'secret note')],
      config: { thread_id: threadId },
    });
    assert.equal(both.status, 200);
    const answer = lastText(both.body.data.messages);
    assert.match(answer, /get_user_location: Oslo/);
    assert.match(answer, /read_clipboard: secret note/);
  });

  test('a server tool and a remote tool in one turn', async () => {
    const first = await postJson(`${server.url}/v1/graph/invoke`, { messages: [userText('What time is it, and where am I?')] });
    const data = first.body.data;
    assert.deepEqual(
      data.pending_remote_calls.map((c: any) => c.name),
      ['get_user_location'],
    );
    const serverResults = data.messages.flatMap((m: any) => m.content).filter((b: any) => b.type === 'tool_result');
    assert.equal(serverResults.length, 1);
    assert.equal(serverResults[0].status, 'completed');
    assert.match(serverResults[0].output, /^\d{4}-\d\d-\d\dT/);
    const second = await postJson(`${server.url}/v1/graph/invoke`, { messages: [resultsFor(data.pending_remote_calls, () => 'Oslo')], config: { thread_id: data.thread_id } });
    const answer = lastText(second.body.data.messages);
    assert.match(answer, /get_time: \d{4}-/);
    assert.match(answer, /get_user_location: Oslo/);
  });

  test('results for an unknown or an already answered call id are 400 unknown_call_id', async () => {
    const stray = await postJson(`${server.url}/v1/graph/invoke`, {
      messages: [{ role: 'tool', content: [{ type: 'tool_result', call_id: 'call_nope', output: 1, status: 'completed' }] }],
    });
    assert.equal(stray.status, 400);
    assert.equal(stray.body.error.code, 'unknown_call_id');
    assert.match(stray.body.error.message, /call_nope/);

    const first = await postJson(`${server.url}/v1/graph/invoke`, { messages: [userText('where am I')] });
    const { thread_id: threadId, pending_remote_calls: calls } = first.body.data;
    const answer = await postJson(`${server.url}/v1/graph/invoke`, { messages: [resultsFor(calls, () => 'Oslo')], config: { thread_id: threadId } });
    assert.equal(answer.status, 200);
    const again = await postJson(`${server.url}/v1/graph/invoke`, { messages: [resultsFor(calls, () => 'Oslo')], config: { thread_id: threadId } });
    assert.equal(again.status, 400);
    assert.equal(again.body.error.code, 'unknown_call_id');
    // The refused request changed nothing: the thread still takes a new question.
    const next = await postStream(server.url, { messages: [userText('where am I')], config: { thread_id: threadId } });
    assert.equal(next.chunks.at(-1).data.status, 'waiting');
  });

  test('bad bodies: 400 invalid JSON, 415 not JSON, 422 naming the field, 413 too large', async () => {
    const url = `${server.url}/v1/graph/invoke`;
    const broken = await postJson(url, '{"messages": [');
    assert.equal(broken.status, 400);
    assert.equal(broken.body.error.code, 'invalid_json');

    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' });
    assert.equal(response.status, 415);
    assert.equal((await response.json()).error.code, 'unsupported_media_type');

    for (const [body, field] of [
      [{ messages: 'hello' }, "'messages'"],
      [{ messages: [] }, "'messages'"],
      [{ messages: [{ role: 'system', content: [] }] }, "'messages[0].role'"],
      [{ messages: [{ role: 'user', content: 'hi' }] }, "'messages[0].content'"],
      [{ messages: [userText('hi'), { role: 'tool', content: [{ type: 'tool_result', call_id: 42, status: 'completed' }] }] }, "'messages[1].content[0].call_id'"],
      [{ messages: [{ role: 'tool', content: [{ type: 'tool_result', call_id: 'c', status: 'done' }] }] }, "'messages[0].content[0].status'"],
      [{ messages: [{ role: 'user', content: [{ type: 'image' }] }] }, "'messages[0].content[0].type'"],
      [{ messages: [userText('hi')], config: { thread_id: 5 } }, "'config.thread_id'"],
      [{ messages: [userText('hi')], recursion_limit: '5' }, "'recursion_limit'"],
      [{ messages: [userText('hi')], recursion_limit: 0 }, "'recursion_limit'"],
    ] as const) {
      const answer = await postJson(url, body);
      assert.equal(answer.status, 422, JSON.stringify(body));
      assert.equal(answer.body.error.code, 'invalid_request');
      assert.ok(answer.body.error.message.includes(field), `${answer.body.error.message} names ${field}`);
    }

    const big = await postJson(url, { messages: [userText('x'.repeat(1024 * 1024 + 10))] });
    assert.equal(big.status, 413);
    assert.equal(big.body.error.code, 'body_too_large');
    assert.equal((await getJson(`${server.url}/ping`)).status, 200);
  });

  test('stream refusals are plain JSON errors with their status', async () => {
    const answer = await postStream(server.url, { messages: [{ role: 'tool', content: [{ type: 'tool_result', call_id: 'call_nope', output: 1, status: 'completed' }] }] });
    assert.equal(answer.status, 400);
    assert.match(answer.contentType ?? '', /^application\/json/);
    assert.equal(answer.chunks[0].error.code, 'unknown_call_id');
  });

  test('WebSocket: a bad frame gets an error and an end, and the socket stays open', async () => {
    const ws = await WsSession.open(server.url);
    try {
      ws.sendRaw('not json');
      const bad = await ws.until(null);
      assert.deepEqual(
        bad.map((c) => c.event),
        ['error', 'end'],
      );
      assert.equal(bad[0].data.code, 'invalid_json');
      assert.equal(bad[1].data.status, 'error');
      const wrong = await ws.request('w1', { messages: [{ role: 'robot', content: [] }] });
      assert.deepEqual(
        wrong.map((c) => c.event),
        ['error', 'end'],
      );
      assert.equal(wrong[0].data.code, 'invalid_request');
      assert.match(wrong[0].data.message, /messages\[0\]\.role/);
      const good = await ws.request('w2', { messages: [userText('hello')] });
      assert.equal(good.at(-1).data.status, 'completed');
    } finally {
      await ws.close();
    }
  });

  test('WebSocket upgrades from another origin are refused without a token', async () => {
    await assert.rejects(WsSession.open(server.url, { headers: { origin: 'https://evil.example' } }), (error: any) => error.status === 403);
    const local = await WsSession.open(server.url, { headers: { origin: 'http://localhost:5173' } });
    await local.close();
  });
});

describe('a thread that is running', () => {
  let api: ApiServer;
  let url: string;
  const entered = latch();
  const gate = latch();
  before(async () => {
    const slow = {
      name: 'slow_tool',
      description: 'Waits until the test lets it finish.',
      handler: async () => {
        entered.release();
        await gate.promise;
        return 'finally';
      },
    };
    api = createApiServer({ graph: buildTestGraph([slow]), token: '', log: quiet });
    url = await api.listen(0, '127.0.0.1');
  });
  after(() => api.close());

  test('refuses a second run with 409 thread_busy over HTTP, stream and WebSocket, and is free again after', async () => {
    const threadId = 'busy-thread';
    const running = postJson(`${url}/v1/graph/invoke`, { messages: [userText('run the slow tool')], config: { thread_id: threadId } });
    await entered.promise;
    const second = await postJson(`${url}/v1/graph/invoke`, { messages: [userText('hello')], config: { thread_id: threadId } });
    assert.equal(second.status, 409);
    assert.equal(second.body.error.code, 'thread_busy');
    assert.match(second.body.error.message, /busy-thread/);
    const streamed = await postStream(url, { messages: [userText('hello')], config: { thread_id: threadId } });
    assert.equal(streamed.status, 409);
    const ws = await WsSession.open(url);
    const viaWs = await ws.request('b1', { messages: [userText('hello')], config: { thread_id: threadId } });
    assert.deepEqual(
      viaWs.map((c) => [c.event, c.data.code ?? c.data.status]),
      [
        ['error', 'thread_busy'],
        ['end', 'error'],
      ],
    );
    await ws.close();
    // Another thread is not held up.
    const other = await postJson(`${url}/v1/graph/invoke`, { messages: [userText('hello')] });
    assert.equal(other.status, 200);

    gate.release();
    const first = await running;
    assert.equal(first.status, 200);
    assert.match(lastText(first.body.data.messages), /slow_tool: finally/);
    const after = await postJson(`${url}/v1/graph/invoke`, { messages: [userText('hello')], config: { thread_id: threadId } });
    assert.equal(after.status, 200);
  });
});

describe('the recursion limit', () => {
  let api: ApiServer;
  let url: string;
  before(async () => {
    // A model that calls a tool after every result never ends on its own.
    const model = new ScriptedModel(() => ({ toolCalls: [{ name: 'get_time', args: {} }] }));
    const graph = new StateGraph()
      .addNode('agent', new ModelNode(model))
      .addNode('TOOL', new ToolNode([{ name: 'get_time', description: 'The time.', handler: () => 'now' }]))
      .setEntryPoint('agent')
      .addConditionalEdges('agent', toolsCondition, ['TOOL', END])
      .addEdge('TOOL', 'agent')
      .compile();
    api = createApiServer({ graph, token: '', log: quiet });
    url = await api.listen(0, '127.0.0.1');
  });
  after(() => api.close());

  test('ends the run with recursion_limit_exceeded (400 on invoke) and leaves the thread usable', async () => {
    const answer = await postJson(`${url}/v1/graph/invoke`, { messages: [userText('go')], config: { thread_id: 'loop' }, recursion_limit: 5 });
    assert.equal(answer.status, 400);
    assert.equal(answer.body.error.code, 'recursion_limit_exceeded');
    assert.match(answer.body.error.message, /recursion_limit 5/);
    const record = (await api.store.load('loop'))!;
    assert.equal(record.running, false);
    assert.equal(record.status, 'completed');
    assert.equal(record.checkpoint.state.messages.length, 6);
    assert.equal(record.lastError?.code, 'recursion_limit_exceeded');

    const streamed = await postStream(url, { messages: [userText('again')], config: { thread_id: 'loop' }, recursion_limit: 3 });
    assert.equal(streamed.status, 200);
    assert.deepEqual(
      streamed.chunks.slice(-2).map((c) => c.event),
      ['error', 'end'],
    );
    assert.equal(streamed.chunks.at(-2).data.code, 'recursion_limit_exceeded');
    assert.deepEqual(streamed.chunks.at(-1).data, { thread_id: 'loop', status: 'error' });
    assert.equal((await api.store.load('loop'))!.checkpoint.state.messages.length, 10);
  });

  test('a limit of one step is said in the singular', async () => {
    const answer = await postJson(`${url}/v1/graph/invoke`, { messages: [userText('go')], config: { thread_id: 'one-step' }, recursion_limit: 1 });
    assert.equal(answer.body.error.code, 'recursion_limit_exceeded');
    assert.match(answer.body.error.message, /^The run took more than 1 step without ending \(recursion_limit 1\)/);
  });
});

describe('bearer token', () => {
  let api: ApiServer;
  let url: string;
  before(async () => {
    api = createApiServer({ graph: buildTestGraph(), token: 's3cret', log: quiet });
    url = await api.listen(0, '127.0.0.1');
  });
  after(() => api.close());

  test('every route but /ping needs it', async () => {
    assert.equal((await getJson(`${url}/ping`)).status, 200);
    for (const path of ['/v1/graph', '/v1/graph/tools']) {
      const refused = await getJson(`${url}${path}`);
      assert.equal(refused.status, 401, path);
      assert.equal(refused.body.error.code, 'unauthorized');
      assert.match(refused.headers.get('www-authenticate') ?? '', /^Bearer/);
      assert.equal((await getJson(`${url}${path}`, { authorization: 'Bearer wrong' })).status, 401);
      assert.equal((await getJson(`${url}${path}`, { authorization: 'Bearer s3cret' })).status, 200);
    }
    const invoke = await postJson(`${url}/v1/graph/invoke`, { messages: [userText('hello')] });
    assert.equal(invoke.status, 401);
    assert.equal((await postJson(`${url}/v1/graph/invoke`, { messages: [userText('hello')] }, { authorization: 'Bearer s3cret' })).status, 200);
    assert.equal((await postStream(url, { messages: [userText('hello')] })).status, 401);
  });

  test('WebSocket takes it as a header or as ?token=', async () => {
    await assert.rejects(WsSession.open(url), (error: any) => error.status === 401);
    await assert.rejects(WsSession.open(url, { query: '?token=wrong' }), (error: any) => error.status === 401);
    for (const ws of [await WsSession.open(url, { token: 's3cret' }), await WsSession.open(url, { query: '?token=s3cret' })]) {
      const chunks = await ws.request('t', { messages: [userText('hello')] });
      assert.equal(chunks.at(-1).data.status, 'completed');
      await ws.close();
    }
  });
});
