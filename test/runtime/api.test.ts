/**
 * `10xgraph api` over real HTTP and WebSocket on loopback: the graph routes, the remote tool
 * cycle through invoke, stream and WebSocket (the real 10xGraph server's wire), and every refusal.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createApiServer, startApiServer, type ApiServer, type RunningApiServer } from '../../runtime/src/api/index';
import { ModelNode, StateGraph, ToolNode, END, toolsCondition } from '../../runtime/src/graph/index';
import { ScriptedModel } from '../../runtime/src/models/index';
import {
  ROOT,
  QUICKSTART_CONFIG,
  WsSession,
  buildTestGraph,
  getJson,
  isDone,
  joinLastText,
  latch,
  collectMessages,
  postJson,
  postStream,
  findRemoteCalls,
  resultsFor,
  userText,
} from './serverHelpers';

const quiet = { info() {}, warn() {}, error() {} };
const VERSION = JSON.parse(readFileSync(resolve(ROOT, 'runtime', 'package.json'), 'utf8')).version as string;
const CHUNK_KEYS = ['data', 'event', 'message', 'metadata', 'run_id', 'state', 'thread_id', 'timestamp'];

/** The events of chunks, a `message` chunk shown with its role (and `+delta` for a text piece). */
function describeEvents(chunks: readonly any[]): string[] {
  return chunks.map((chunk) => (chunk.event === 'message' ? `message:${chunk.message.role}${chunk.message.delta ? '+delta' : ''}` : isDone(chunk) ? 'done' : chunk.event));
}

/** The events with runs of deltas folded into one, so a test does not depend on how the model cut its text. */
function describeFoldedEvents(chunks: readonly any[]): string[] {
  return describeEvents(chunks).filter((event, i, all) => !(event.endsWith('+delta') && all[i - 1] === event));
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
    assert.equal(graph.body.data.info.checkpointer, true);
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
    assert.equal(missing.body.error.code, 'NOT_FOUND');
    assert.deepEqual(missing.body.error.details, []);
    const wrong = await postJson(`${server.url}/v1/graph`, {});
    assert.equal(wrong.status, 405);
    assert.equal(wrong.body.error.code, 'METHOD_NOT_ALLOWED');
    assert.equal(wrong.headers.get('allow'), 'GET');
    const get = await getJson(`${server.url}/v1/graph/invoke`);
    assert.equal(get.status, 405);
    const plain = await getJson(`${server.url}/v1/graph/ws`);
    assert.equal(plain.status, 426);
    assert.equal(plain.body.error.code, 'UPGRADE_REQUIRED');
  });

  test('invoke: the request echoed, the remote call as a remote_tool_call block, then its result and the answer', async () => {
    const first = await postJson(`${server.url}/v1/graph/invoke`, { messages: [userText('Where am I right now?')] });
    assert.equal(first.status, 200);
    const data = first.body.data;
    assert.deepEqual(Object.keys(data).sort(), ['context', 'messages', 'meta', 'state', 'summary']);
    assert.equal(data.meta.is_new_thread, true);
    assert.equal(typeof data.meta.thread_id, 'string');
    assert.equal(data.state, null, 'state only at full granularity');
    assert.deepEqual(
      data.messages.map((m: any) => m.role),
      ['user', 'assistant', 'tool'],
    );
    assert.equal(typeof data.messages[0].message_id, 'string');
    assert.notEqual(data.messages[0].message_id, '', 'the server assigns the id of a message sent without one');
    const [call] = findRemoteCalls(data.messages);
    assert.ok(call);
    const asked = data.messages[1];
    assert.deepEqual(asked.content, [{ type: 'tool_call', id: call.id, name: 'get_user_location', args: {} }]);
    assert.deepEqual(asked.tools_calls, [{ id: call.id, type: 'function', function: { name: 'get_user_location', arguments: '{}' } }]);
    assert.equal(asked.metadata.node_name, 'agent');
    assert.deepEqual(data.messages[2].content, [{ type: 'remote_tool_call', id: call.id, name: 'get_user_location', args: {}, tool_type: 'remote' }]);
    assert.deepEqual(data.messages[2].metadata, { is_remote: true, node_name: 'TOOL' });

    const second = await postJson(`${server.url}/v1/graph/invoke`, {
      messages: [resultsFor([call], () => ({ latitude: 59.91, longitude: 10.75, city: 'Oslo' }))],
      config: { thread_id: data.meta.thread_id },
    });
    assert.equal(second.status, 200);
    assert.deepEqual(second.body.data.meta, { is_new_thread: false, thread_id: data.meta.thread_id });
    assert.deepEqual(findRemoteCalls(second.body.data.messages), []);
    assert.deepEqual(
      second.body.data.messages.map((m: any) => m.role),
      ['tool', 'assistant'],
    );
    assert.match(joinLastText(second.body.data.messages), /get_user_location: \{"latitude":59\.91,"longitude":10\.75,"city":"Oslo"\}/);
  });

  test('stream: NDJSON chunks in order, every key present, through the remote call and back; the text comes as deltas, then whole', async () => {
    const first = await postStream(server.url, { messages: [userText('What is on my clipboard?')] });
    assert.equal(first.status, 200);
    assert.match(first.contentType ?? '', /^text\/event-stream/);
    assert.deepEqual(describeEvents(first.chunks), ['message:user', 'message:assistant', 'message:tool']);
    for (const chunk of first.chunks) assert.deepEqual(Object.keys(chunk).sort(), CHUNK_KEYS);
    const threadId = first.chunks[0].thread_id;
    assert.equal(typeof threadId, 'string');
    assert.equal(typeof first.chunks[0].run_id, 'string');
    assert.ok(first.chunks.every((c) => c.thread_id === threadId && c.metadata.thread_id === threadId && c.metadata.is_new_thread === true));
    const calls = findRemoteCalls(collectMessages(first.chunks));
    assert.deepEqual(
      calls.map((c) => c.name),
      ['read_clipboard'],
    );

    const second = await postStream(server.url, { messages: [resultsFor(calls, () => 'copied text')], config: { thread_id: threadId } });
    assert.equal(second.status, 200);
    assert.deepEqual(describeFoldedEvents(second.chunks), ['message:tool', 'message:assistant+delta', 'message:assistant']);
    assert.ok(second.chunks.every((c) => c.thread_id === threadId && c.metadata.is_new_thread === false));
    const answer = second.chunks.at(-1).message;
    assert.match(joinLastText([answer]), /read_clipboard: copied text/);
    const deltas = second.chunks.filter((c) => c.message?.delta === true).map((c) => c.message);
    assert.ok(deltas.every((d) => d.message_id === answer.message_id));
    assert.equal(deltas.map((d) => joinLastText([d])).join(''), joinLastText([answer]));
  });

  test('WebSocket: each run ends with a done; runs on one socket go one after another; the socket stays open between runs', async () => {
    const ws = await WsSession.open(server.url);
    try {
      const first = await ws.run({ invoke_type: 'fresh', messages: [userText('search for invoices')] });
      assert.deepEqual(describeEvents(first), ['message:user', 'message:assistant', 'message:tool', 'done']);
      assert.deepEqual(
        { ...first.at(-1), timestamp: 0 },
        { event: 'updates', data: { status: 'done' }, message: null, state: null, thread_id: null, run_id: null, metadata: null, timestamp: 0 },
      );
      const calls = findRemoteCalls(collectMessages(first));
      assert.deepEqual(calls[0]!.args, { query: 'invoices' });
      const threadId = first[0].thread_id;
      const second = await ws.run({ invoke_type: 'resume', tool_result: [resultsFor(calls, () => [{ id: 7, title: 'Invoice 7' }])], config: { thread_id: threadId } });
      assert.deepEqual(describeFoldedEvents(second), ['message:tool', 'message:assistant+delta', 'message:assistant', 'done']);
      assert.match(joinLastText(collectMessages(second)), /search_local_database: \[\{"id":7,"title":"Invoice 7"\}\]/);

      // Two frames at once: the second run starts after the first one's done, never interleaved.
      ws.send({ invoke_type: 'fresh', messages: [userText('hello')], config: { thread_id: threadId } });
      ws.send({ invoke_type: 'fresh', messages: [userText('where am i')] });
      const third = await ws.next();
      const fourth = await ws.next();
      assert.ok(third.slice(0, -1).every((c) => c.thread_id === threadId));
      assert.match(joinLastText(collectMessages(third)), /^I can tell the time/);
      assert.ok(fourth.slice(0, -1).every((c) => c.thread_id !== threadId && c.thread_id === fourth[0].thread_id));
      assert.deepEqual(
        findRemoteCalls(collectMessages(fourth)).map((c) => c.name),
        ['get_user_location'],
      );
      assert.ok(third[0].timestamp <= fourth[0].timestamp);
    } finally {
      await ws.close();
    }
  });

  test('two remote calls in one turn need both results', async () => {
    const first = await postJson(`${server.url}/v1/graph/invoke`, { messages: [userText("Where am I, and what's on my clipboard?")] });
    const threadId = first.body.data.meta.thread_id;
    const calls = findRemoteCalls(first.body.data.messages);
    assert.deepEqual(calls.map((c) => c.name).sort(), ['get_user_location', 'read_clipboard']);
    const location = calls.find((c) => c.name === 'get_user_location')!;
    const clipboard = calls.find((c) => c.name === 'read_clipboard')!;

    const partial = await postJson(`${server.url}/v1/graph/invoke`, { messages: [resultsFor([location], () => 'Oslo')], config: { thread_id: threadId } });
    assert.equal(partial.status, 422);
    assert.equal(partial.body.error.code, 'MISSING_TOOL_RESULTS');
    assert.match(partial.body.error.message, new RegExp(clipboard.id));
    assert.deepEqual(partial.body.error.details[0].loc, ['body', 'messages']);

    const both = await postJson(`${server.url}/v1/graph/invoke`, {
      messages: [resultsFor([location], () => 'Oslo'), resultsFor([clipboard], () => 'secret note')],
      config: { thread_id: threadId },
    });
    assert.equal(both.status, 200);
    const answer = joinLastText(both.body.data.messages);
    assert.match(answer, /get_user_location: Oslo/);
    assert.match(answer, /read_clipboard: secret note/);
  });

  test('a server tool and a remote tool in one turn', async () => {
    const first = await postJson(`${server.url}/v1/graph/invoke`, { messages: [userText('What time is it, and where am I?')] });
    const data = first.body.data;
    const calls = findRemoteCalls(data.messages);
    assert.deepEqual(
      calls.map((c) => c.name),
      ['get_user_location'],
    );
    const serverResults = data.messages.flatMap((m: any) => m.content).filter((b: any) => b.type === 'tool_result');
    assert.equal(serverResults.length, 1);
    assert.equal(serverResults[0].status, 'completed');
    assert.equal(serverResults[0].is_error, false);
    assert.match(serverResults[0].output, /^\d{4}-\d\d-\d\dT/);
    const second = await postJson(`${server.url}/v1/graph/invoke`, { messages: [resultsFor(calls, () => 'Oslo')], config: { thread_id: data.meta.thread_id } });
    const answer = joinLastText(second.body.data.messages);
    assert.match(answer, /get_time: \d{4}-/);
    assert.match(answer, /get_user_location: Oslo/);
  });

  test('results for an unknown or an already answered call id are 422 UNKNOWN_CALL_ID', async () => {
    const stray = await postJson(`${server.url}/v1/graph/invoke`, {
      messages: [{ role: 'tool', content: [{ type: 'tool_result', call_id: 'call_nope', output: 1, is_error: false, status: 'completed' }] }],
    });
    assert.equal(stray.status, 422);
    assert.equal(stray.body.error.code, 'UNKNOWN_CALL_ID');
    assert.match(stray.body.error.message, /call_nope/);

    const first = await postJson(`${server.url}/v1/graph/invoke`, { messages: [userText('where am I')] });
    const threadId = first.body.data.meta.thread_id;
    const calls = findRemoteCalls(first.body.data.messages);
    const answer = await postJson(`${server.url}/v1/graph/invoke`, { messages: [resultsFor(calls, () => 'Oslo')], config: { thread_id: threadId } });
    assert.equal(answer.status, 200);
    const again = await postJson(`${server.url}/v1/graph/invoke`, { messages: [resultsFor(calls, () => 'Oslo')], config: { thread_id: threadId } });
    assert.equal(again.status, 422);
    assert.equal(again.body.error.code, 'UNKNOWN_CALL_ID');
    // The refused request changed nothing: the thread still takes a new question.
    const next = await postStream(server.url, { messages: [userText('where am I')], config: { thread_id: threadId } });
    assert.equal(findRemoteCalls(collectMessages(next.chunks)).length, 1);
  });

  test('bad bodies: 422 for invalid JSON and for a field (named, with details), 415 not JSON, 413 too large', async () => {
    const url = `${server.url}/v1/graph/invoke`;
    const broken = await postJson(url, '{"messages": [');
    assert.equal(broken.status, 422);
    assert.equal(broken.body.error.code, 'VALIDATION_ERROR');
    assert.equal(broken.body.error.details[0].type, 'json_invalid');

    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' });
    assert.equal(response.status, 415);
    assert.equal((await response.json()).error.code, 'UNSUPPORTED_MEDIA_TYPE');

    const cases: Array<[unknown, string, Array<string | number>]> = [
      [{ messages: 'hello' }, "'messages'", ['body', 'messages']],
      [{ messages: [] }, "'messages'", ['body', 'messages']],
      [{ messages: [{ role: 'robot', content: [] }] }, "'messages[0].role'", ['body', 'messages', 0, 'role']],
      [{ messages: [{ role: 'user', content: 42 }] }, "'messages[0].content'", ['body', 'messages', 0, 'content']],
      [
        { messages: [userText('hi'), { role: 'tool', content: [{ type: 'tool_result', call_id: 42, status: 'completed' }] }] },
        "'messages[1].content[0].call_id'",
        ['body', 'messages', 1, 'content', 0, 'call_id'],
      ],
      [
        { messages: [{ role: 'tool', content: [{ type: 'tool_result', call_id: 'c', status: 'done' }] }] },
        "'messages[0].content[0].status'",
        ['body', 'messages', 0, 'content', 0, 'status'],
      ],
      [{ messages: [{ role: 'user', content: [{ type: 'image' }] }] }, "'messages[0].content[0].type'", ['body', 'messages', 0, 'content', 0, 'type']],
      [{ messages: [userText('hi')], config: { thread_id: 'a b' } }, "'config.thread_id'", ['body', 'config', 'thread_id']],
      [{ messages: [userText('hi')], recursion_limit: '5' }, "'recursion_limit'", ['body', 'recursion_limit']],
      [{ messages: [userText('hi')], recursion_limit: 0 }, "'recursion_limit'", ['body', 'recursion_limit']],
      [{ messages: [userText('hi')], response_granularity: 'most' }, "'response_granularity'", ['body', 'response_granularity']],
    ];
    for (const [body, field, loc] of cases) {
      const answer = await postJson(url, body);
      assert.equal(answer.status, 422, JSON.stringify(body));
      assert.equal(answer.body.error.code, 'VALIDATION_ERROR');
      assert.ok(answer.body.error.message.includes(field), `${answer.body.error.message} names ${field}`);
      assert.deepEqual(answer.body.error.details[0].loc, loc, JSON.stringify(body));
    }

    const big = await postJson(url, { messages: [userText('x'.repeat(1024 * 1024 + 10))] });
    assert.equal(big.status, 413);
    assert.equal(big.body.error.code, 'REQUEST_TOO_LARGE');
    assert.equal((await getJson(`${server.url}/ping`)).status, 200);
  });

  test('stream refusals are plain JSON errors with their status', async () => {
    const answer = await postStream(server.url, { messages: [{ role: 'tool', content: [{ type: 'tool_result', call_id: 'call_nope', output: 1, status: 'completed' }] }] });
    assert.equal(answer.status, 422);
    assert.match(answer.contentType ?? '', /^application\/json/);
    assert.equal(answer.chunks[0].error.code, 'UNKNOWN_CALL_ID');
  });

  test('WebSocket: a bad frame gets an error chunk and a done, and the socket stays open', async () => {
    const ws = await WsSession.open(server.url);
    try {
      ws.sendRaw('not json');
      const bad = await ws.next();
      assert.deepEqual(describeEvents(bad), ['error', 'done']);
      assert.equal(bad[0].data.code, 'VALIDATION_ERROR');
      assert.match(bad[0].data.reason, /^Invalid request: /);
      for (const [frame, reason] of [
        [{ invoke_type: 'fresh', messages: [{ role: 'robot', content: [] }] }, /messages\[0\]\.role/],
        [{ invoke_type: 'resume', tool_result: [resultsFor([{ id: 'c1', name: 'x', args: {} }], () => 1)] }, /config\.thread_id/],
        [{ invoke_type: 'replay', messages: [userText('hello')] }, /invoke_type must be "fresh" or "resume"/],
      ] as const) {
        const wrong = await ws.run(frame);
        assert.deepEqual(describeEvents(wrong), ['error', 'done'], JSON.stringify(frame));
        assert.equal(wrong[0].data.code, 'VALIDATION_ERROR');
        assert.match(wrong[0].data.reason, reason);
      }
      const good = await ws.run({ invoke_type: 'fresh', messages: [userText('hello')] });
      assert.match(joinLastText(collectMessages(good)), /^I can tell the time/);
      assert.ok(isDone(good.at(-1)));
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

  test('refuses a second run with 409 THREAD_BUSY over HTTP, stream and WebSocket, and is free again after', async () => {
    const threadId = 'busy-thread';
    const running = postJson(`${url}/v1/graph/invoke`, { messages: [userText('run the slow tool')], config: { thread_id: threadId } });
    await entered.promise;
    const second = await postJson(`${url}/v1/graph/invoke`, { messages: [userText('hello')], config: { thread_id: threadId } });
    assert.equal(second.status, 409);
    assert.equal(second.body.error.code, 'THREAD_BUSY');
    assert.match(second.body.error.message, /busy-thread/);
    const streamed = await postStream(url, { messages: [userText('hello')], config: { thread_id: threadId } });
    assert.equal(streamed.status, 409);
    assert.equal(streamed.chunks[0].error.code, 'THREAD_BUSY');
    const ws = await WsSession.open(url);
    const viaWs = await ws.run({ invoke_type: 'fresh', messages: [userText('hello')], config: { thread_id: threadId } });
    assert.deepEqual(describeEvents(viaWs), ['error', 'done']);
    assert.equal(viaWs[0].data.code, 'THREAD_BUSY');
    await ws.close();
    // Another thread is not held up.
    const other = await postJson(`${url}/v1/graph/invoke`, { messages: [userText('hello')] });
    assert.equal(other.status, 200);

    gate.release();
    const first = await running;
    assert.equal(first.status, 200);
    assert.match(joinLastText(first.body.data.messages), /slow_tool: finally/);
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

  test('ends the run with GRAPH_RECURSION_LIMIT_EXCEEDED (400 on invoke, an error chunk on stream) and leaves the thread usable', async () => {
    const answer = await postJson(`${url}/v1/graph/invoke`, { messages: [userText('go')], config: { thread_id: 'loop' }, recursion_limit: 5 });
    assert.equal(answer.status, 400);
    assert.equal(answer.body.error.code, 'GRAPH_RECURSION_LIMIT_EXCEEDED');
    assert.match(answer.body.error.message, /recursion_limit 5/);
    const record = (await api.store.load('loop'))!;
    assert.equal(record.running, false);
    assert.equal(record.status, 'completed');
    assert.equal(record.checkpoint.state.messages.length, 6);
    assert.equal(record.lastError?.code, 'GRAPH_RECURSION_LIMIT_EXCEEDED');

    const streamed = await postStream(url, { messages: [userText('again')], config: { thread_id: 'loop' }, recursion_limit: 3 });
    assert.equal(streamed.status, 200);
    const error = streamed.chunks.at(-1);
    assert.equal(error.event, 'error');
    assert.equal(error.data.code, 'GRAPH_RECURSION_LIMIT_EXCEEDED');
    assert.match(error.data.reason, /recursion_limit 3/);
    assert.equal(error.thread_id, 'loop');
    assert.equal((await api.store.load('loop'))!.checkpoint.state.messages.length, 10);
  });

  test('a limit of one step is said in the singular', async () => {
    const answer = await postJson(`${url}/v1/graph/invoke`, { messages: [userText('go')], config: { thread_id: 'one-step' }, recursion_limit: 1 });
    assert.equal(answer.body.error.code, 'GRAPH_RECURSION_LIMIT_EXCEEDED');
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
      assert.equal(refused.body.error.code, 'INVALID_TOKEN');
      assert.match(refused.headers.get('www-authenticate') ?? '', /^Bearer/);
      assert.equal((await getJson(`${url}${path}`, { authorization: 'Bearer wrong' })).status, 401);
      assert.equal((await getJson(`${url}${path}`, { authorization: 'Bearer s3cret' })).status, 200);
    }
    const invoke = await postJson(`${url}/v1/graph/invoke`, { messages: [userText('hello')] });
    assert.equal(invoke.status, 401);
    assert.equal((await postJson(`${url}/v1/graph/invoke`, { messages: [userText('hello')] }, { authorization: 'Bearer s3cret' })).status, 200);
    assert.equal((await postStream(url, { messages: [userText('hello')] })).status, 401);
  });

  test('WebSocket takes it as a header, as ?token= or after the 10xgraph-bearer (or agentflow-bearer) subprotocol', async () => {
    await assert.rejects(WsSession.open(url), (error: any) => error.status === 401);
    await assert.rejects(WsSession.open(url, { query: '?token=wrong' }), (error: any) => error.status === 401);
    await assert.rejects(WsSession.open(url, { protocols: ['10xgraph-bearer', 'wrong'] }), (error: any) => error.status === 401);
    const sessions = [
      await WsSession.open(url, { token: 's3cret' }),
      await WsSession.open(url, { query: '?token=s3cret' }),
      await WsSession.open(url, { protocols: ['10xgraph-bearer', 's3cret'] }),
      await WsSession.open(url, { protocols: ['agentflow-bearer', 's3cret'] }),
    ];
    assert.deepEqual(
      sessions.map((ws) => ws.socket.protocol),
      ['', '', '10xgraph-bearer', 'agentflow-bearer'],
    );
    for (const ws of sessions) {
      const chunks = await ws.run({ invoke_type: 'fresh', messages: [userText('hello')] });
      assert.equal(joinLastText(collectMessages(chunks)), 'No tool needed.');
      await ws.close();
    }
  });
});
