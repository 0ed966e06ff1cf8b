/**
 * The graph library: building, describing, attaching remote tools, and running to the end or to
 * a remote call and back.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  AttachRemoteToolsError,
  END,
  GraphDefinitionError,
  GraphRunError,
  ModelNode,
  START,
  StateGraph,
  ToolNode,
  completedResult,
  failureReasonOf,
  isCompiledGraph,
  textMessage,
  textOf,
  toolsCondition,
  validateResume,
  type CompiledGraph,
  type GraphEvent,
  type Message,
} from '../../runtime/src/graph/index';
import { ScriptedModel, type ModelRequest } from '../../runtime/src/models/index';
import { analyzeConfig } from '../../runtime/src/rules/index';
import { buildTestGraph, REMOTE_TOOLS } from './serverHelpers';

function resultMessage(calls: Array<{ id: string }>, output: (id: string) => unknown): Message {
  return { message_id: 'm-results', role: 'tool', content: calls.map((call) => completedResult(call.id, output(call.id))) };
}

async function collect(graph: CompiledGraph, messages: Message[], options = {}): Promise<GraphEvent[]> {
  const events: GraphEvent[] = [];
  for await (const event of graph.stream({ messages }, options)) events.push(event);
  return events;
}

describe('StateGraph.compile', () => {
  test('refuses a graph without an entry point', () => {
    const graph = new StateGraph().addNode('a', () => undefined);
    assert.throws(
      () => graph.compile(),
      (error: unknown) => error instanceof GraphDefinitionError && /entry point/.test(error.message),
    );
  });

  test('refuses an edge to a node that does not exist', () => {
    const graph = new StateGraph()
      .addNode('a', () => undefined)
      .setEntryPoint('a')
      .addEdge('a', 'missing');
    assert.throws(() => graph.compile(), /ends at a node that does not exist/);
  });

  test('refuses two fixed edges from one node, and a duplicate node name', () => {
    const graph = new StateGraph()
      .addNode('a', () => undefined)
      .addNode('b', () => undefined)
      .setEntryPoint('a')
      .addEdge('a', 'b')
      .addEdge('a', END);
    assert.throws(() => graph.compile(), /two fixed edges/);
    assert.throws(() => new StateGraph().addNode('a', () => undefined).addNode('a', () => undefined), /added twice/);
  });

  test('addEdge(START, node) sets the entry point; compiled graphs carry the shared mark', () => {
    const graph = new StateGraph()
      .addNode('a', () => undefined)
      .addEdge(START, 'a')
      .compile();
    assert.equal(graph.describe().entryPoint, 'a');
    assert.equal(isCompiledGraph(graph), true);
    assert.equal((graph as unknown as Record<symbol, unknown>)[Symbol.for('10xgraph.CompiledGraph')], true);
    // Recognised by the mark, not the class: another copy of the library makes graphs that pass too.
    assert.equal(isCompiledGraph({ [Symbol.for('10xgraph.CompiledGraph')]: true }), true);
    assert.equal(isCompiledGraph(new StateGraph()), false);
  });
});

describe('CompiledGraph.describe and toRuleGraph', () => {
  test('report node kinds, edges and tools with their source', () => {
    const graph = new StateGraph()
      .addNode('agent', new ModelNode(new ScriptedModel()))
      .addNode('TOOL', new ToolNode([{ name: 'get_time', description: 'The time.', handler: () => 'now' }]))
      .addNode('log', () => undefined)
      .setEntryPoint('agent')
      .addConditionalEdges('agent', toolsCondition)
      .addEdge('TOOL', 'log')
      .addEdge('log', 'agent')
      .compile({ name: 'demo' });
    graph.attachRemoteTools([{ name: 'read_clipboard', description: 'Read the clipboard.' }], 'TOOL');
    const description = graph.describe();
    assert.equal(description.name, 'demo');
    assert.deepEqual(
      description.nodes.map((node) => [node.name, node.kind]),
      [
        ['agent', 'model_node'],
        ['TOOL', 'tool_node'],
        ['log', 'function_node'],
      ],
    );
    assert.deepEqual(description.edges.map((edge) => `${edge.source}->${edge.target}${edge.conditional ? '?' : ''}`).sort(), ['TOOL->log', 'agent->TOOL?', 'log->agent']);
    const tools = description.nodes[1]!.tools!;
    assert.deepEqual(
      tools.map((tool) => [tool.name, tool.source]),
      [
        ['get_time', 'local'],
        ['read_clipboard', 'remote'],
      ],
    );
    assert.deepEqual(tools[1]!.parameters, { type: 'object', properties: {}, required: [] });
    const ruleGraph = graph.toRuleGraph();
    assert.equal(ruleGraph.origin, 'loaded');
    assert.equal(ruleGraph.toolsKnown, true);
    assert.deepEqual(ruleGraph.nodes[1], {
      name: 'TOOL',
      kind: 'tool_node',
      tools: [
        { name: 'get_time', description: 'The time.', parameters: { type: 'object', properties: {}, required: [] }, source: 'local' },
        { name: 'read_clipboard', description: 'Read the clipboard.', parameters: { type: 'object', properties: {}, required: [] }, source: 'remote' },
      ],
    });
  });
});

describe('CompiledGraph.attachRemoteTools', () => {
  const build = () =>
    new StateGraph()
      .addNode('agent', new ModelNode(new ScriptedModel()))
      .addNode('TOOL', new ToolNode([{ name: 'get_time', description: 'The time.', handler: () => 'now' }]))
      .setEntryPoint('agent')
      .addConditionalEdges('agent', toolsCondition, ['TOOL', END])
      .addEdge('TOOL', 'agent')
      .compile();

  /** The rule set's problem for a config with one tool on `node`, judged on the graph. */
  function ruleProblem(graph: CompiledGraph, node: string, name: string) {
    const text = JSON.stringify({ agent: 'graph:app', remote_tools: [{ node, name, description: 'A tool for the test.' }] });
    return analyzeConfig(text, { graph: graph.toRuleGraph() }).problems.find((p) => p.severity === 'error');
  }

  for (const [title, node, name, code] of [
    ['a node that does not exist', 'TOOLS', 'read_clipboard', 'node-not-found'],
    ['a node that is not a ToolNode', 'agent', 'read_clipboard', 'node-not-tool-node'],
    ['a name a server tool has', 'TOOL', 'get_time', 'name-conflicts-with-server-tool'],
  ] as const) {
    test(`refuses ${title} with the rule set's code and message`, () => {
      const graph = build();
      let thrown: unknown;
      try {
        graph.attachRemoteTools([{ name, description: 'A tool for the test.' }], node);
      } catch (error) {
        thrown = error;
      }
      assert.ok(thrown instanceof AttachRemoteToolsError);
      assert.ok(thrown instanceof Error);
      assert.equal(thrown.code, code);
      const problem = ruleProblem(graph, node, name);
      assert.equal(problem?.code, code);
      assert.equal(thrown.message, problem?.message);
      assert.equal(graph.tools().filter((tool) => tool.source === 'remote').length, 0);
    });
  }

  test('attaches to a ToolNode and returns the count', () => {
    const graph = build();
    assert.equal(graph.attachRemoteTools(REMOTE_TOOLS, 'TOOL'), 3);
    assert.deepEqual(
      graph.tools().map((tool) => `${tool.node}:${tool.name}:${tool.source}`),
      ['TOOL:get_time:local', 'TOOL:get_user_location:remote', 'TOOL:read_clipboard:remote', 'TOOL:search_local_database:remote'],
    );
  });
});

describe('running a graph', () => {
  test('the model is offered server and remote tools alike', async () => {
    let offered: string[] = [];
    const model = new ScriptedModel((request: ModelRequest) => {
      offered = request.tools.map((tool) => tool.name);
      return { text: 'hi' };
    });
    const graph = new StateGraph()
      .addNode('agent', new ModelNode(model))
      .addNode('TOOL', new ToolNode([{ name: 'get_time', description: 'The time.', handler: () => 'now' }]))
      .addNode('MORE', new ToolNode([{ name: 'roll_dice', description: 'A number from 1 to 6.', handler: () => 4 }]))
      .setEntryPoint('agent')
      .addConditionalEdges('agent', toolsCondition, ['TOOL', 'MORE', END])
      .addEdge('TOOL', 'agent')
      .addEdge('MORE', 'agent')
      .compile();
    graph.attachRemoteTools([{ name: 'read_clipboard', description: 'Read the clipboard.' }], 'MORE');
    await graph.invoke({ messages: [textMessage('hello')] });
    assert.deepEqual(offered, ['get_time', 'roll_dice', 'read_clipboard']);
  });

  test('a remote call stops the run; its result resumes it to an answer that includes it', async () => {
    const graph = buildTestGraph();
    const first = await graph.invoke({ messages: [textMessage('where am I?')] });
    assert.equal(first.status, 'waiting');
    assert.equal(first.pendingRemoteCalls.length, 1);
    const call = first.pendingRemoteCalls[0]!;
    assert.equal(call.name, 'get_user_location');
    assert.equal(call.node, 'TOOL');
    assert.deepEqual(
      first.messages.map((message) => [message.role, message.content.map((block) => block.type).join(',')]),
      [
        ['assistant', 'tool_call'],
        ['tool', 'remote_tool_call'],
      ],
    );
    assert.equal((first.messages[1]!.content[0] as { id: string }).id, call.id);
    const second = await graph.invoke({ messages: [resultMessage([call], () => ({ city: 'Oslo' }))] }, { checkpoint: first.checkpoint });
    assert.equal(second.status, 'completed');
    assert.deepEqual(second.pendingRemoteCalls, []);
    assert.match(textOf(second.messages.at(-1)), /get_user_location: \{"city":"Oslo"\}/);
    assert.equal(second.checkpoint.state.messages.length, 5);
  });

  test('stream yields messages with their node, then remote_tool_calls, then end with the checkpoint', async () => {
    const graph = buildTestGraph();
    const events = await collect(graph, [textMessage('what is on my clipboard and where am I?')]);
    assert.deepEqual(
      events.map((event) => (event.type === 'message' ? `message:${event.node}` : event.type)),
      ['message:agent', 'message:TOOL', 'remote_tool_calls', 'end'],
    );
    const calls = (events[2] as Extract<GraphEvent, { type: 'remote_tool_calls' }>).calls;
    assert.deepEqual(calls.map((call) => call.name).sort(), ['get_user_location', 'read_clipboard']);
    // The model's calls travel as tool_call blocks and in the OpenAI shape (tools_calls); the
    // ToolNode hands the remote ones on as remote_tool_call blocks in a message marked remote.
    const [asked, handed] = events.slice(0, 2).map((event) => (event as Extract<GraphEvent, { type: 'message' }>).message);
    assert.deepEqual(
      asked!.tools_calls?.map((call) => [call.id, call.type, call.function.name, call.function.arguments]),
      asked!.content.map((block) => [(block as { id: string }).id, 'function', (block as { name: string }).name, '{}']),
    );
    assert.equal(handed!.role, 'tool');
    assert.deepEqual(handed!.metadata, { is_remote: true, node_name: 'TOOL' });
    assert.deepEqual(
      handed!.content,
      calls.map((call) => ({ type: 'remote_tool_call', id: call.id, name: call.name, args: call.args, tool_type: 'remote' })),
    );
    const end = events[3] as Extract<GraphEvent, { type: 'end' }>;
    assert.equal(end.status, 'waiting');
    assert.equal(end.checkpoint.interruptedAt, 'TOOL');
    assert.deepEqual(end.checkpoint.pending, calls);
  });

  test("with deltas, a model's text comes as delta events before its whole message, which has the same id", async () => {
    const graph = buildTestGraph();
    const events = await collect(graph, [textMessage('hello there')], { deltas: true });
    const deltas = events.filter((event): event is Extract<GraphEvent, { type: 'delta' }> => event.type === 'delta');
    const whole = events.find((event): event is Extract<GraphEvent, { type: 'message' }> => event.type === 'message');
    assert.ok(whole, 'the whole message follows');
    assert.ok(deltas.length > 0, 'the text came in pieces');
    assert.ok(events.indexOf(whole) > events.indexOf(deltas.at(-1)!), 'every piece comes before the whole message');
    assert.ok(deltas.every((delta) => delta.node === 'agent' && delta.message.delta === true && delta.message.message_id === whole.message.message_id));
    assert.equal(deltas.map((delta) => textOf(delta.message)).join(''), textOf(whole.message));
    assert.equal(whole.message.delta ?? false, false);
    // Without the option, no delta event.
    const plain = await collect(graph, [textMessage('hello there')]);
    assert.deepEqual(
      plain.map((event) => event.type),
      ['message', 'end'],
    );
  });

  test('a server tool in the same turn runs; the answer includes both results', async () => {
    const graph = buildTestGraph();
    const first = await graph.invoke({ messages: [textMessage('what time is it, and where am I?')] });
    assert.equal(first.status, 'waiting');
    assert.deepEqual(
      first.pendingRemoteCalls.map((call) => call.name),
      ['get_user_location'],
    );
    const serverResult = first.messages.flatMap((message) => message.content).find((block) => block.type === 'tool_result');
    assert.deepEqual(serverResult && { output: serverResult.output, status: serverResult.status }, { output: '12:00', status: 'completed' });
    const second = await graph.invoke({ messages: [resultMessage(first.pendingRemoteCalls, () => 'Oslo')] }, { checkpoint: first.checkpoint });
    const answer = textOf(second.messages.at(-1));
    assert.match(answer, /get_time: 12:00/);
    assert.match(answer, /get_user_location: Oslo/);
  });

  test('failed server tools and unknown tools give failed results, not errors', async () => {
    const model = new ScriptedModel((request) => {
      const last = request.messages.at(-1)!;
      if (last.role === 'user')
        return {
          toolCalls: [
            { name: 'explode', args: {} },
            { name: 'no_such_tool', args: {} },
            { name: 'explode', args: 'not an object' },
          ],
        };
      return { text: 'done' };
    });
    const graph = new StateGraph()
      .addNode('agent', new ModelNode(model))
      .addNode(
        'TOOL',
        new ToolNode([
          {
            name: 'explode',
            description: 'Always fails.',
            handler: () => {
              throw new Error('boom');
            },
          },
        ]),
      )
      .setEntryPoint('agent')
      .addConditionalEdges('agent', toolsCondition, ['TOOL', END])
      .addEdge('TOOL', 'agent')
      .compile();
    const result = await graph.invoke({ messages: [textMessage('go')] });
    assert.equal(result.status, 'completed');
    const results = result.messages.flatMap((message) => message.content).filter((block) => block.type === 'tool_result');
    assert.deepEqual(
      results.map((block) => [block.status, block.is_error, failureReasonOf(block)]),
      [
        ['failed', true, 'boom'],
        ['failed', true, "Tool 'no_such_tool' not found"],
        ['failed', true, "Arguments of tool 'explode' must be a JSON object"],
      ],
    );
  });

  test('resuming checks the results against the pending calls', async () => {
    const graph = buildTestGraph();
    const first = await graph.invoke({ messages: [textMessage('where am I and what is on my clipboard?')] });
    const [a, b] = first.pendingRemoteCalls;
    const code = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        return (error as GraphRunError).code;
      }
      return 'none';
    };
    assert.equal(
      code(() => validateResume(first.checkpoint, [resultMessage([a!], () => 1)])),
      'missing_tool_results',
    );
    assert.equal(
      code(() => validateResume(first.checkpoint, [resultMessage([a!, b!, { id: 'call_x' }], () => 1)])),
      'unknown_call_id',
    );
    assert.equal(
      code(() => validateResume(first.checkpoint, [resultMessage([a!, a!, b!], () => 1)])),
      'unknown_call_id',
    );
    assert.equal(
      code(() => validateResume(first.checkpoint, [resultMessage([a!, b!], () => 1)])),
      'none',
    );
    await assert.rejects(
      graph.invoke({ messages: [resultMessage([a!], () => 1)] }, { checkpoint: first.checkpoint }),
      (error: unknown) => (error as GraphRunError).code === 'missing_tool_results' && /call_/.test((error as Error).message),
    );
    // A completed thread has nothing pending: any result is for an unknown (or answered) call.
    const done = await graph.invoke({ messages: [resultMessage([a!, b!], () => 1)] }, { checkpoint: first.checkpoint });
    await assert.rejects(
      graph.invoke({ messages: [resultMessage([a!], () => 1)] }, { checkpoint: done.checkpoint }),
      (error: unknown) => (error as GraphRunError).code === 'unknown_call_id',
    );
  });

  test('the recursion limit ends a looping run with an error and keeps what it produced', async () => {
    let runs = 0;
    const graph = new StateGraph()
      .addNode('loop', () => {
        runs++;
        return [textMessage(`step ${runs}`, 'assistant')];
      })
      .setEntryPoint('loop')
      .addEdge('loop', 'loop')
      .compile();
    const events = await collect(graph, [textMessage('go')], { recursionLimit: 3 });
    assert.deepEqual(
      events.map((event) => event.type),
      ['message', 'message', 'message', 'error', 'end'],
    );
    assert.equal((events[3] as { code: string }).code, 'recursion_limit_exceeded');
    const end = events[4] as Extract<GraphEvent, { type: 'end' }>;
    assert.equal(end.status, 'error');
    assert.equal(end.checkpoint.state.messages.length, 4);
    assert.deepEqual(end.checkpoint.pending, []);
    await assert.rejects(
      graph.invoke({ messages: [textMessage('go')] }, { recursionLimit: 2 }),
      (error: unknown) => error instanceof GraphRunError && error.code === 'recursion_limit_exceeded',
    );
  });

  test('function nodes keep state values across runs; routes pick the next node', async () => {
    const graph = new StateGraph()
      .addNode('count', (state) => ({ count: ((state.count as number | undefined) ?? 0) + 1 }))
      .addNode('say', (state) => [textMessage(`count ${state.count as number}`, 'assistant')])
      .setEntryPoint('count')
      .addConditionalEdges('count', (state) => ((state.count as number) % 2 === 0 ? 'even' : 'odd'), { even: 'say', odd: END })
      .compile();
    const first = await graph.invoke({ messages: [textMessage('a')] });
    assert.deepEqual(first.messages, []);
    const second = await graph.invoke({ messages: [textMessage('b')] }, { checkpoint: first.checkpoint });
    assert.equal(textOf(second.messages[0]), 'count 2');
    assert.equal(second.checkpoint.state.count, 2);
  });

  test('a failing model ends the run with model_error', async () => {
    const graph = new StateGraph()
      .addNode(
        'agent',
        new ModelNode({
          generate: async () => {
            throw new Error('quota exceeded');
          },
        }),
      )
      .setEntryPoint('agent')
      .compile();
    const events = await collect(graph, [textMessage('hi')]);
    assert.equal(events[0]!.type, 'error');
    assert.equal((events[0] as { code: string }).code, 'model_error');
    assert.match((events[0] as { message: string }).message, /quota exceeded/);
    assert.equal(events[1]!.type, 'end');
  });
});
