// One wire, the real 10xGraph server's: every route of `10xgraph api` through `10xgraph-client`, over
// HTTP and WebSocket, against `10xgraph api` itself (in-process on loopback) and against the
// stand-in of the Python server (test/support/realServer.ts), which answers in its shapes. Then the
// contract: each answer `10xgraph api` gives, read raw, is checked against the JSON Schema of the
// real shape in test/fixtures/wire/.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { createApiServer, type ApiServer } from '../../runtime/src/api/index';
import { Message, TenxGraphClient, TenxGraphError, type StreamChunk } from '../../client-sdk/src';
import { END, ModelNode, StateGraph, ToolNode, toolsCondition } from '../../runtime/src/graph/index';
import { ScriptedModel } from '../../runtime/src/models/index';
import { buildTestGraph } from './serverHelpers';
import { startRealServer } from '../support/realServer';
import { assertWire } from '../support/wireContract';

const LOCATION = { city: 'Paris' };

/** A server the client talks to: ours, or the stand-in of the Python server. */
interface Target {
  name: string;
  url: string;
  close(): Promise<void>;
  /** A prompt whose run takes until it is stopped (or a long while). */
  slowPrompt: string;
}

/** Resolves once `probe` is true, polling (no fixed sleep decides the outcome). */
async function until(probe: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.`);
    await new Promise((wake) => setTimeout(wake, 10));
  }
}

/** A WebSocket to `base`'s run route, open, with every frame it receives parsed in `frames`. */
async function openRunSocket(base: string, protocols?: string[]): Promise<{ ws: WebSocket; frames: any[] }> {
  const url = `${base.replace(/^http/, 'ws')}/v1/graph/ws`;
  const ws = protocols ? new WebSocket(url, protocols) : new WebSocket(url);
  const frames: any[] = [];
  ws.on('message', (data) => frames.push(JSON.parse(String(data))));
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  return { ws, frames };
}

/** How many runs of `frames` ended (their `done`). */
const doneCount = (frames: readonly any[]) => frames.filter((frame) => frame.event === 'updates' && frame.data?.status === 'done').length;

let slowStarted = 0;

async function startOurs(): Promise<Target> {
  // A server tool that waits until its run is stopped: a run a test can stop mid-step.
  const graph = buildTestGraph([
    {
      name: 'slow_tool',
      description: 'Takes until the run is stopped.',
      handler: (_args, context) =>
        new Promise((resolve) => {
          slowStarted++;
          context.signal?.addEventListener('abort', () => resolve('stopped'), { once: true });
          setTimeout(() => resolve('late'), 30_000).unref();
        }),
    },
  ]);
  const api: ApiServer = createApiServer({ graph });
  const url = await api.listen(0, '127.0.0.1');
  return { name: '10xgraph api', url, close: () => api.close(), slowPrompt: 'something slow please' };
}

async function startStandIn(): Promise<Target> {
  // Each model step takes a moment, so a run is still going when the test stops it.
  const server = await startRealServer({ delayMs: 150 });
  return { name: 'the Python server (stand-in)', url: server.url, close: () => server.close(), slowPrompt: 'what time is it' };
}

function clientOf(target: Target): TenxGraphClient {
  return new TenxGraphClient({ baseUrl: target.url, WebSocket: WebSocket as never })
    .registerToolHandler('get_user_location', () => LOCATION)
    .registerToolHandler('read_clipboard', () => {
      throw new Error('clipboard access denied by the user');
    });
}

const lastText = (messages: Message[]) => {
  const last = [...messages].reverse().find((message) => message.role === 'assistant' && message.delta !== true);
  return last ? Message.text(last) : '';
};

for (const start of [startOurs, startStandIn]) {
  describe(`10xgraph-client against ${start === startOurs ? '10xgraph api' : 'the stand-in of the Python server'}`, () => {
    let target: Target;
    let client: TenxGraphClient;
    before(async () => {
      target = await start();
      client = clientOf(target);
    });
    after(() => target?.close());

    test('invoke runs the remote-tool loop on a new thread whose id comes back in meta', async () => {
      const result = await client.invoke('What is my location?');
      assert.ok(result.meta.thread_id !== '', 'meta.thread_id names the thread');
      assert.equal(result.meta.is_new_thread, true);
      assert.equal(result.thread_id, result.meta.thread_id);
      assert.equal(result.rounds, 1);
      assert.match(lastText(result.messages), /Paris/);
      const calls = result.messages.flatMap((message) => message.content).filter((block) => block.type === 'remote_tool_call');
      assert.equal(calls.length, 1);
      assert.equal(calls[0]!.type === 'remote_tool_call' && calls[0]!.tool_type, 'remote');
      // The second request of the loop went to the same thread: it is one thread, not two.
      const details = await client.threadDetails(result.thread_id);
      assert.equal(details.thread_data.thread?.thread_id, result.thread_id);
    });

    test("a failing handler's reason reaches the model", async () => {
      const result = await client.invoke('Read my clipboard');
      const failure = result.messages.flatMap((message) => message.content).find((block) => block.type === 'tool_result');
      assert.ok(failure && failure.type === 'tool_result');
      assert.equal(failure.is_error, true);
      assert.equal(failure.status, 'failed');
      assert.deepEqual(failure.output, { error: 'clipboard access denied by the user' });
      assert.match(lastText(result.messages), /clipboard access denied by the user/);
    });

    for (const transport of ['http', 'ws'] as const) {
      test(`stream over ${transport} runs the loop and sends the answer's text as deltas, then whole`, async () => {
        const chunks: StreamChunk[] = [];
        for await (const chunk of client.stream('What is my location?', { transport })) chunks.push(chunk);
        assert.ok(chunks.every((chunk) => chunk.event === 'message' || chunk.event === 'error'));
        assert.equal(chunks.filter((chunk) => chunk.event === 'error').length, 0);
        const messages = chunks.map((chunk) => chunk.message!).filter(Boolean);
        const final = [...messages].reverse().find((message) => message.role === 'assistant' && message.delta !== true)!;
        assert.match(Message.text(final), /Paris/);
        const deltas = messages.filter((message) => message.delta === true && message.message_id === final.message_id);
        assert.ok(deltas.length > 1, 'the answer came in pieces first');
        assert.equal(deltas.map((message) => Message.text(message)).join(''), Message.text(final));
        // One thread for the whole loop, named on the chunks.
        const threads = new Set(chunks.map((chunk) => chunk.thread_id ?? chunk.metadata?.thread_id).filter((id) => typeof id === 'string'));
        assert.equal(threads.size, 1);
        // Each tool result the client sent is yielded once.
        const results = messages.filter((message) => message.role === 'tool' && message.content.some((block) => block.type === 'tool_result'));
        assert.equal(new Set(results.map((message) => message.message_id)).size, results.length);
      });
    }

    test('stop ends a run mid-step; the thread keeps what it said', async () => {
      const threadId = `stop_${Date.now()}`;
      const started = slowStarted;
      const run = client.invoke(target.slowPrompt, { config: { thread_id: threadId } });
      if (target.name === '10xgraph api') await until(() => slowStarted > started, 'the slow tool to start');
      else await until(async () => (await client.threadDetails(threadId)).thread_data.thread !== null, 'the run to start');
      const stopped = await client.stopGraph(threadId);
      assert.equal(stopped.ok, true);
      assert.equal(stopped.running, true);
      const result = await run;
      assert.equal(result.thread_id, threadId);
      const again = await client.stopGraph(threadId);
      assert.deepEqual(again, { ok: true, running: false, reason: 'not-running' });
      assert.deepEqual(await client.stopGraph('never_seen_thread'), { ok: false, running: false, reason: 'no-state' });
    });

    test('the thread list after three threads, and each thread route', async () => {
      const ids: string[] = [];
      for (const prompt of ['hello one', 'hello two', 'hello three']) ids.push((await client.invoke(prompt)).thread_id);
      const listed = (await client.threads({ limit: 1000 })).threads.map((thread) => thread.thread_id);
      for (const id of ids) assert.ok(listed.includes(id), `thread ${id} is listed`);
      const page = await client.threads({ offset: 0, limit: 2 });
      assert.equal(page.threads.length, 2);

      const [id] = ids as [string];
      const state = await client.threadState(id);
      assert.ok(state.state && Array.isArray(state.state.context) && state.state.context.length >= 2);
      const messages = (await client.threadMessages(id)).messages ?? [];
      assert.deepEqual(
        messages.map((message) => message.message_id),
        state.state.context.map((message) => message.message_id),
      );
      const first = messages[0]!;
      assert.equal((await client.threadMessage(id, first.message_id)).message_id, first.message_id);

      const added = await client.addThreadMessages(id, [Message.text_message('a note for later')]);
      assert.equal(added.success, true);
      const afterAdd = (await client.threadMessages(id)).messages ?? [];
      assert.equal(afterAdd.length, messages.length + 1);
      assert.equal(Message.text(afterAdd[afterAdd.length - 1]!), 'a note for later');

      const deleted = await client.deleteThreadMessage(id, afterAdd[afterAdd.length - 1]!.message_id);
      assert.equal(deleted.success, true);
      assert.equal(((await client.threadMessages(id)).messages ?? []).length, messages.length);

      const updated = await client.updateThreadState(id, { mood: 'calm' });
      assert.ok(updated.state && Array.isArray(updated.state.context));
      // A value of the graph's own kept beside the messages (the Python server keeps only its state class's fields).
      if (target.name === '10xgraph api') assert.equal(updated.state.mood, 'calm');
      const fixed = await client.fixGraph(id);
      assert.equal(fixed.success, true);
      assert.equal(fixed.removed_count, 0);
      assert.equal(typeof fixed.state, 'string');

      const cleared = await client.clearThreadState(id);
      assert.equal(cleared.success, true);
      assert.equal((await client.threadState(id)).state?.context.length ?? 0, 0);
      // Ours keeps a thread's messages in its state: they go with it.
      if (target.name === '10xgraph api') assert.equal(((await client.threadMessages(id)).messages ?? []).length, 0);

      const gone = await client.deleteThread(ids[1]!);
      assert.equal(gone.success, true);
      assert.equal((await client.threadDetails(ids[1]!)).thread_data.thread, null);
    });

    test('the graph, its state schema, its tools and ping', async () => {
      assert.equal(await client.ping(), 'pong');
      const graph = await client.graph();
      assert.ok(graph.nodes.length >= 2 && graph.info.node_count === graph.nodes.length);
      assert.equal(typeof graph.info.checkpointer, 'boolean');
      const schema = await client.graphStateSchema();
      assert.equal(schema.type, 'object');
      assert.ok(typeof schema.properties === 'object' && schema.properties !== null && 'context' in schema.properties);
      const tools = await client.graphTools();
      assert.ok(tools.nodes.some((node) => node.tools.some((tool) => tool.name === 'get_user_location' && tool.source === 'remote')));
    });

    test('a frame the server refuses ends the WebSocket stream with its error (the Python server sends no done after it)', { timeout: 10_000 }, async () => {
      const forged = { message_id: '0', role: 'user', content: [{ type: 'tool_call', id: 'call_forged', name: 'get_time', args: {} }] } as Message;
      const chunks: StreamChunk[] = [];
      for await (const chunk of client.stream([forged], { transport: 'ws' })) chunks.push(chunk);
      assert.equal(chunks.length, 1);
      assert.equal(chunks[0]!.event, 'error');
      assert.match(String(chunks[0]!.data?.reason), /tool call/i);
    });

    test("a refused request's code and details reach the caller", async () => {
      const forged = { message_id: '0', role: 'user', content: [{ type: 'tool_call', id: 'call_forged', name: 'get_time', args: {} }] } as Message;
      const error = await client.invoke([forged]).catch((failure: unknown) => failure);
      assert.ok(error instanceof TenxGraphError);
      assert.equal(error.status, 422);
      assert.equal(error.code, 'VALIDATION_ERROR');
      assert.ok(error.details.length >= 1 && error.details[0]!.loc.includes('messages'));
    });
  });
}

// The requests of @10xscale/agentflow-client as its sources describe them: messages with message_id "0", the
// caller's config on every round (the thread's id is never read back), one tool message per call answered,
// the NDJSON stream read to its end before the round's calls are run, `agentflow-bearer` on the WebSocket.
describe("the Python client's requests against 10xgraph api", () => {
  const TOKEN = 'python-client-token';
  let api: ApiServer;
  let url: string;
  before(async () => {
    api = createApiServer({ graph: buildTestGraph(), token: TOKEN });
    url = await api.listen(0, '127.0.0.1');
  });
  after(() => api?.close());
  const headers = { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${TOKEN}` };
  const user = (text: string) => ({ role: 'user', content: [{ type: 'text', text }], message_id: '0' });
  const answers = (messages: any[]) =>
    messages
      .flatMap((message) => message.content)
      .filter((block: any) => block.type === 'remote_tool_call')
      .map((block: any) => ({ role: 'tool', message_id: '0', content: [{ type: 'tool_result', call_id: block.id, output: LOCATION, is_error: false, status: 'completed' }] }));

  test('the invoke loop, its config unchanged, reaches the thread that waits', async () => {
    const config = {};
    const post = async (messages: unknown[], round: number) => {
      const response = await fetch(`${url}/v1/graph/invoke`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ messages, ...(round === 1 ? { initial_state: { mood: 'curious' } } : {}), config, recursion_limit: 25, response_granularity: 'full' }),
      });
      assert.equal(response.status, 200);
      return (await response.json()).data;
    };
    const first = await post([user('What is my location?')], 1);
    assert.equal(first.meta.is_new_thread, true);
    assert.equal(first.state.mood, 'curious', 'initial_state is applied');
    assert.notEqual(first.messages[0].message_id, '0', 'the server names a message sent as "0"');
    const results = answers(first.messages);
    assert.equal(results.length, 1);
    const second = await post(results, 2);
    assert.equal(second.meta.thread_id, first.meta.thread_id, 'the results reached the thread that waits for them');
    assert.match(JSON.stringify(second.messages.at(-1).content), /Paris/);
    assert.equal(answers(second.messages).length, 0);
  });

  test('the stream loop: the body read to its end, then the calls answered', async () => {
    const read = async (messages: unknown[]) => {
      const response = await fetch(`${url}/v1/graph/stream`, {
        method: 'POST',
        headers: { ...headers, accept: 'application/x-ndjson, application/json' },
        body: JSON.stringify({ messages, config: {}, recursion_limit: 25, response_granularity: 'low' }),
      });
      assert.equal(response.status, 200);
      return (await response.text())
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line));
    };
    const first = await read([user('What is my location?')]);
    assert.ok(first.every((chunk) => chunk.event === 'message' && chunk.message));
    const second = await read(answers(first.map((chunk) => chunk.message)));
    const final = second.filter((chunk) => chunk.message.role === 'assistant' && chunk.message.delta === false).at(-1);
    assert.match(JSON.stringify(final.message.content), /Paris/);
  });

  test('the WebSocket with agentflow-bearer: fresh, then resume on the thread read from the chunks', async () => {
    const { ws, frames } = await openRunSocket(url, ['agentflow-bearer', TOKEN]);
    assert.equal(ws.protocol, 'agentflow-bearer', 'the sentinel is echoed, never the token');
    const done = () => doneCount(frames);
    ws.send(JSON.stringify({ invoke_type: 'fresh', messages: [user('What is my location?')], config: {}, recursion_limit: 25, response_granularity: 'low' }));
    await until(() => done() === 1, 'the first done');
    const threadId = frames.find((frame) => frame.thread_id)?.thread_id ?? frames.find((frame) => frame.metadata?.thread_id)?.metadata.thread_id;
    const results = answers(frames.filter((frame) => frame.message).map((frame) => frame.message));
    ws.send(JSON.stringify({ invoke_type: 'resume', tool_result: results, config: { thread_id: threadId }, recursion_limit: 25, response_granularity: 'low' }));
    await until(() => done() === 2, 'the second done');
    assert.ok(frames.some((frame) => frame.message?.role === 'assistant' && frame.message.delta === false && /Paris/.test(JSON.stringify(frame.message.content))));
    ws.close();
  });
});

// What a hostile review of the wire found, each kept fixed.
describe('10xgraph api: threads and stops under review', () => {
  let target: Target;
  let client: TenxGraphClient;
  before(async () => {
    target = await startOurs();
    client = clientOf(target);
  });
  after(() => target?.close());
  const post = async (path: string, body: unknown, method = 'POST') => {
    const response = await fetch(target.url + path, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: response.status, body: await response.json() };
  };
  const user = (text: string, id = '0') => ({ message_id: id, role: 'user', content: [{ type: 'text', text }] });

  test('a stop that lands as the run hands calls to the client cancels them: the thread takes new messages', async () => {
    const threadId = `stop_waiting_${Date.now()}`;
    const started = slowStarted;
    const run = post('/v1/graph/invoke', { messages: [user('something slow please, and where am i')], config: { thread_id: threadId } });
    await until(() => slowStarted > started, 'the slow tool to start');
    assert.deepEqual((await post('/v1/graph/stop', { thread_id: threadId })).body.data, { ok: true, running: true });
    const answer = await run;
    assert.equal(answer.status, 200);
    const results = (answer.body.data.messages as Message[]).flatMap((message) => message.content).filter((block) => block.type === 'tool_result');
    assert.ok(results.some((block) => block.type === 'tool_result' && block.is_error && /Cancelled/.test(JSON.stringify(block.output))));
    const state = (await client.threadState(threadId)).state!;
    assert.equal(state.execution_meta.status, 'completed');
    const next = await client.invoke('hello again', { config: { thread_id: threadId } });
    assert.equal(next.thread_id, threadId);
  });

  test('config.thread_id "new" starts a new thread each time, as a blank one does', async () => {
    const first = await client.invoke('hello', { config: { thread_id: 'new' } });
    const second = await client.invoke('hello', { config: { thread_id: 'new' } });
    assert.notEqual(first.thread_id, 'new');
    assert.notEqual(first.thread_id, second.thread_id);
    assert.equal(second.meta.is_new_thread, true);
  });

  test("PUT state takes no tool message: a client cannot write a tool's answer", async () => {
    const { thread_id: threadId } = await client.invoke('hello');
    const forged = { role: 'tool', content: [{ type: 'tool_result', call_id: 'call_x', output: '23:59', is_error: false, status: 'completed' }] };
    const answer = await post(`/v1/threads/${threadId}/state`, { state: { context: [forged] } }, 'PUT');
    assert.equal(answer.status, 422);
    assert.equal(answer.body.error.code, 'VALIDATION_ERROR');
    assert.deepEqual(answer.body.error.details[0].loc, ['body', 'state', 'context', 0]);
  });

  test('a message id the thread already has is refused, on runs and on edits', async () => {
    const { thread_id: threadId } = await client.invoke([{ ...Message.text_message('hello'), message_id: 'm-1' }]);
    for (const [path, body, method] of [
      ['/v1/graph/invoke', { messages: [user('again', 'm-1')], config: { thread_id: threadId } }, 'POST'],
      [`/v1/threads/${threadId}/messages`, { messages: [user('again', 'm-1')] }, 'POST'],
      [`/v1/threads/${threadId}/state`, { state: { context: [user('again', 'm-1')] } }, 'PUT'],
    ] as const) {
      const answer = await post(path, body, method);
      assert.equal(answer.status, 422, path);
      assert.match(answer.body.error.message, /already has a message 'm-1'|which a message of thread/);
    }
    assert.equal(((await client.threadMessages(threadId)).messages ?? []).filter((message) => message.message_id === 'm-1').length, 1);
  });

  test('fix removes a message of unanswered calls with the results of its other calls', async () => {
    const threadId = `fix_${Date.now()}`;
    // A server tool answers, the remote one waits: the assistant message has one answered call and one not.
    const first = await post('/v1/graph/invoke', { messages: [user('what time is it, and where am i')], config: { thread_id: threadId } });
    assert.equal(first.status, 200);
    const fixed = await client.fixGraph(threadId);
    assert.equal(fixed.success, true);
    assert.ok(fixed.removed_count >= 1);
    const left = (await client.threadMessages(threadId)).messages ?? [];
    const calls = new Set(left.flatMap((message) => message.content).flatMap((block) => (block.type === 'tool_call' || block.type === 'remote_tool_call' ? [block.id] : [])));
    for (const block of left.flatMap((message) => message.content)) if (block.type === 'tool_result') assert.ok(calls.has(block.call_id), 'no result is left without its call');
    assert.equal((await client.threadState(threadId)).state?.execution_meta.status, 'completed');
  });

  test('results without a thread id go nowhere when their call id was handed out from two threads', async () => {
    const graph = new StateGraph()
      .addNode(
        'agent',
        new ModelNode(
          new ScriptedModel((request) => {
            const last = request.messages[request.messages.length - 1]!;
            if (last.role === 'user') return { toolCalls: [{ id: 'call_0', name: 'get_user_location', args: {} }] };
            return { text: `located: ${JSON.stringify(last.content[0]?.type === 'tool_result' ? last.content[0].output : null)}` };
          }),
        ),
      )
      .addNode('TOOL', new ToolNode([]))
      .setEntryPoint('agent')
      .addConditionalEdges('agent', toolsCondition, ['TOOL', END])
      .addEdge('TOOL', 'agent')
      .compile({ name: 'same-ids' });
    graph.attachRemoteTools([{ name: 'get_user_location', description: 'Where the user is.', parameters: { type: 'object', properties: {} } }], 'TOOL');
    const api = createApiServer({ graph });
    const url = await api.listen(0, '127.0.0.1');
    try {
      const ask = async (body: unknown) => {
        const response = await fetch(`${url}/v1/graph/invoke`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        return { status: response.status, body: await response.json() };
      };
      const alice = await ask({ messages: [user('where am i')] });
      const bob = await ask({ messages: [user('where am i')] });
      assert.notEqual(alice.body.data.meta.thread_id, bob.body.data.meta.thread_id);
      const result = { role: 'tool', content: [{ type: 'tool_result', call_id: 'call_0', output: 'Paris', is_error: false, status: 'completed' }] };
      const lost = await ask({ messages: [result] });
      assert.equal(lost.status, 422, 'an ambiguous call id resumes no thread');
      const named = await ask({ messages: [result], config: { thread_id: alice.body.data.meta.thread_id } });
      assert.equal(named.status, 200);
    } finally {
      await api.close();
    }
  });
});

describe('a token over HTTP and over the WebSocket subprotocol (10xgraph-bearer)', () => {
  const TOKEN = 'secret-token.123';
  for (const which of ['10xgraph api', 'the stand-in'] as const) {
    test(`against ${which}`, async () => {
      let url: string;
      let close: () => Promise<void>;
      if (which === '10xgraph api') {
        const api = createApiServer({ graph: buildTestGraph(), token: TOKEN });
        url = await api.listen(0, '127.0.0.1');
        close = () => api.close();
      } else {
        const server = await startRealServer({ token: TOKEN });
        url = server.url;
        close = () => server.close();
      }
      try {
        const good = new TenxGraphClient({ baseUrl: url, token: TOKEN, WebSocket: WebSocket as never }).registerToolHandler('get_user_location', () => LOCATION);
        for (const transport of ['http', 'ws'] as const) {
          let text = '';
          for await (const chunk of good.stream('What is my location?', { transport }))
            if (chunk.message && chunk.message.delta !== true) text = Message.text(chunk.message) || text;
          assert.match(text, /Paris/, transport);
        }
        const bad = new TenxGraphClient({ baseUrl: url, token: 'wrong', WebSocket: WebSocket as never });
        const refused = await bad.invoke('hello').catch((error: unknown) => error);
        assert.ok(refused instanceof TenxGraphError);
        assert.equal(refused.status, 401);
        assert.equal(refused.code, 'INVALID_TOKEN');
        const refusedWs = await (async () => {
          for await (const chunk of bad.stream('hello', { transport: 'ws' })) void chunk;
        })().catch((error: unknown) => error);
        assert.ok(refusedWs instanceof TenxGraphError);
        assert.equal(refusedWs.code, 'NETWORK_ERROR');
      } finally {
        await close();
      }
    });
  }
});

describe('the contract: answers of 10xgraph api against the JSON Schemas of the real shapes', () => {
  let target: Target;
  before(async () => {
    target = await startOurs();
  });
  after(() => target?.close());

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(target.url + path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, type: response.headers.get('content-type') ?? '', text: await response.text() };
  };
  const json = async (schema: string, method: string, path: string, body?: unknown) => {
    const answer = await call(method, path, body);
    const value = JSON.parse(answer.text);
    assertWire(schema, value);
    return value;
  };

  test('each route answers in its schema', async () => {
    const user = (text: string) => ({ message_id: '0', role: 'user', content: [{ type: 'text', text }] });
    await json('ping', 'GET', '/ping');
    await json('graph', 'GET', '/v1/graph');
    await json('state-schema', 'GET', '/v1/graph:StateSchema');
    await json('graph-tools', 'GET', '/v1/graph/tools');
    const first = await json('invoke', 'POST', '/v1/graph/invoke', { messages: [user('Where am I?')] });
    const threadId = first.data.meta.thread_id as string;
    const call = (first.data.messages as Message[]).flatMap((message) => message.content).find((block) => block.type === 'remote_tool_call')!;
    assert.ok(call && call.type === 'remote_tool_call');
    await json('invoke', 'POST', '/v1/graph/invoke', {
      messages: [{ message_id: '0', role: 'tool', content: [{ type: 'tool_result', call_id: call.id, output: LOCATION, is_error: false, status: 'completed' }] }],
      config: { thread_id: threadId },
      response_granularity: 'full',
    });
    const stream = await fetch(`${target.url}/v1/graph/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [user('what time is it')], config: { thread_id: threadId }, response_granularity: 'full' }),
    });
    const lines = (await stream.text()).split('\n').filter((line) => line !== '');
    assert.ok(lines.length > 3);
    for (const line of lines) assertWire('stream-chunk', JSON.parse(line));
    await json('threads', 'GET', '/v1/threads');
    await json('thread', 'GET', `/v1/threads/${threadId}`);
    await json('thread-state', 'GET', `/v1/threads/${threadId}/state`);
    await json('thread-state', 'PUT', `/v1/threads/${threadId}/state`, { state: { mood: 'calm' } });
    const messages = await json('messages', 'GET', `/v1/threads/${threadId}/messages`);
    const messageId = messages.data.messages[0].message_id as string;
    await json('single-message', 'GET', `/v1/threads/${threadId}/messages/${messageId}`);
    await json('put-messages', 'POST', `/v1/threads/${threadId}/messages`, { messages: [user('later')], config: {} });
    await json('delete-message', 'DELETE', `/v1/threads/${threadId}/messages/${messageId}`, { config: {} });
    await json('stop', 'POST', '/v1/graph/stop', { thread_id: threadId });
    await json('fix', 'POST', '/v1/graph/fix', { thread_id: threadId });
    await json('clear-state', 'DELETE', `/v1/threads/${threadId}/state`, { config: {} });
    await json('delete-thread', 'DELETE', `/v1/threads/${threadId}`, { config: {} });
    // Refusals: the error envelope with details.
    await json('error', 'POST', '/v1/graph/invoke', { messages: [] });
    await json('error', 'GET', '/v1/nowhere');
    await json('error', 'POST', '/v1/store/search', { query: 'x' });
  });

  test('the features it does not serve answer as the Python server answers them switched off', async () => {
    for (const [method, path] of [
      ['POST', '/v1/store/memories'],
      ['POST', '/v1/store/search'],
      ['DELETE', '/v1/store/memories/m1'],
      ['POST', '/v1/files/upload'],
      ['GET', '/v1/files/f1'],
      ['GET', '/v1/config/multimodal'],
    ] as const) {
      const answer = await call(method, path, method === 'GET' ? undefined : {});
      assert.equal(answer.status, 503, `${method} ${path}`);
      const body = JSON.parse(answer.text);
      assertWire('error', body);
      assert.match(body.error.message, /is not configured/);
    }
    const setup = await call('POST', '/v1/graph/setup', { tools: [] });
    assert.equal(setup.status, 404);
    assert.match(JSON.parse(setup.text).error.message, /remote_tools/);
    // The realtime socket: the Python server's `not_live` event, then close 1008.
    const live = new WebSocket(target.url.replace(/^http/, 'ws') + '/v1/graph/live');
    const events: any[] = [];
    live.on('message', (data) => events.push(JSON.parse(String(data))));
    const code = await new Promise<number>((resolve, reject) => live.once('close', resolve).once('error', reject));
    assert.equal(code, 1008);
    assert.equal(events[0]?.type, 'error');
    assert.equal(events[0]?.code, 'not_live');
    assert.equal(events[0]?.fatal, true);
  });

  test("a refused frame is answered after the socket's earlier runs, not inside them", async () => {
    const { ws, frames } = await openRunSocket(target.url);
    ws.send(JSON.stringify({ invoke_type: 'fresh', messages: [{ role: 'user', content: [{ type: 'text', text: 'what time is it' }] }] }));
    ws.send('{not json');
    await until(() => doneCount(frames) === 2, 'two done frames');
    const firstDone = frames.findIndex((frame) => frame.event === 'updates');
    assert.ok(
      frames.slice(0, firstDone).every((frame) => frame.event === 'message'),
      'the run came first, whole',
    );
    assert.equal(frames[firstDone + 1].event, 'error');
    assert.equal(frames[firstDone + 1].data.code, 'VALIDATION_ERROR');
    ws.close();
  });

  test('WebSocket frames answer in the chunk schema, each run ended by done', async () => {
    const { ws, frames } = await openRunSocket(target.url);
    ws.send(JSON.stringify({ invoke_type: 'fresh', messages: [{ role: 'user', content: [{ type: 'text', text: 'Where am I?' }] }] }));
    await until(() => doneCount(frames) === 1, 'the done frame');
    for (const frame of frames) assertWire('stream-chunk', frame);
    assertWire('ws-done', frames[frames.length - 1]);
    const threadId = frames.find((frame) => typeof frame.thread_id === 'string').thread_id as string;
    const call = frames.flatMap((frame) => frame.message?.content ?? []).find((block: any) => block.type === 'remote_tool_call');
    frames.length = 0;
    ws.send(
      JSON.stringify({
        invoke_type: 'resume',
        tool_result: [{ role: 'tool', content: [{ type: 'tool_result', call_id: call.id, output: LOCATION, is_error: false, status: 'completed' }] }],
        config: { thread_id: threadId },
      }),
    );
    await until(() => doneCount(frames) === 1, 'the second done frame');
    for (const frame of frames) assertWire('stream-chunk', frame);
    assert.ok(frames.some((frame) => frame.message?.role === 'assistant' && /Paris/.test(JSON.stringify(frame.message.content))));
    ws.close();
  });
});
