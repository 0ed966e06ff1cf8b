/**
 * Models that stream their text: `OpenAIChatModel` against a loopback server that answers the
 * chat-completions stream exactly as the OpenAI API does (server-sent events, tool calls in
 * pieces, `data: [DONE]`), and `ScriptedModel`'s word-by-word pieces.
 */
import { describe, test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { ChatCompletionsStandIn } from '../support/chatCompletions';
import { textMessage, type Message } from '../../runtime/src/graph/index';
import { ModelError, OpenAIChatModel, ScriptedModel, toChatCompletionMessages, type ModelRequest } from '../../runtime/src/models/index';

/** One `chat.completion.chunk` as the OpenAI API sends it. */
function chunk(delta: Record<string, unknown>, finishReason: string | null = null) {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'gpt-4o-mini-2024-07-18',
    system_fingerprint: 'fp_1',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  };
}

/** The `data:` event of a chunk. */
const event = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
const DONE = 'data: [DONE]\n\n';

function startEvents(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
}

/** Answers with the whole stream of `chunks`, each in its own write, then `[DONE]`. */
function answerChunks(chunks: unknown[]) {
  return (res: ServerResponse) => {
    startEvents(res);
    for (const value of chunks) res.write(event(value));
    res.end(DONE);
  };
}

/** A promise with its resolve, for a server that waits for the client. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** A fetch that hands the real response's body on one byte per read, so every split point is tried. */
const bytewiseFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  const reader = response.body!.getReader();
  let pending: Uint8Array = new Uint8Array(0);
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (pending.byteLength === 0) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        pending = value;
      }
      controller.enqueue(pending.slice(0, 1));
      pending = pending.slice(1);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return new Response(body, { status: response.status, headers: response.headers });
};

const tools = [
  { name: 'get_time', description: 'The time.', parameters: { type: 'object', properties: {} } },
  { name: 'search', description: 'Search.', parameters: { type: 'object', properties: { query: { type: 'string' } } } },
];

describe('OpenAIChatModel streaming', () => {
  const server = new ChatCompletionsStandIn();
  before(() => server.start());
  after(() => server.stop());
  const model = () => new OpenAIChatModel({ baseURL: server.url, model: 'gpt-4o-mini', apiKey: 'sk-test', env: {} });

  test('passes each text piece on as it arrives, and resolves to the whole turn', async () => {
    server.requests.length = 0;
    const firstSeen = deferred();
    server.answer = async (res) => {
      startEvents(res);
      res.write(event(chunk({ role: 'assistant', content: '', refusal: null })));
      res.write(event(chunk({ content: 'Hel' })));
      // The rest only once the client has the first piece: it reached onText before the stream ended.
      await firstSeen.promise;
      res.write(event(chunk({ content: 'lo, ' })));
      res.write(event(chunk({ content: 'world.' })));
      res.write(event(chunk({}, 'stop')));
      res.end(DONE);
    };
    const pieces: string[] = [];
    const turn = await model().generate({
      messages: [textMessage('hi')],
      tools: [],
      onText: (delta) => {
        pieces.push(delta);
        firstSeen.resolve();
      },
    });
    assert.deepEqual(pieces, ['Hel', 'lo, ', 'world.']);
    assert.deepEqual(turn, { text: 'Hello, world.', toolCalls: [] });
    const request = server.requests[0]!;
    assert.equal(request.body.stream, true);
    assert.equal(request.body.stream_options, undefined);
    assert.equal(request.headers.accept, 'text/event-stream');
  });

  test('joins tool-call pieces by index and parses their arguments at the end', async () => {
    server.answer = answerChunks([
      chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_time', type: 'function', function: { name: 'get_time', arguments: '' } }], refusal: null }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{}' } }] }),
      chunk({ tool_calls: [{ index: 1, id: 'call_search', type: 'function', function: { name: 'search', arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: '{"qu' } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: 'ery": "caf' } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: 'é"}' } }] }),
      chunk({ tool_calls: [{ index: 2, id: 'call_bad', type: 'function', function: { name: 'get_time', arguments: '{not json' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    const pieces: string[] = [];
    const turn = await model().generate({ messages: [textMessage('time? search café')], tools, onText: (delta) => pieces.push(delta) });
    assert.deepEqual(pieces, []);
    assert.deepEqual(turn, {
      text: undefined,
      toolCalls: [
        { id: 'call_time', name: 'get_time', args: {} },
        { id: 'call_search', name: 'search', args: { query: 'café' } },
        // Kept as text, as without streaming: the ToolNode answers it with a failed result.
        { id: 'call_bad', name: 'get_time', args: '{not json' },
      ],
    });
  });

  test('reads a multi-byte character written in two halves', async () => {
    const firstSeen = deferred();
    server.answer = async (res) => {
      startEvents(res);
      res.write(event(chunk({ role: 'assistant', content: 'caf' })));
      await firstSeen.promise;
      const bytes = Buffer.from(event(chunk({ content: 'é!' })));
      const split = bytes.indexOf(Buffer.from('é')) + 1;
      res.write(bytes.subarray(0, split));
      res.write(bytes.subarray(split));
      res.end(DONE);
    };
    const pieces: string[] = [];
    const turn = await model().generate({ messages: [textMessage('hi')], tools: [], onText: (delta) => (pieces.push(delta), firstSeen.resolve()) });
    assert.deepEqual(pieces, ['caf', 'é!']);
    assert.equal(turn.text, 'café!');
  });

  test('reads a stream handed on one byte at a time, with CRLF line ends and comments', async () => {
    server.answer = (res) => {
      startEvents(res);
      res.write(': OPENROUTER PROCESSING\r\n\r\n');
      res.write(event(chunk({ role: 'assistant', content: 'naïve ' })).replaceAll('\n', '\r\n'));
      res.write(event(chunk({ content: '日本 ✓' })).replaceAll('\n', '\r\n'));
      res.write(event(chunk({ tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'search', arguments: '{"query":"ü"}' } }] })).replaceAll('\n', '\r\n'));
      res.write(event(chunk({}, 'tool_calls')).replaceAll('\n', '\r\n'));
      res.end('data: [DONE]\r\n\r\n');
    };
    const pieces: string[] = [];
    const streaming = new OpenAIChatModel({ baseURL: server.url, env: {}, fetch: bytewiseFetch });
    const turn = await streaming.generate({ messages: [textMessage('hi')], tools, onText: (delta) => pieces.push(delta) });
    assert.deepEqual(pieces, ['naïve ', '日本 ✓']);
    assert.deepEqual(turn, { text: 'naïve 日本 ✓', toolCalls: [{ id: 'c1', name: 'search', args: { query: 'ü' } }] });
  });

  test('a stream cut before [DONE] is a ModelError saying it ended early', async () => {
    const firstSeen = deferred();
    server.answer = async (res) => {
      startEvents(res);
      res.write(event(chunk({ role: 'assistant', content: 'The answer is' })));
      await firstSeen.promise;
      res.socket?.destroy();
    };
    const pieces: string[] = [];
    await assert.rejects(model().generate({ messages: [textMessage('hi')], tools: [], onText: (delta) => (pieces.push(delta), firstSeen.resolve()) }), (error: unknown) => {
      assert.ok(error instanceof ModelError);
      assert.match(error.message, /^The chat-completions stream from http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions ended early, before `data: \[DONE\]`/);
      return true;
    });
    assert.deepEqual(pieces, ['The answer is']);
  });

  test('a body that ends cleanly without [DONE] or a finish_reason is a ModelError too', async () => {
    server.answer = (res) => {
      startEvents(res);
      res.end(event(chunk({ role: 'assistant', content: 'The answer is' })));
    };
    await assert.rejects(model().generate({ messages: [textMessage('hi')], tools: [], onText: () => undefined }), (error: unknown) => {
      assert.ok(error instanceof ModelError);
      assert.match(error.message, /ended early, without `data: \[DONE\]`/);
      return true;
    });
  });

  test('a data line that is not JSON is a ModelError', async () => {
    server.answer = (res) => {
      startEvents(res);
      res.end('data: {"choices": [\n\n');
    };
    await assert.rejects(model().generate({ messages: [textMessage('hi')], tools: [], onText: () => undefined }), (error: unknown) => {
      assert.ok(error instanceof ModelError);
      assert.match(error.message, /sent a data line that is not JSON \(\{"choices": \[\)/);
      return true;
    });
  });

  test('an error inside the stream is a ModelError with its message', async () => {
    server.answer = answerChunks([
      chunk({ role: 'assistant', content: 'Par' }),
      { error: { message: 'The server had an error while processing your request.', type: 'server_error', param: null, code: null } },
    ]);
    await assert.rejects(model().generate({ messages: [textMessage('hi')], tools: [], onText: () => undefined }), (error: unknown) => {
      assert.ok(error instanceof ModelError);
      assert.match(error.message, /reported an error mid-answer: The server had an error while processing your request\.$/);
      return true;
    });
  });

  test('an error answer is a ModelError with the status and the API message, and no piece', async () => {
    server.answer = (res) => {
      res.writeHead(429, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'Rate limit reached for gpt-4o-mini', type: 'requests', param: null, code: 'rate_limit_exceeded' } }));
    };
    const pieces: string[] = [];
    await assert.rejects(model().generate({ messages: [textMessage('hi')], tools: [], onText: (delta) => pieces.push(delta) }), (error: unknown) => {
      assert.ok(error instanceof ModelError);
      assert.equal(error.status, 429);
      assert.match(error.message, /answered 429: Rate limit reached for gpt-4o-mini$/);
      return true;
    });
    assert.deepEqual(pieces, []);
  });

  test('a line over 1 MiB is a ModelError', async () => {
    server.answer = (res) => {
      startEvents(res);
      res.write(`data: "${'x'.repeat((1 << 20) + 16)}`);
    };
    await assert.rejects(model().generate({ messages: [textMessage('hi')], tools: [], onText: () => undefined }), (error: unknown) => {
      assert.ok(error instanceof ModelError);
      assert.match(error.message, /longer than 1048576 characters/);
      return true;
    });
  });

  test('the time-out and the abort signal end a stream that stalls', async () => {
    server.answer = (res) => {
      startEvents(res);
      res.write(event(chunk({ role: 'assistant', content: 'Thinking' })));
    };
    const slow = new OpenAIChatModel({ baseURL: server.url, env: {}, timeoutMs: 300 });
    await assert.rejects(slow.generate({ messages: [textMessage('hi')], tools: [], onText: () => undefined }), /ended early, before `data: \[DONE\]` \(no answer within 300 ms\)/);
    const controller = new AbortController();
    await assert.rejects(
      model().generate({ messages: [textMessage('hi')], tools: [], signal: controller.signal, onText: () => controller.abort() }),
      /ended early, before `data: \[DONE\]` \(the request was aborted\)/,
    );
  });

  test('without onText the request and the answer are as before', async () => {
    server.requests.length = 0;
    server.answer = (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'Hello.' }, finish_reason: 'stop' }] }));
    };
    assert.deepEqual(await model().generate({ messages: [textMessage('hi')], tools: [] }), { text: 'Hello.', toolCalls: [] });
    assert.equal('stream' in server.requests[0]!.body, false);
    assert.equal(server.requests[0]!.headers.accept, 'application/json');
  });

  test('a server that ignores stream: true gives the whole text as one piece', async () => {
    server.answer = (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'All at once.' }, finish_reason: 'stop' }] }),
      );
    };
    const pieces: string[] = [];
    assert.deepEqual(await model().generate({ messages: [textMessage('hi')], tools: [], onText: (delta) => pieces.push(delta) }), { text: 'All at once.', toolCalls: [] });
    assert.deepEqual(pieces, ['All at once.']);
  });
});

describe('failed tool results', () => {
  // Built loosely: the wire's `tool_result` gains `is_error` and `output.error`, and may still carry the legacy `error`.
  const thread = (result: Record<string, unknown>) =>
    [
      textMessage('time?'),
      { message_id: 'a', role: 'assistant', content: [{ type: 'tool_call', id: 'c1', name: 'get_time', args: {} }] },
      { message_id: 't', role: 'tool', content: [{ type: 'tool_result', call_id: 'c1', ...result }] },
    ] as unknown as Message[];
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['output.error', { output: { error: 'clock unplugged' }, is_error: true, status: 'failed' }, 'clock unplugged'],
    ['the legacy error', { output: null, status: 'failed', error: 'clock unplugged' }, 'clock unplugged'],
    ['the output as JSON', { output: { code: 7 }, is_error: true, status: 'failed' }, '{"code":7}'],
  ];

  for (const [source, result, reason] of cases) {
    test(`read their reason from ${source}`, async () => {
      assert.deepEqual(toChatCompletionMessages(thread(result)).at(-1), { role: 'tool', tool_call_id: 'c1', content: `Error: ${reason}` });
      const turn = await new ScriptedModel().generate({ messages: thread(result), tools });
      assert.equal(turn.text, `Here is what the tools returned:\nget_time failed: ${reason}`);
    });
  }

  test('is_error alone marks a result failed', () => {
    assert.deepEqual(toChatCompletionMessages(thread({ output: { error: 'no' }, is_error: true, status: 'completed' })).at(-1), {
      role: 'tool',
      tool_call_id: 'c1',
      content: 'Error: no',
    });
  });
});

describe('ScriptedModel streaming', () => {
  test('streams its reply word by word, each piece on its own turn of the event loop', async () => {
    const seen: string[] = [];
    const model = new ScriptedModel({ reply: 'Hello there, friend.' });
    const turn = await model.generate({
      messages: [textMessage('hi')],
      tools: [],
      onText: (delta) => {
        seen.push(delta);
        setImmediate(() => seen.push('|'));
      },
    });
    assert.deepEqual(seen, ['Hello ', '|', 'there, ', '|', 'friend.']);
    assert.deepEqual(turn, { text: 'Hello there, friend.' });
  });

  test('streams the text of a function script the same way, and never tool calls', async () => {
    const model = new ScriptedModel((request: ModelRequest) =>
      request.messages.length === 1 ? { text: 'Let me check.', toolCalls: [{ name: 'get_time', args: {} }] } : { toolCalls: [{ name: 'get_time', args: {} }] },
    );
    const pieces: string[] = [];
    const onText = (delta: string) => pieces.push(delta);
    assert.deepEqual(await model.generate({ messages: [textMessage('time?')], tools, onText }), { text: 'Let me check.', toolCalls: [{ name: 'get_time', args: {} }] });
    assert.deepEqual(pieces, ['Let ', 'me ', 'check.']);
    pieces.length = 0;
    await model.generate({ messages: [textMessage('time?'), textMessage('again')], tools, onText });
    assert.deepEqual(pieces, []);
  });
});
