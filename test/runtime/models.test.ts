/**
 * The chat models: the scripted stand-in, and the OpenAI-compatible model against a loopback
 * server that speaks the chat-completions wire format (tools, tool_calls, role "tool" messages).
 */
import { describe, test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { ChatCompletionsStandIn } from '../support/chatCompletions';
import { END, ModelNode, StateGraph, ToolNode, completedResult, failureReasonOf, textMessage, textOf, toolsCondition, type Message } from '../../runtime/src/graph/index';
import { ModelError, OpenAIChatModel, ScriptedModel, toChatCompletionMessages } from '../../runtime/src/models/index';

const tools = [
  { name: 'get_time', description: 'The time.', parameters: { type: 'object', properties: {} } },
  { name: 'search_local_database', description: 'Search.', parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } },
];

describe('ScriptedModel', () => {
  const model = new ScriptedModel({
    rules: [
      { when: 'time', call: 'get_time' },
      { when: /search (\w+)/, call: 'search_local_database', args: (match) => ({ query: match![1] }) },
      { when: 'clipboard', call: 'read_clipboard' },
    ],
    reply: (text) => `echo: ${text}`,
  });

  test('calls every tool whose rule matches, in one turn', async () => {
    const turn = await model.generate({ messages: [textMessage('time please, and search cats')], tools });
    assert.deepEqual(turn.toolCalls, [
      { name: 'get_time', args: {} },
      { name: 'search_local_database', args: { query: 'cats' } },
    ]);
  });

  test('skips tools it is not offered, and replies when nothing matches', async () => {
    assert.deepEqual(await model.generate({ messages: [textMessage('read my clipboard')], tools }), { text: 'echo: read my clipboard' });
  });

  test('answers with the results of the turn once they are in', async () => {
    const messages: Message[] = [
      textMessage('time?'),
      { message_id: 'a', role: 'assistant', content: [{ type: 'tool_call', id: 'c1', name: 'get_time', args: {} }] },
      { message_id: 't', role: 'tool', content: [completedResult('c1', '12:00')] },
    ];
    const turn = await model.generate({ messages, tools });
    assert.match(turn.text ?? '', /get_time: 12:00/);
  });
});

function completion(message: Record<string, unknown>) {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    model: 'test-model',
    choices: [{ index: 0, message: { role: 'assistant', content: null, ...message }, finish_reason: 'stop' }],
  };
}

describe('OpenAIChatModel', () => {
  const fake = new ChatCompletionsStandIn();
  before(() => fake.start());
  after(() => fake.stop());

  test('reads base URL, model and key from the environment', () => {
    const model = new OpenAIChatModel({ env: { OPENAI_BASE_URL: 'http://127.0.0.1:1/v1/', OPENAI_MODEL: 'm-1', OPENAI_API_KEY: 'k' } });
    assert.equal(model.baseURL, 'http://127.0.0.1:1/v1');
    assert.equal(model.model, 'm-1');
    assert.equal(new OpenAIChatModel({ env: {} }).baseURL, 'https://api.openai.com/v1');
  });

  test('runs a graph through a remote tool call with the real wire format', async () => {
    fake.requests.length = 0;
    fake.reply = (body) => {
      const last = body.messages.at(-1);
      if (last.role === 'user') {
        return {
          json: completion({
            tool_calls: [
              { id: 'call_time', type: 'function', function: { name: 'get_time', arguments: '{}' } },
              { id: 'call_search', type: 'function', function: { name: 'search_local_database', arguments: '{"query":"cats"}' } },
            ],
          }),
        };
      }
      const results = body.messages.filter((m: any) => m.role === 'tool').map((m: any) => m.content);
      return { json: completion({ content: `Found: ${results.join(' | ')}` }) };
    };
    const model = new OpenAIChatModel({ env: { OPENAI_BASE_URL: fake.url, OPENAI_MODEL: 'test-model', OPENAI_API_KEY: 'sk-test' }, systemPrompt: 'Be brief.' });
    const graph = new StateGraph()
      .addNode('agent', new ModelNode(model))
      .addNode('TOOL', new ToolNode([{ name: 'get_time', description: 'The time.', handler: () => '12:00' }]))
      .setEntryPoint('agent')
      .addConditionalEdges('agent', toolsCondition, ['TOOL', END])
      .addEdge('TOOL', 'agent')
      .compile();
    graph.attachRemoteTools([{ name: 'search_local_database', description: 'Search.', parameters: tools[1]!.parameters }], 'TOOL');

    const first = await graph.invoke({ messages: [textMessage('what time is it? search cats')] });
    assert.equal(first.status, 'waiting');
    assert.deepEqual(first.pendingRemoteCalls, [{ id: 'call_search', name: 'search_local_database', args: { query: 'cats' }, node: 'TOOL' }]);
    const request = fake.requests[0]!;
    assert.equal(request.path, '/v1/chat/completions');
    assert.equal(request.headers.authorization, 'Bearer sk-test');
    assert.equal(request.body.model, 'test-model');
    assert.equal(request.body.tool_choice, 'auto');
    assert.deepEqual(request.body.messages, [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'what time is it? search cats' },
    ]);
    assert.deepEqual(request.body.tools, [
      { type: 'function', function: { name: 'get_time', description: 'The time.', parameters: { type: 'object', properties: {}, required: [] } } },
      { type: 'function', function: { name: 'search_local_database', description: 'Search.', parameters: tools[1]!.parameters } },
    ]);

    const second = await graph.invoke(
      { messages: [{ message_id: 'r', role: 'tool', content: [completedResult('call_search', ['cat 1', 'cat 2'])] }] },
      { checkpoint: first.checkpoint },
    );
    assert.equal(second.status, 'completed');
    assert.equal(textOf(second.messages.at(-1)), 'Found: 12:00 | ["cat 1","cat 2"]');
    assert.deepEqual(fake.requests[1]!.body.messages.slice(1), [
      { role: 'user', content: 'what time is it? search cats' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_time', type: 'function', function: { name: 'get_time', arguments: '{}' } },
          { id: 'call_search', type: 'function', function: { name: 'search_local_database', arguments: '{"query":"cats"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_time', content: '12:00' },
      { role: 'tool', tool_call_id: 'call_search', content: '["cat 1","cat 2"]' },
    ]);
  });

  test('an error answer becomes a ModelError with the status and the API message', async () => {
    fake.reply = () => ({ status: 401, json: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } } });
    const model = new OpenAIChatModel({ baseURL: fake.url, apiKey: 'bad', env: {} });
    await assert.rejects(model.generate({ messages: [textMessage('hi')], tools: [] }), (error: unknown) => {
      assert.ok(error instanceof ModelError);
      assert.equal(error.status, 401);
      assert.match(error.message, /answered 401: Incorrect API key provided/);
      assert.doesNotMatch(error.message, /bad/);
      return true;
    });
  });

  test('an unreachable API is a ModelError naming the URL', async () => {
    const model = new OpenAIChatModel({ baseURL: 'http://127.0.0.1:9/v1', env: {}, timeoutMs: 2000 });
    await assert.rejects(model.generate({ messages: [textMessage('hi')], tools: [] }), /Cannot reach the chat-completions API at http:\/\/127\.0\.0\.1:9\/v1\/chat\/completions/);
  });

  test('arguments that are not JSON reach the ToolNode, which answers with a failed result', async () => {
    fake.reply = (body) =>
      body.messages.at(-1).role === 'user'
        ? { json: completion({ tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_time', arguments: '{not json' } }] }) }
        : { json: completion({ content: 'sorry' }) };
    const model = new OpenAIChatModel({ baseURL: fake.url, env: {} });
    const graph = new StateGraph()
      .addNode('agent', new ModelNode(model))
      .addNode('TOOL', new ToolNode([{ name: 'get_time', description: 'The time.', handler: () => '12:00' }]))
      .setEntryPoint('agent')
      .addConditionalEdges('agent', toolsCondition, ['TOOL', END])
      .addEdge('TOOL', 'agent')
      .compile();
    const result = await graph.invoke({ messages: [textMessage('time')] });
    const failed = result.messages.flatMap((m) => m.content).find((b) => b.type === 'tool_result');
    assert.deepEqual(failed && [failed.status, failed.is_error, failureReasonOf(failed)], ['failed', true, "Arguments of tool 'get_time' must be a JSON object"]);
    assert.equal(textOf(result.messages.at(-1)), 'sorry');
    // The model reads the failure's reason as the tool's answer.
    assert.deepEqual(fake.requests.at(-1)!.body.messages.at(-1), { role: 'tool', tool_call_id: 'c1', content: "Error: Arguments of tool 'get_time' must be a JSON object" });
  });

  test('conversion drops tool calls that never got a result, and remote_tool_call blocks', () => {
    const messages: Message[] = [
      textMessage('hi'),
      { message_id: 'a', role: 'assistant', content: [{ type: 'tool_call', id: 'c1', name: 'x', args: {} }] },
      {
        message_id: 'r',
        role: 'tool',
        content: [{ type: 'remote_tool_call', id: 'c1', name: 'x', args: {}, tool_type: 'remote' }],
        metadata: { is_remote: true, node_name: 'TOOL' },
      },
      textMessage('never mind'),
    ];
    assert.deepEqual(toChatCompletionMessages(messages), [
      { role: 'user', content: 'hi' },
      { role: 'user', content: 'never mind' },
    ]);
  });
});
