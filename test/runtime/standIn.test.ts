/**
 * The stand-in of the real 10xGraph server (test/support/realServer.ts) against the wire schemas
 * (test/fixtures/wire, test/support/wireContract.ts): every answer it gives, on every route, over
 * HTTP, the NDJSON stream and the WebSocket, matches its schema; and the schemas refuse wrong shapes.
 * Raw fetch and `ws` only, no client library.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import WebSocket from 'ws';
import { startRealServer, type RealServer } from '../support/realServer';
import { assertWire, checkWire, WIRE_SCHEMA_NAMES } from '../support/wireContract';
import { poll } from '../support/poll';

const TOKEN = 'stand-in-s3cret';

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** Checked against its schema before it is read. */
  json: any;
}

/** One HTTP call; `body` is sent as JSON when given. */
async function call(server: RealServer, method: string, path: string, body?: unknown, token: string | null = TOKEN): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const res = await fetch(server.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** Asserts an error envelope: its status, code and schema. */
function assertError(answer: Answer, status: number, code: string): void {
  assert.equal(answer.status, status, answer.text);
  assertWire('error', answer.json);
  assert.equal(answer.json.error.code, code);
  assert.equal(answer.json.metadata.message, answer.json.error.message);
}

function userText(text: string, messageId: string | number = '0') {
  return { role: 'user', message_id: messageId, content: [{ type: 'text', text }] };
}

/** The tool message a client sends back for a remote call. */
function toolResult(callId: string, output: unknown, failed = false) {
  return { role: 'tool', message_id: '0', content: [{ type: 'tool_result', call_id: callId, output, is_error: failed, status: failed ? 'failed' : 'completed' }] };
}

function textOf(message: { content: Array<{ type: string; text?: string }> }): string {
  return message.content
    .filter((b) => b.type === 'text')
    .map((b) => b.text)
    .join('');
}

/** The remote_tool_call block of the last message (the ToolNode's placeholder). */
function placeholderCall(messages: any[]): { id: string; name: string } {
  const last = messages[messages.length - 1];
  assert.equal(last.role, 'tool');
  assert.deepEqual(last.metadata, { is_remote: true });
  assert.equal(last.content[0].type, 'remote_tool_call');
  return last.content[0];
}

/** The chunks of an NDJSON body, each checked against the stream-chunk schema. */
function streamChunks(answer: Answer): any[] {
  assert.equal(answer.status, 200);
  assert.match(answer.headers.get('content-type') ?? '', /^text\/event-stream/);
  assert.ok(answer.text.endsWith('\n'), 'every chunk ends its line');
  const chunks = answer.text
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line));
  for (const chunk of chunks) assertWire('stream-chunk', chunk);
  return chunks;
}

/** The frames of a WebSocket, read in order. */
class Frames {
  private readonly queue: string[] = [];
  private readonly waiting: Array<(text: string) => void> = [];

  constructor(ws: WebSocket) {
    ws.on('message', (data: Buffer) => {
      const text = data.toString('utf8');
      const wake = this.waiting.shift();
      if (wake) wake(text);
      else this.queue.push(text);
    });
  }

  next(): Promise<string> {
    const text = this.queue.shift();
    return text !== undefined ? Promise.resolve(text) : new Promise((resolve) => this.waiting.push(resolve));
  }

  /** The frames up to the done frame (checked against ws-done), every other one checked against stream-chunk. */
  async run(): Promise<any[]> {
    const chunks: any[] = [];
    for (;;) {
      const text = await this.next();
      const frame = JSON.parse(text);
      if (frame.event === 'updates' && frame.data?.status === 'done') {
        assertWire('ws-done', frame);
        assert.ok(!text.endsWith('\n'), 'the done frame is sent as is');
        return chunks;
      }
      assertWire('stream-chunk', frame);
      assert.ok(text.endsWith('\n'), 'a relayed stream chunk keeps its newline');
      chunks.push(frame);
    }
  }
}

async function openSocket(server: RealServer, path: string, protocols: string[]): Promise<{ ws: WebSocket; frames: Frames }> {
  const ws = new WebSocket(server.url.replace(/^http/, 'ws') + path, protocols);
  const frames = new Frames(ws);
  await once(ws, 'open');
  return { ws, frames };
}

describe('the stand-in of the real server', () => {
  let server: RealServer;
  let slow: RealServer;

  before(async () => {
    server = await startRealServer({ token: TOKEN });
    slow = await startRealServer({ delayMs: 200 });
  });
  after(async () => {
    await server.close();
    await slow.close();
  });

  test('GET /ping, /v1/graph, /v1/graph:StateSchema and /v1/graph/tools', async () => {
    const ping = await call(server, 'GET', '/ping', undefined, null);
    assert.equal(ping.status, 200);
    assertWire('ping', ping.json);
    assert.equal(ping.json.metadata.message, 'OK');
    assert.equal(ping.headers.get('x-request-id'), ping.json.metadata.request_id);
    assert.match(ping.headers.get('content-type') ?? '', /^application\/json/);
    const graph = await call(server, 'GET', '/v1/graph');
    assertWire('graph', graph.json);
    assert.deepEqual(
      graph.json.data.nodes.map((n: { name: string }) => n.name),
      ['agent', 'TOOL'],
    );
    assertWire('state-schema', (await call(server, 'GET', '/v1/graph:StateSchema')).json);
    const tools = await call(server, 'GET', '/v1/graph/tools');
    assertWire('graph-tools', tools.json);
    assert.deepEqual(
      tools.json.data.nodes[0].tools.map((t: { name: string; source: string }) => `${t.name}:${t.source}`),
      ['get_time:local', 'get_user_location:remote', 'read_clipboard:remote'],
    );
  });

  test('invoke: the input is echoed with a new id, then answered; a thread goes on', async () => {
    const first = await call(server, 'POST', '/v1/graph/invoke', { messages: [userText('hello')] });
    assert.equal(first.status, 200);
    assertWire('invoke', first.json);
    const { messages, meta, state, context } = first.json.data;
    assert.notEqual(messages[0].message_id, '0');
    assert.equal(textOf(messages[0]), 'hello');
    assert.equal(textOf(messages[messages.length - 1]), 'No tool needed.');
    assert.equal(meta.is_new_thread, true);
    assert.match(meta.thread_id, /^\d+$/);
    assert.equal(state, null);
    assert.equal(context, null);
    const again = await call(server, 'POST', '/v1/graph/invoke', { messages: [userText('and again')], config: { thread_id: meta.thread_id } });
    assertWire('invoke', again.json);
    assert.deepEqual(again.json.data.meta, { is_new_thread: false, thread_id: meta.thread_id });
  });

  test('invoke: a remote call pauses the thread; its results resume it, once each', async () => {
    const config = { thread_id: 'remote-loop' };
    const paused = await call(server, 'POST', '/v1/graph/invoke', { messages: [userText('Where is my location?')], config });
    assertWire('invoke', paused.json);
    const messages = paused.json.data.messages;
    const askingCall = messages[1];
    assert.equal(askingCall.role, 'assistant');
    assert.equal(askingCall.content[0].type, 'tool_call');
    assert.equal(askingCall.tools_calls[0].function.name, 'get_user_location');
    const placeholder = placeholderCall(messages);
    assert.equal(placeholder.name, 'get_user_location');
    assert.equal(placeholder.id, askingCall.content[0].id);

    const location = { latitude: 48.85, longitude: 2.29 };
    const resumed = await call(server, 'POST', '/v1/graph/invoke', { messages: [toolResult(placeholder.id, location)], config });
    assertWire('invoke', resumed.json);
    const answer = resumed.json.data.messages;
    assert.equal(textOf(answer[answer.length - 1]), `Location: ${JSON.stringify(location)}`);
    assertError(await call(server, 'POST', '/v1/graph/invoke', { messages: [toolResult(placeholder.id, location)], config }), 422, 'HTTPException');

    const clipboard = await call(server, 'POST', '/v1/graph/invoke', { messages: [userText('read my clipboard')], config });
    const clip = placeholderCall(clipboard.json.data.messages);
    const twice = await call(server, 'POST', '/v1/graph/invoke', { messages: [toolResult(clip.id, 'x'), toolResult(clip.id, 'y')], config });
    assertError(twice, 422, 'HTTPException');
    assert.equal(twice.json.error.message, 'Each tool call can be answered only once');
    const failed = await call(server, 'POST', '/v1/graph/invoke', { messages: [toolResult(clip.id, { error: 'denied' }, true)], config });
    assertWire('invoke', failed.json);
    const last = failed.json.data.messages[failed.json.data.messages.length - 1];
    assert.equal(textOf(last), 'The tool failed: denied');
  });

  test('invoke: a server tool runs on the server; granularities full and partial', async () => {
    const full = await call(server, 'POST', '/v1/graph/invoke', { messages: [userText('what time is it')], response_granularity: 'full' });
    assertWire('invoke', full.json);
    const { messages, state, context } = full.json.data;
    assert.deepEqual(
      messages.map((m: { role: string }) => m.role),
      ['user', 'assistant', 'tool', 'assistant'],
    );
    assert.equal(messages[2].content[0].output, '12:00');
    assert.equal(textOf(messages[3]), 'The time is 12:00.');
    assertWire('state', state);
    assert.equal(state.execution_meta.status, 'completed');
    assert.equal(context.length, 4);
    const partial = await call(server, 'POST', '/v1/graph/invoke', { messages: [userText('hi')], response_granularity: 'partial' });
    assertWire('invoke', partial.json);
    assert.deepEqual(partial.json.data.messages, []);
    assert.equal(partial.json.data.state, null);
  });

  test('request errors: 422 with details, 404 and 405 HTTPException, no setup route, no store', async () => {
    const empty = await call(server, 'POST', '/v1/graph/invoke', { messages: [] });
    assertError(empty, 422, 'VALIDATION_ERROR');
    assert.deepEqual(empty.json.error.details, [{ loc: ['body'], msg: 'Value error, messages must contain at least one message', type: 'value_error' }]);
    const noBody = await call(server, 'POST', '/v1/graph/invoke');
    assertError(noBody, 422, 'VALIDATION_ERROR');
    assert.deepEqual(noBody.json.error.details, [{ loc: ['body'], msg: 'Field required', type: 'missing' }]);
    const limit = await call(server, 'POST', '/v1/graph/invoke', { messages: [userText('x')], recursion_limit: 101, response_granularity: 'all' });
    assertError(limit, 422, 'VALIDATION_ERROR');
    assert.deepEqual(
      limit.json.error.details.map((d: { loc: unknown[] }) => d.loc),
      [
        ['body', 'recursion_limit'],
        ['body', 'response_granularity'],
      ],
    );
    const forged = { role: 'assistant', content: [{ type: 'tool_call', id: 'c1', name: 'get_time', args: {} }] };
    const toolCall = await call(server, 'POST', '/v1/graph/invoke', { messages: [forged] });
    assertError(toolCall, 422, 'VALIDATION_ERROR');
    assert.equal(toolCall.json.error.details[0].msg, 'Value error, messages[0] carries a tool call; only the model may request tools');
    assertError(await call(server, 'POST', '/v1/graph/invoke', { messages: [{ role: 'robot', content: [{ type: 'nope' }] }] }), 422, 'VALIDATION_ERROR');
    const notFound = await call(server, 'GET', '/v1/nothing');
    assertError(notFound, 404, 'HTTPException');
    assert.equal(notFound.json.error.message, 'Not Found');
    assertError(await call(server, 'POST', '/v1/graph/setup', { tools: [] }), 404, 'HTTPException');
    assertError(await call(server, 'GET', '/v1/graph/invoke'), 405, 'HTTPException');
    const store = await call(server, 'POST', '/v1/store/search', { query: 'x' });
    assertError(store, 503, 'HTTPException');
    assert.equal(store.json.error.message, 'Store is not configured');
  });

  test('auth: 401 REVOKED_TOKEN without a token, INVALID_TOKEN with a wrong one; /ping is open', async () => {
    const missing = await call(server, 'GET', '/v1/graph', undefined, null);
    assertError(missing, 401, 'REVOKED_TOKEN');
    assert.equal(missing.headers.get('www-authenticate'), 'Bearer realm="auth_required"');
    assertError(await call(server, 'POST', '/v1/graph/invoke', { messages: [userText('x')] }, 'wrong'), 401, 'INVALID_TOKEN');
    assertError(await call(server, 'POST', '/v1/graph/invoke', { messages: [] }, null), 401, 'REVOKED_TOKEN');
    assert.equal((await call(server, 'GET', '/ping', undefined, null)).status, 200);
  });

  test('stream: NDJSON under text/event-stream; word deltas, then the whole message with their id', async () => {
    const chunks = streamChunks(await call(server, 'POST', '/v1/graph/stream', { messages: [userText('what time is it')], config: { thread_id: 'streamed' } }));
    assert.ok(chunks.every((c) => c.event === 'message'));
    assert.equal(chunks[0].metadata.status, 'invoking_graph');
    assert.deepEqual([chunks[0].metadata.thread_id, chunks[0].thread_id], ['streamed', 'streamed']);
    const deltas = chunks.filter((c) => c.message.delta);
    assert.deepEqual(
      deltas.map((c) => textOf(c.message)),
      ['The ', 'time ', 'is ', '12:00.'],
    );
    const whole = chunks[chunks.length - 1].message;
    assert.equal(whole.delta, false);
    assert.equal(textOf(whole), 'The time is 12:00.');
    assert.ok(deltas.every((c) => c.message.message_id === whole.message_id));
    const toolChunk = chunks.find((c) => c.message.role === 'tool');
    assert.equal(toolChunk.data.status, 'tool_result');

    const full = streamChunks(await call(server, 'POST', '/v1/graph/stream', { messages: [userText('location please')], response_granularity: 'full' }));
    assert.ok(full.some((c) => c.event === 'state'));
    assert.ok(full.some((c) => c.event === 'updates' && c.data.reason === 'Remote tool call - graph interrupted'));
    assert.equal(full[full.length - 1].data.status, 'graph_invoked');
    placeholderCall(full.filter((c) => c.event === 'message').map((c) => c.message));

    const forged = streamChunks(await call(server, 'POST', '/v1/graph/stream', { messages: [toolResult('call_none', 1)], config: { thread_id: 'streamed' } }));
    assert.equal(forged.length, 1);
    assert.equal(forged[0].event, 'error');
    assert.equal(forged[0].data.reason, "No remote tool call 'call_none' is waiting for a result");
    assertError(await call(server, 'POST', '/v1/graph/stream', { messages: [] }), 422, 'VALIDATION_ERROR');
  });

  test('WebSocket: the sentinel echoed; fresh, remote call, resume, a done frame after each run', { timeout: 20_000 }, async () => {
    const { ws, frames } = await openSocket(server, '/v1/graph/ws', ['agentflow-bearer', TOKEN]);
    assert.equal(ws.protocol, 'agentflow-bearer');
    ws.send(JSON.stringify({ invoke_type: 'fresh', messages: [userText('my location?')], config: { thread_id: 'new' } }));
    const first = await frames.run();
    const threadId = first[0].metadata.thread_id;
    assert.equal(first[0].metadata.is_new_thread, true);
    const placeholder = placeholderCall(first.map((c) => c.message));
    ws.send(JSON.stringify({ invoke_type: 'resume', tool_result: [toolResult(placeholder.id, 'Paris')], config: { thread_id: threadId } }));
    const second = await frames.run();
    assert.equal(textOf(second[second.length - 1].message), 'Location: "Paris"');

    ws.send(JSON.stringify({ invoke_type: 'fresh', messages: [] }));
    const refused = JSON.parse(await frames.next());
    assertWire('stream-chunk', refused);
    assert.equal(refused.event, 'error');
    assert.match(refused.data.reason, /^Invalid request: 1 validation error for WsGraphInputSchema/);
    // No done frame follows a refused frame: the next frame is the next run's first chunk.
    ws.send(JSON.stringify({ messages: [userText('hello')] }));
    const third = await frames.run();
    assert.equal(third[0].event, 'message');
    ws.send(JSON.stringify({ invoke_type: 'resume', tool_result: [toolResult(placeholder.id, 'again')], config: { thread_id: threadId } }));
    const forged = await frames.run();
    assert.deepEqual(
      forged.map((c) => c.event),
      ['error'],
    );
    ws.close(1000);
    await once(ws, 'close');

    const bearer = await openSocket(server, '/v1/graph/ws', ['10xgraph-bearer', TOKEN]);
    assert.equal(bearer.ws.protocol, '10xgraph-bearer');
    bearer.ws.send('not json');
    const [code] = (await once(bearer.ws, 'close')) as [number];
    assert.equal(code, 1011);
  });

  test('WebSocket: a wrong token is refused before the upgrade; /v1/graph/live is not live here', async () => {
    const refused = new WebSocket(server.url.replace(/^http/, 'ws') + '/v1/graph/ws', ['10xgraph-bearer', 'wrong']);
    const [error] = (await once(refused, 'error')) as [Error];
    assert.match(error.message, /403/);
    const { ws, frames } = await openSocket(server, `/v1/graph/live?token=${TOKEN}`, []);
    const event = JSON.parse(await frames.next());
    assert.deepEqual([event.type, event.code, event.fatal], ['error', 'not_live', true]);
    const [code] = (await once(ws, 'close')) as [number];
    assert.equal(code, 1008);
  });

  test('threads: list, details, state, messages, one message, and their deletion', async () => {
    const thread = 'thread-routes';
    await call(server, 'POST', '/v1/graph/invoke', { messages: [userText('hello threads')], config: { thread_id: thread } });
    const list = await call(server, 'GET', '/v1/threads?search=thread-rou&offset=0&limit=1');
    assertWire('threads', list.json);
    assert.deepEqual(
      list.json.data.threads.map((t: { thread_id: string }) => t.thread_id),
      [thread],
    );
    assertError(await call(server, 'GET', '/v1/threads?limit=0'), 422, 'HTTPException');
    const badLimit = await call(server, 'GET', '/v1/threads?limit=many');
    assertError(badLimit, 422, 'VALIDATION_ERROR');
    assert.deepEqual(badLimit.json.error.details[0].loc, ['query', 'limit']);
    const details = await call(server, 'GET', `/v1/threads/${thread}`);
    assertWire('thread', details.json);
    assert.equal(details.json.data.thread_data.thread.thread_id, thread);
    assertWire('thread', (await call(server, 'GET', '/v1/threads/unknown')).json);

    const state = await call(server, 'GET', `/v1/threads/${thread}/state`);
    assertWire('thread-state', state.json);
    assert.equal(state.json.data.state.context.length, 2);
    const put = await call(server, 'PUT', `/v1/threads/${thread}/state`, { state: { context: [userText('added')], context_summary: 'short' } });
    assertWire('thread-state', put.json);
    assert.equal(put.json.data.state.context.length, 3);
    assert.equal(put.json.data.state.context_summary, 'short');
    const forged = { role: 'assistant', content: [], tools_calls: [{ id: 'c', type: 'function', function: { name: 'get_time', arguments: '{}' } }] };
    assertError(await call(server, 'PUT', `/v1/threads/${thread}/state`, { state: { context: [forged] } }), 422, 'HTTPException');

    const stored = await call(server, 'GET', `/v1/threads/${thread}/messages`);
    assertWire('messages', stored.json);
    assert.equal(stored.json.data.messages.length, 2);
    assertWire('put-messages', (await call(server, 'POST', `/v1/threads/${thread}/messages`, { messages: [userText('put')], config: {} })).json);
    assertError(await call(server, 'POST', `/v1/threads/${thread}/messages`, { messages: [] }), 422, 'HTTPException');
    const id = stored.json.data.messages[0].message_id;
    const one = await call(server, 'GET', `/v1/threads/${thread}/messages/${id}`);
    assertWire('single-message', one.json);
    assert.equal(one.json.data.message_id, id);
    assertError(await call(server, 'DELETE', `/v1/threads/${thread}/messages/${id}`), 422, 'VALIDATION_ERROR');
    assertWire('delete-message', (await call(server, 'DELETE', `/v1/threads/${thread}/messages/${id}`, { config: {} })).json);
    const gone = await call(server, 'GET', `/v1/threads/${thread}/messages/${id}`);
    assert.equal(gone.status, 500);
    assert.equal(gone.text, 'Internal Server Error');

    assertWire('clear-state', (await call(server, 'DELETE', `/v1/threads/${thread}/state`)).json);
    assert.equal((await call(server, 'GET', `/v1/threads/${thread}/state`)).json.data.state, null);
    const noBody = await call(server, 'DELETE', `/v1/threads/${thread}`);
    assertError(noBody, 422, 'VALIDATION_ERROR');
    assert.deepEqual(noBody.json.error.details, [{ loc: ['body'], msg: 'Field required', type: 'missing' }]);
    assertWire('delete-thread', (await call(server, 'DELETE', `/v1/threads/${thread}`, { config: {} })).json);
    assert.equal((await call(server, 'GET', `/v1/threads/${thread}`)).json.data.thread_data.thread, null);
  });

  test('stop mid-run ends the run before its next node; stop and fix answers', { timeout: 20_000 }, async () => {
    const thread = 'stop-me';
    const running = call(slow, 'POST', '/v1/graph/invoke', { messages: [userText('my location')], config: { thread_id: thread } }, null);
    const stopped = await poll('the stop to find the run', async () => {
      const answer = await call(slow, 'POST', '/v1/graph/stop', { thread_id: thread }, null);
      assertWire('stop', answer.json);
      return answer.json.data.running === true && answer.json.data;
    });
    assert.deepEqual(stopped, { ok: true, running: true });
    const result = await running;
    assertWire('invoke', result.json);
    const roles = result.json.data.messages.map((m: { role: string }) => m.role);
    assert.deepEqual(roles, ['user', 'assistant'], 'the ToolNode never ran');
    const state = (await call(slow, 'GET', `/v1/threads/${thread}/state`, undefined, null)).json.data.state;
    assert.deepEqual([state.execution_meta.status, state.execution_meta.interrupt_reason], ['interrupted_after', 'stop_requested']);

    const idle = await call(slow, 'POST', '/v1/graph/stop', { thread_id: thread }, null);
    assertWire('stop', idle.json);
    assert.deepEqual(idle.json.data, { ok: true, running: false, reason: 'not-running' });
    const unknown = await call(slow, 'POST', '/v1/graph/stop', { thread_id: 'never-ran' }, null);
    assert.deepEqual(unknown.json.data, { ok: false, running: false, reason: 'no-state' });
    assertError(await call(slow, 'POST', '/v1/graph/stop', { thread_id: '  ' }, null), 422, 'VALIDATION_ERROR');

    const fixed = await call(slow, 'POST', '/v1/graph/fix', { thread_id: thread }, null);
    assertWire('fix', fixed.json);
    assert.equal(fixed.json.data.removed_count, 1);
    assert.equal(JSON.parse(fixed.json.data.state).context.length, 1);
    const none = await call(slow, 'POST', '/v1/graph/fix', { thread_id: 'never-ran' }, null);
    assertWire('fix', none.json);
    assert.deepEqual([none.json.data.success, none.json.data.state], [false, null]);
  });

  test('the recorded requests show what a client sent', async () => {
    const before = server.requests.length;
    await call(server, 'POST', '/v1/graph/invoke', { messages: [userText('recorded')], config: { thread_id: 'rec' } });
    const [sent] = server.requests.slice(before);
    assert.equal(sent.method, 'POST');
    assert.equal(sent.path, '/v1/graph/invoke');
    assert.deepEqual(sent.body, { messages: [userText('recorded')], config: { thread_id: 'rec' } });
    assert.equal(sent.headers.authorization, `Bearer ${TOKEN}`);
  });
});

describe('the wire schemas', () => {
  const metadata = { request_id: 'r', timestamp: '2025-10-26T01:21:30.488167', message: 'OK' };
  const message = {
    message_id: 'm1',
    role: 'assistant',
    content: [{ type: 'text', text: 'hi', annotations: [] }],
    delta: false,
    tools_calls: null,
    reasoning: null,
    timestamp: 1730000000.1,
    metadata: {},
    usages: null,
    raw: null,
    parsed_content: null,
  };
  const chunk = { event: 'message', message, state: null, data: null, thread_id: 't', run_id: 'r', metadata: { is_new_thread: false, thread_id: 't' }, timestamp: 1730000000.2 };

  test('every schema compiles, and the samples match', () => {
    assert.ok(WIRE_SCHEMA_NAMES.length >= 20);
    for (const name of WIRE_SCHEMA_NAMES) checkWire(name, {});
    assertWire('message', message);
    assertWire('stream-chunk', chunk);
    assertWire('invoke', { data: { messages: [message], state: null, context: null, summary: null, meta: { is_new_thread: true, thread_id: 't' } }, metadata });
  });

  test('they refuse wrong shapes', () => {
    const refused = (name: string, value: unknown, pattern: RegExp) => {
      const errors = checkWire(name, value);
      assert.ok(
        errors.some((e) => pattern.test(e)),
        `${name}: expected an error like ${pattern}, got ${JSON.stringify(errors)}`,
      );
      assert.throws(() => assertWire(name, value), { name: 'AssertionError', message: new RegExp(`wire schema '${name}'`) });
    };
    refused('invoke', { data: { messages: [], state: null, context: null, summary: null }, metadata }, /required property 'meta'/);
    const { event: _event, ...withoutEvent } = chunk;
    refused('stream-chunk', withoutEvent, /required property 'event'/);
    refused('stream-chunk', { ...chunk, metadata: null }, /metadata/);
    refused('error', { error: { code: 'VALIDATION_ERROR', message: 'bad' }, metadata: { ...metadata, message: 'bad' } }, /required property 'details'/);
    refused('error', { error: { code: 'X', message: 'm', details: [{ loc: 'body', msg: 'm', type: 't' }] }, metadata }, /\/loc must be array/);
    refused('message', { ...message, role: 'robot' }, /\/role must be equal to one of the allowed values/);
    refused('message', { ...message, content: [{ type: 'remote_tool_call', id: 'c', name: 'n', args: {}, tool_type: 'local' }] }, /tool_type must be equal to constant/);
    refused('message', { ...message, content: [{ type: 'tool_result', call_id: 'c', output: 1, status: 'completed' }] }, /required property 'is_error'/);
    refused(
      'ws-done',
      { ...chunk, event: 'updates', message: null, metadata: null, thread_id: null, run_id: null, data: { status: 'finished' } },
      /status must be equal to constant/,
    );
    refused('stop', { data: { ok: true }, metadata }, /anyOf/);
    refused('ping', { data: 'pong' }, /required property 'metadata'/);
    assert.throws(() => checkWire('no-such-schema', {}), /no wire schema 'no-such-schema'/);
  });
});
