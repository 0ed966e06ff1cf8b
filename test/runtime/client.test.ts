// TenxGraphClient against the real `10xgraph api` server (started in-process on loopback with the
// quick start's 10xgraph.json): the remote-tool loop through invoke, the NDJSON stream and the
// WebSocket. Needs `npm run build` first: the quick start's graph imports the built `10xgraph`.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import WebSocket from 'ws';
import { startApiServer, type RunningApiServer } from '../../runtime/src/api';
import { Message, TenxGraphClient, TenxGraphError, failureReasonOf, pendingRemoteCalls } from '../../client-sdk/src';
import type { Block, StreamChunk, TenxGraphClientOptions, ToolResultBlock, WebSocketConstructor } from '../../client-sdk/src';

const root = resolve(__dirname, '..', '..');
const quickstartConfig = join(root, 'examples', 'quickstart', '10xgraph.json');
const silent = { info() {}, warn() {}, error() {} };

// The example is loaded by path at run time: it lives outside the test project and imports the
// built `10xgraph/client`, as a user's script would.
interface QuickstartModule {
  runQuickstartClient(url: string, log?: (line: string) => void): Promise<Array<{ prompt: string; threadId: string; answer: string; rounds: number; messages: Message[] }>>;
  DEMO_LOCATION: { latitude: number; longitude: number; label: string };
  DEMO_CLIPBOARD: string;
}
const quickstartPath = join(root, 'examples', 'quickstart', 'client.ts');

const LOCATION = { latitude: 48.8584, longitude: 2.2945, label: 'Champ de Mars' };
const CLIPBOARD = 'clipboard: buy oat milk';

let server: RunningApiServer;
let tempRoot: string;

before(async () => {
  server = await startApiServer({ configPath: quickstartConfig, host: '127.0.0.1', port: 0, db: ':memory:', log: silent });
  // Graphs written for one test live below node_modules, so their `import '10xgraph'` resolves as in a project.
  mkdirSync(join(root, 'node_modules', '.cache'), { recursive: true });
  tempRoot = mkdtempSync(join(root, 'node_modules', '.cache', 'client-test-'));
});

after(async () => {
  await server?.close();
  if (tempRoot) rmSync(tempRoot, { recursive: true, force: true });
});

/** A client with the quick start's handlers (fixed outputs), over `ws` in Node 20. */
function quickClient(options: TenxGraphClientOptions = {}): TenxGraphClient {
  return new TenxGraphClient({ baseUrl: server.url, WebSocket, ...options })
    .registerToolHandler('get_user_location', () => LOCATION)
    .registerToolHandler('read_clipboard', () => CLIPBOARD)
    .registerToolHandler('search_local_database', (args) => ({ query: args.query, matches: [`note about ${String(args.query)}`] }));
}

function blocks(messages: Message[], type: Block['type']): Block[] {
  return messages.flatMap((message) => message.content.filter((block) => block.type === type));
}

function lastAnswer(messages: Message[]): string {
  const last = [...messages].reverse().find((message) => message.role === 'assistant');
  return last ? Message.text(last) : '';
}

async function collect(iterable: AsyncIterable<StreamChunk>): Promise<StreamChunk[]> {
  const out: StreamChunk[] = [];
  for await (const chunk of iterable) out.push(chunk);
  return out;
}

/** The whole messages of a stream's chunks (their text deltas left out). */
function messagesOf(chunks: StreamChunk[]): Message[] {
  return chunks.flatMap((chunk) => (chunk.event === 'message' && chunk.message && chunk.message.delta !== true ? [chunk.message] : []));
}

/** Each chunk as `role:block types` (a run of text deltas as one `delta`), other events by name. */
function shapeOf(chunks: StreamChunk[]): string[] {
  const out: string[] = [];
  for (const chunk of chunks) {
    const shown = !chunk.message ? chunk.event : chunk.message.delta ? 'delta' : `${chunk.message.role}:${chunk.message.content.map((block) => block.type).join(',')}`;
    if (shown !== 'delta' || out.at(-1) !== 'delta') out.push(shown);
  }
  return out;
}

/** A `ws` WebSocket that records every socket opened and every frame sent, for counting runs and sockets. */
function recordingWebSocket(): { WebSocket: WebSocketConstructor; sockets: number; frames: Array<Record<string, any>> } {
  const record = { sockets: 0, frames: [] as Array<Record<string, any>> };
  class Recording extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols);
      record.sockets++;
    }
    override send(data: string): void {
      record.frames.push(JSON.parse(data) as Record<string, any>);
      super.send(data);
    }
  }
  return Object.assign(record, { WebSocket: Recording as unknown as WebSocketConstructor });
}

/** The messages the server keeps for a thread: what really reached it. */
async function storedMessages(threadId: string): Promise<Message[]> {
  const record = await server.api.store.load(threadId);
  assert.ok(record, `thread ${threadId} is stored`);
  return record.checkpoint.state.messages as Message[];
}

/** Waits until `count` calls have arrived, or fails: proves handlers run at the same time. */
function barrier(count: number, timeoutMs = 5000): () => Promise<void> {
  let arrived = 0;
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return async () => {
    arrived++;
    if (arrived === count) open();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`only ${arrived} of ${count} handlers started together`)), timeoutMs);
    });
    try {
      await Promise.race([opened, timeout]);
    } finally {
      clearTimeout(timer);
    }
  };
}

/** Starts a server on a graph written for one test (a module and its 10xgraph.json in a temp folder). */
async function startCustomServer(name: string, graphSource: string, remoteTools: unknown[]): Promise<RunningApiServer> {
  const folder = join(tempRoot, name);
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'graph.ts'), graphSource);
  writeFileSync(join(folder, '10xgraph.json'), JSON.stringify({ agent: 'graph:app', remote_tools: remoteTools }, null, 2));
  return startApiServer({ configPath: join(folder, '10xgraph.json'), host: '127.0.0.1', port: 0, db: ':memory:', log: silent });
}

describe('TenxGraphClient against 10xgraph api', () => {
  test('ping, graph and graphTools read the server', async () => {
    const client = new TenxGraphClient({ baseUrl: server.url });
    assert.equal(await client.ping(), 'pong');
    const graph = await client.graph();
    assert.deepEqual(
      graph.nodes.map((node) => [node.name, node.type]),
      [
        ['agent', 'model_node'],
        ['TOOL', 'tool_node'],
      ],
    );
    assert.equal(typeof graph.info.version, 'string');
    assert.equal(graph.info.checkpointer, true);
    assert.equal((await client.graphStateSchema()).title, 'AgentState');
    const tools = await client.graphTools();
    assert.deepEqual(
      tools.nodes.map((node) => [node.node_name, node.tools.map((tool) => `${tool.name}:${tool.source}`)]),
      [['TOOL', ['get_time:local', 'get_user_location:remote', 'read_clipboard:remote', 'search_local_database:remote']]],
    );
  });

  test('the quick-start client runs the three examples end to end through invoke', async () => {
    const quickstart = (await import(quickstartPath)) as QuickstartModule;
    const lines: string[] = [];
    const turns = await quickstart.runQuickstartClient(server.url, (line) => lines.push(line));
    assert.equal(turns.length, 3);
    const [location, clipboard, search] = turns;
    for (const turn of turns) {
      assert.equal(turn.rounds, 1, turn.prompt);
      assert.equal(blocks(turn.messages, 'remote_tool_call').length, 1, turn.prompt);
      assert.deepEqual(
        blocks(turn.messages, 'tool_result').map((block) => (block as { status: string }).status),
        ['completed'],
      );
    }
    assert.ok(location!.answer.includes(quickstart.DEMO_LOCATION.label), location!.answer);
    assert.ok(location!.answer.includes(String(quickstart.DEMO_LOCATION.latitude)), location!.answer);
    assert.ok(clipboard!.answer.includes(quickstart.DEMO_CLIPBOARD), clipboard!.answer);
    // The SQLite handler's real LIKE query: the two coffee notes, nothing else.
    assert.match(search!.answer, /"query":"coffee"/);
    assert.match(search!.answer, /"count":2/);
    assert.ok(search!.answer.includes('Coffee beans') && search!.answer.includes('Coffee with Ana'), search!.answer);
    assert.ok(!search!.answer.includes('Dentist'), search!.answer);
    assert.ok(lines.some((line) => line.includes('user: Where am I right now?')));
    assert.ok(lines.some((line) => line.includes('server hands read_clipboard to the client')));
  });

  test('invoke: the remote call, the handler, the result on the same thread, and the answer', async () => {
    const client = quickClient();
    const seen: Array<{ args: unknown; thread: string | undefined; node: string }> = [];
    client.registerToolHandler('get_user_location', (args, context) => {
      seen.push({ args, thread: context.thread_id, node: context.node });
      return LOCATION;
    });
    const question = Message.text_message('Where am I?');
    const result = await client.invoke([question], { config: { thread_id: 'invoke-thread-1' } });
    assert.equal(result.thread_id, 'invoke-thread-1');
    assert.deepEqual(result.meta, { is_new_thread: true, thread_id: 'invoke-thread-1' });
    // Nothing left to answer: the loop ran to the model's answer.
    assert.deepEqual(pendingRemoteCalls(result.messages), []);
    assert.equal(result.rounds, 1);
    assert.equal(result.state, null, 'no state at the default granularity');
    assert.deepEqual(seen, [{ args: {}, thread: 'invoke-thread-1', node: 'TOOL' }]);
    // Every message of the loop once: the question echoed, the call, the placeholder, the results the client sent, the answer.
    assert.deepEqual(
      result.messages.map((message) => [message.role, message.content.map((block) => block.type).join(',')]),
      [
        ['user', 'text'],
        ['assistant', 'tool_call'],
        ['tool', 'remote_tool_call'],
        ['tool', 'tool_result'],
        ['assistant', 'text'],
      ],
    );
    const [echoed, asked, handed] = result.messages;
    assert.equal(echoed!.message_id, question.message_id);
    assert.equal(asked!.metadata?.node_name, 'agent');
    assert.deepEqual(
      asked!.tools_calls?.map((call) => call.function.name),
      ['get_user_location'],
    );
    assert.deepEqual(handed!.metadata, { is_remote: true, node_name: 'TOOL' });
    assert.ok(lastAnswer(result.messages).includes('Champ de Mars'));
    // The thread on the server holds the client's result under the call's id.
    const stored = await storedMessages('invoke-thread-1');
    const call = blocks(stored, 'remote_tool_call')[0] as { id: string; tool_type: string };
    assert.equal(call.tool_type, 'remote');
    assert.deepEqual(blocks(stored, 'tool_result'), [{ type: 'tool_result', call_id: call.id, output: LOCATION, is_error: false, status: 'completed' }]);
    assert.equal((await server.api.store.load('invoke-thread-1'))?.status, 'completed');

    // The same thread again, at full granularity: not new, and the answer carries the thread's state.
    const again = await client.invoke('Where am I?', { config: { thread_id: 'invoke-thread-1' }, response_granularity: 'full' });
    assert.equal(again.meta.is_new_thread, false);
    assert.equal(again.state?.execution_meta.status, 'completed');
    assert.equal(again.state?.context.length, (await storedMessages('invoke-thread-1')).length);
    assert.deepEqual(again.context, again.state?.context);
  });

  test('stream over HTTP: the chunks of both runs in order, with the tool-result message between them', async () => {
    const client = quickClient();
    const chunks = await collect(client.stream([Message.text_message("What's on my clipboard?")], { config: { thread_id: 'stream-thread-1' } }));
    // The first run: the question echoed, the call, the placeholder; then the results the client
    // sent (once, though the server echoes them too); then the second run: the answer's text as
    // deltas, then whole. The body's end ends each run: no end chunk.
    assert.deepEqual(shapeOf(chunks), ['user:text', 'assistant:tool_call', 'tool:remote_tool_call', 'tool:tool_result', 'delta', 'assistant:text']);
    assert.ok(chunks.every((chunk) => chunk.event === 'message' && chunk.thread_id === 'stream-thread-1'));
    const placeholder = chunks[2]!.message!;
    assert.deepEqual(placeholder.metadata?.is_remote, true);
    const calls = pendingRemoteCalls([placeholder]);
    assert.deepEqual(
      calls.map((call) => [call.name, call.tool_type, placeholder.metadata?.node_name]),
      [['read_clipboard', 'remote', 'TOOL']],
    );
    const messages = messagesOf(chunks);
    assert.deepEqual(blocks(messages, 'tool_result'), [{ type: 'tool_result', call_id: calls[0]!.id, output: CLIPBOARD, is_error: false, status: 'completed' }]);
    assert.ok(lastAnswer(messages).includes(CLIPBOARD), lastAnswer(messages));
    const deltas = chunks.filter((chunk) => chunk.message?.delta === true).map((chunk) => chunk.message!);
    const answer = messages.at(-1)!;
    assert.ok(deltas.every((delta) => delta.message_id === answer.message_id));
    assert.equal(deltas.map((delta) => Message.text(delta)).join(''), Message.text(answer));
  });

  test('stream over the WebSocket: the same loop, its runs one after another on one socket per stream', async () => {
    const recording = recordingWebSocket();
    const client = quickClient({ WebSocket: recording.WebSocket });
    try {
      for (const [i, [prompt, expected]] of (
        [
          ['Search the database for invoices', 'note about invoices'],
          ['Where am I?', 'Champ de Mars'],
        ] as const
      ).entries()) {
        recording.frames.length = 0;
        const chunks = await collect(client.streamWs([Message.text_message(prompt)]));
        assert.equal(recording.sockets, i + 1, 'one socket per stream() call');
        // The question (fresh), then the results on the thread the first run named (resume).
        const [fresh, resume] = recording.frames;
        assert.deepEqual(
          recording.frames.map((frame) => frame.invoke_type),
          ['fresh', 'resume'],
        );
        assert.deepEqual(
          fresh!.messages.map((message: Message) => Message.text(message)),
          [prompt],
        );
        const threadId = chunks[0]!.thread_id;
        assert.ok(threadId);
        assert.equal(resume!.config.thread_id, threadId);
        assert.deepEqual(
          resume!.tool_result.map((message: Message) => message.content.map((block) => block.type).join(',')),
          ['tool_result'],
        );
        // Both runs' chunks, the results between them; the done that ends each run is not yielded.
        assert.deepEqual(shapeOf(chunks), ['user:text', 'assistant:tool_call', 'tool:remote_tool_call', 'tool:tool_result', 'delta', 'assistant:text']);
        assert.ok(chunks.every((chunk) => chunk.thread_id === threadId));
        assert.ok(lastAnswer(messagesOf(chunks)).includes(expected), lastAnswer(messagesOf(chunks)));
      }
      const viaOption = await collect(client.stream("What's on my clipboard?", { transport: 'ws' }));
      assert.ok(lastAnswer(messagesOf(viaOption)).includes(CLIPBOARD));
      assert.equal(recording.sockets, 3);
    } finally {
      client.close();
    }
  });

  test("an unregistered tool reaches the server and the model as Tool '<name>' not found, and the loop goes on", async () => {
    const client = new TenxGraphClient({ baseUrl: server.url, WebSocket });
    for (const transport of ['invoke', 'http', 'ws'] as const) {
      const threadId = `unregistered-${transport}`;
      const messages =
        transport === 'invoke'
          ? (await client.invoke("What's on my clipboard?", { config: { thread_id: threadId } })).messages
          : messagesOf(await collect(client.stream("What's on my clipboard?", { config: { thread_id: threadId }, transport })));
      const stored = blocks(await storedMessages(threadId), 'tool_result');
      assert.equal(stored.length, 1);
      assert.deepEqual({ ...stored[0], call_id: '' }, { type: 'tool_result', call_id: '', output: { error: "Tool 'read_clipboard' not found" }, is_error: true, status: 'failed' });
      assert.ok(lastAnswer(messages).includes("read_clipboard failed: Tool 'read_clipboard' not found"), lastAnswer(messages));
      assert.equal((await server.api.store.load(threadId))?.status, 'completed');
    }
    client.close();
  });

  test("a throwing handler's message reaches the server and the model, and the loop goes on", async () => {
    const client = quickClient().registerToolHandler('read_clipboard', () => {
      throw new Error('Clipboard access was denied by the user');
    });
    const result = await client.invoke("What's on my clipboard?", { config: { thread_id: 'throwing-1' } });
    assert.deepEqual(pendingRemoteCalls(result.messages), []);
    assert.equal((await server.api.store.load('throwing-1'))?.status, 'completed');
    const stored = blocks(await storedMessages('throwing-1'), 'tool_result') as ToolResultBlock[];
    assert.deepEqual(
      stored.map((block) => [block.status, block.is_error, failureReasonOf(block)]),
      [['failed', true, 'Clipboard access was denied by the user']],
    );
    assert.ok(lastAnswer(result.messages).includes('read_clipboard failed: Clipboard access was denied by the user'), lastAnswer(result.messages));

    // Non-Error throws and a hanging handler under a time-out fail just as readably.
    const odd = quickClient({ handlerTimeoutMs: 100 })
      .registerToolHandler('read_clipboard', () => {
        throw { reason: 'permission', retry: false };
      })
      .registerToolHandler('get_user_location', () => new Promise(() => undefined));
    const both = await odd.invoke("Where am I, and what's on my clipboard?");
    const answer = lastAnswer(both.messages);
    assert.ok(answer.includes(`read_clipboard failed: Tool 'read_clipboard' threw a non-Error value: {"reason":"permission","retry":false}`), answer);
    assert.ok(answer.includes("get_user_location failed: Tool 'get_user_location' timed out after 100 ms"), answer);
  });

  test('two remote calls in one turn run concurrently and both results go back in one message', async () => {
    const together = barrier(2);
    const client = quickClient()
      .registerToolHandler('get_user_location', async () => {
        await together();
        return LOCATION;
      })
      .registerToolHandler('read_clipboard', async () => {
        await together();
        return CLIPBOARD;
      });
    const result = await client.invoke("Where am I, and what's on my clipboard?");
    assert.equal(result.rounds, 1);
    const calls = blocks(result.messages, 'remote_tool_call') as Array<{ id: string; name: string }>;
    assert.deepEqual(calls.map((call) => call.name).sort(), ['get_user_location', 'read_clipboard']);
    const toolMessages = result.messages.filter((message) => message.content.some((block) => block.type === 'tool_result'));
    assert.equal(toolMessages.length, 1);
    assert.deepEqual(
      toolMessages[0]!.content.map((block) => (block as { call_id: string }).call_id),
      calls.map((call) => call.id),
    );
    const answer = lastAnswer(result.messages);
    assert.ok(answer.includes('Champ de Mars') && answer.includes(CLIPBOARD), answer);
  });

  test('a server tool and a remote tool in the same turn: the server runs one, the client the other', async () => {
    const remoteCalls: string[] = [];
    const client = quickClient().registerToolHandler('get_user_location', (_args, context) => {
      remoteCalls.push(context.name);
      return LOCATION;
    });
    const result = await client.invoke('What time is it, and where am I?', { config: { thread_id: 'mixed-1' } });
    assert.deepEqual(remoteCalls, ['get_user_location']);
    const assistantCalls = blocks(result.messages, 'tool_call') as Array<{ id: string; name: string }>;
    assert.deepEqual(assistantCalls.map((call) => call.name).sort(), ['get_time', 'get_user_location']);
    const results = blocks(await storedMessages('mixed-1'), 'tool_result') as Array<{ call_id: string; output: unknown; status: string }>;
    const byName = new Map(results.map((block) => [assistantCalls.find((call) => call.id === block.call_id)?.name, block]));
    assert.equal(byName.get('get_time')?.status, 'completed');
    assert.match(String(byName.get('get_time')?.output), /^\d{4}-\d{2}-\d{2}T/);
    assert.deepEqual(byName.get('get_user_location')?.output, LOCATION);
    const answer = lastAnswer(result.messages);
    assert.ok(answer.includes('get_time: ') && answer.includes('Champ de Mars'), answer);
  });

  test('recursion_limit: the client stops a loop that never ends with a clear error, and the server enforces its own', async () => {
    const looping = await startCustomServer(
      'loop',
      `import { END, ModelNode, ScriptedModel, StateGraph, ToolNode, toolsCondition } from '10xgraph';
// A model that asks for the location again after every answer: the loop never ends by itself.
const model = new ScriptedModel(() => ({ toolCalls: [{ name: 'get_user_location', args: {} }] }));
export const app = new StateGraph()
  .addNode('agent', new ModelNode(model))
  .addNode('TOOL', new ToolNode([]))
  .setEntryPoint('agent')
  .addConditionalEdges('agent', toolsCondition, ['TOOL', END])
  .addEdge('TOOL', 'agent')
  .compile({ name: 'loop' });
`,
      [{ node: 'TOOL', name: 'get_user_location', description: "Get the user's current location." }],
    );
    try {
      let calls = 0;
      const client = new TenxGraphClient({ baseUrl: looping.url, WebSocket }).registerToolHandler('get_user_location', () => ++calls);
      const error = await client.invoke('Where am I?', { config: { thread_id: 'loop-1' }, recursion_limit: 3 }).then(
        () => assert.fail('the loop must stop'),
        (e: unknown) => e,
      );
      assert.ok(error instanceof TenxGraphError);
      assert.equal(error.code, 'RECURSION_LIMIT_EXCEEDED');
      assert.equal(error.status, 0);
      assert.equal(error.threadId, 'loop-1');
      assert.match(error.message, /Thread loop-1 still waits on remote calls \(get_user_location\) after 3 rounds/);
      assert.equal(calls, 3);
      // The thread is left waiting, not stuck: the pending call can still be answered by hand.
      const record = await looping.api.store.load('loop-1');
      assert.equal(record?.status, 'waiting');
      assert.equal(record?.running, false);

      calls = 0;
      const streamed: StreamChunk[] = [];
      await assert.rejects(
        (async () => {
          for await (const chunk of client.stream('Where am I?', { recursion_limit: 2, transport: 'ws' })) streamed.push(chunk);
        })(),
        (e: unknown) => e instanceof TenxGraphError && e.code === 'RECURSION_LIMIT_EXCEEDED',
      );
      assert.equal(calls, 2);
      // Three runs, each ending on a remote call: the question, then two rounds of results.
      assert.equal(blocks(messagesOf(streamed), 'remote_tool_call').length, 3);
      assert.equal(blocks(messagesOf(streamed), 'tool_result').length, 2);
      client.close();

      // The server's own limit (graph steps per run) comes back as its 400 error.
      const serverSide = await quickClient()
        .invoke('Where am I?', { recursion_limit: 1 })
        .then(
          () => assert.fail('one step is too few'),
          (e: unknown) => e,
        );
      assert.ok(serverSide instanceof TenxGraphError);
      assert.equal(serverSide.status, 400);
      assert.equal(serverSide.code, 'GRAPH_RECURSION_LIMIT_EXCEEDED');
    } finally {
      await looping.close();
    }
  });

  test('with a token on the server: refused without it, the loop runs with it over HTTP and the WebSocket', async () => {
    const guarded = await startApiServer({ configPath: quickstartConfig, host: '127.0.0.1', port: 0, db: ':memory:', token: 'tok-123', log: silent });
    try {
      const anonymous = new TenxGraphClient({ baseUrl: guarded.url, WebSocket });
      assert.equal(await anonymous.ping(), 'pong');
      await assert.rejects(anonymous.invoke('Where am I?'), (e: unknown) => e instanceof TenxGraphError && e.status === 401 && e.code === 'INVALID_TOKEN');
      await assert.rejects(collect(anonymous.streamWs('Where am I?')), (e: unknown) => e instanceof TenxGraphError && e.code === 'NETWORK_ERROR' && /401/.test(e.message));
      anonymous.close();

      const client = quickClient({ baseUrl: guarded.url, token: 'tok-123' });
      assert.ok(lastAnswer((await client.invoke('Where am I?')).messages).includes('Champ de Mars'));
      assert.ok(lastAnswer(messagesOf(await collect(client.stream('Where am I?')))).includes('Champ de Mars'));
      assert.ok(lastAnswer(messagesOf(await collect(client.streamWs('Where am I?')))).includes('Champ de Mars'));
      client.close();
    } finally {
      await guarded.close();
    }
  });

  test('100 concurrent threads each run the loop through one client, none lost or mixed up', async () => {
    const client = new TenxGraphClient({ baseUrl: server.url, WebSocket }).registerToolHandler('search_local_database', async (args, context) => {
      // Uneven handler times interleave the threads' rounds.
      await new Promise((resolve) => setTimeout(resolve, Number(String(args.query).slice(5)) % 7));
      return { query: args.query, thread: context.thread_id };
    });
    const threads = Array.from({ length: 100 }, (_, i) => ({ id: `many-${i}`, token: `token${i}`, transport: (['invoke', 'http', 'ws'] as const)[i % 3]! }));
    const answers = await Promise.all(
      threads.map(async ({ id, token, transport }) => {
        const prompt = `Search the database for ${token}`;
        if (transport === 'invoke') return lastAnswer((await client.invoke(prompt, { config: { thread_id: id } })).messages);
        return lastAnswer(messagesOf(await collect(client.stream(prompt, { config: { thread_id: id }, transport }))));
      }),
    );
    client.close();
    for (const [i, { id, token }] of threads.entries()) {
      const answer = answers[i]!;
      assert.ok(answer.includes(`"query":"${token}"`) && answer.includes(`"thread":"${id}"`), `thread ${id}: ${answer}`);
      // No other thread's data: only this thread's token appears.
      assert.deepEqual(answer.match(/token\d+/g), [token], `thread ${id}: ${answer}`);
      const record = await server.api.store.load(id);
      assert.equal(record?.status, 'completed');
      assert.equal(blocks(record!.checkpoint.state.messages as Message[], 'tool_result').length, 1);
    }
  });
});
