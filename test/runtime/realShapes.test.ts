// The Python reader on the shapes real 10xGraph modules take (test/fixtures/real-shapes), held to
// CPython running each module against a stand-in of 10xGraph (test/support/python_oracle.py).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { pythonGraphOf, readPythonModule, readPythonModuleWhole } from '../../runtime/src/workspace/pythonGraph';
import fc from 'fast-check';
import { runOracle } from '../support/pythonOracle';
import { realShapes } from '../support/realShapes';

const shapes = realShapes();

describe('real module shapes', () => {
  test('the folder holds every shape the issue names, each following a public module', () => {
    assert.ok(shapes.length >= 40, `${shapes.length} shapes`);
    for (const shape of shapes) assert.match(shape.follows, /^(?:10xHub|10xGraph)\/|^a lazy-singleton|^the checkpointer/, shape.file);
    const files = new Set(shapes.map((s) => s.file));
    for (const file of [
      'init_dev_agent.py',
      'init_prod_agent.py',
      'react_generic_state.py',
      'factory_create_app.py',
      'factory_async.py',
      'top_level_await.py',
      'prebuilt_supervisor.py',
    ])
      assert.ok(files.has(file), file);
  });

  for (const shape of shapes) {
    test(`${shape.file}: ${shape.nodes ? shape.nodes.map(([n]) => n).join(', ') : 'not read, and says why'}`, () => {
      const read = readPythonModule(shape.source);
      // The partial parse answers as the whole parse does: texts, positions and reasons.
      assert.deepEqual(read, readPythonModuleWhole(shape.source));
      const graph = pythonGraphOf(read, shape.exportName);
      if (shape.nodes) {
        assert.ok(graph.ok, graph.ok ? '' : graph.reason);
        assert.deepEqual(
          graph.graph.nodes.map((n) => [n.name, n.kind]),
          shape.nodes,
        );
      } else {
        assert.equal(graph.ok, false);
        assert.match(graph.ok ? '' : graph.reason, shape.reason!);
      }
    });
  }

  test('CPython agrees: every graph read has the nodes Python builds, and what Python refuses to compile is not read', () => {
    // env_guard.py refuses to import without its key, as its original does.
    const answers = runOracle(
      shapes.map((s) => ({ source: s.source, attr: s.exportName })),
      { GEMINI_API_KEY: 'a key for the test' },
    );
    let compared = 0;
    for (const [i, shape] of shapes.entries()) {
      const answer = answers[i];
      if (shape.nodes) {
        assert.ok('nodes' in answer, `${shape.file}: Python says ${'error' in answer ? `${answer.error}: ${answer.message}` : ''}`);
        assert.deepEqual(
          answer.nodes.map(([name]) => name),
          shape.nodes.map(([name]) => name),
          shape.file,
        );
        // A kind the reader states is the one Python's node has (an `unknown` kind states nothing).
        for (const [j, [, kind]] of shape.nodes.entries()) if (kind !== 'unknown') assert.equal(answer.nodes[j][1], kind, `${shape.file}: ${shape.nodes[j][0]}`);
        compared++;
      }
      const refused = shape.reason?.source.includes('Python refuses to compile');
      assert.equal('error' in answer && answer.error === 'SyntaxError', refused === true, `${shape.file}: ${JSON.stringify(answer)}`);
      // Every top-level name Python binds is one the reader knows, unless the reader says the names are open.
      const read = readPythonModule(shape.source);
      if (answer.names && read.unread === undefined && read.namesOpen === undefined) {
        const known = new Set(read.exports.map(([name]) => name));
        for (const name of answer.names) assert.ok(known.has(name), `${shape.file}: Python binds '${name}', the reader does not know it`);
      }
    }
    assert.ok(compared >= 30, `${compared} graphs compared`);
  });
});

describe('the reader against CPython on modules put together from pieces (fast-check, a fixed seed)', () => {
  const head = [
    'from tenxgraph.core.graph import Agent, StateGraph, ToolNode\n',
    'from tenxgraph.prebuilt.agent import ReactAgent, SupervisorTeamAgent, WorkerConfig\n',
    'from .helpers import summarize\n',
    'def lookup(q):\n    return q\n',
    'async def main_agent(state):\n    return state\n',
    'tools = ToolNode([lookup])\n',
    'graph = StateGraph()\n',
  ].join('');
  const pieces = [
    'graph.add_node("MAIN", main_agent)\n',
    'graph.add_node("TOOL", tools)\n',
    'graph.add_node(lookup)\n',
    'graph.add_node(summarize)\n',
    'graph.add_node("AGENT", Agent(model="m", tool_node="TOOL"))\n',
    'graph.add_node("LAMBDA", lambda s: s)\n',
    'graph.override_node("MAIN", lookup)\n',
    'graph.add_node("C1", lookup).add_node("C2", tools)\n',
    '(graph\n    .add_node("P1", main_agent)\n    .add_node("P2", tools))\n',
    'graph = StateGraph[dict](dict())\n',
    'graph = StateGraph(state=None)\n',
    'if __name__ == "__main__":\n    graph.add_node("SCRIPT", lookup)\n',
    'try:\n    extra = 1\nexcept ImportError:\n    extra = 2\n',
    'for i in range(2):\n    graph.add_node(f"LOOP{i}", lookup)\n',
    'def build():\n    g = StateGraph()\n    g.add_node("F1", lookup)\n    g.add_node("F2", tools)\n    return g.compile()\n',
    'async def abuild():\n    g = StateGraph()\n    g.add_node("A1", main_agent)\n    return g.compile()\n',
    'def builder():\n    g = StateGraph()\n    g.add_node("B1", lookup)\n    return g\n',
    'app = build()\n',
    'app = builder().compile()\n',
    'app = abuild\n',
    'react = ReactAgent(model="m", tools=[lookup])\n',
    'react = ReactAgent(model="m", tools=[], main_node_name="ASSISTANT")\n',
    'app = react.compile()\n',
    'app = ReactAgent(model="m", tools=[lookup], tool_node_name="TOOLS").compile()\n',
    'team = SupervisorTeamAgent(supervisor_model="m", workers={"R": WorkerConfig(agent=Agent(model="m", tool_node=ToolNode([lookup]))), "W": WorkerConfig(agent=Agent(model="m"))})\n',
    'app = team.compile()\n',
    'app = graph.compile()\n',
    'with memoryview(b"") as view:\n    size = len(view)\n',
    'names = [n for n in ("a", "b") if (last := n)]\n',
    'x, (y, *z) = 1, (2, 3, 4)\n',
    'result = await graph.compile().ainvoke({})\n',
    'def waits():\n    await lookup(1)\n',
    'del tools\ntools = ToolNode([lookup])\n',
    'class Holder:\n    def build(self):\n        g = StateGraph()\n        g.add_node("K1", lookup)\n        return g.compile()\n',
    'app = Holder().build()\n',
    'class Tweak:\n    graph.add_node("CLS", lookup)\n',
    'import os; extra = 1\n',
    'graph.add_node("G1", lookup); graph.add_node("G2", tools)\n',
    'app = graph.compile(); ready = True\n',
  ];
  const prefixes = ['', '\n', '# a comment\n', '"""The module."""\n', 'def first(x):\n    return x\n'];

  test('a graph the reader reads has the nodes CPython builds; a module CPython refuses to compile is never read', () => {
    const modules = fc.sample(
      fc
        .tuple(fc.constantFrom(...prefixes), fc.array(fc.constantFrom(...pieces), { maxLength: 10 }))
        // The module's own `app`, or the graph compiled last.
        .map(([prefix, chosen]) => `${prefix}${head}${chosen.join('')}${chosen.some((p) => p.startsWith('app =')) ? '' : 'app = graph.compile()\n'}`),
      { seed: 26, numRuns: 400 },
    );
    const answers = runOracle(modules.map((source) => ({ source, attr: 'app' })));
    const tally = { same: 0, unread: 0, refused: 0, failed: 0 };
    for (const [i, source] of modules.entries()) {
      const module = readPythonModule(source);
      assert.deepEqual(module, readPythonModuleWhole(source), source);
      const read = pythonGraphOf(module, 'app');
      const answer = answers[i];
      if ('error' in answer && answer.error === 'SyntaxError') {
        assert.equal(read.ok, false, `read a module Python refuses (${answer.message}):\n${source}`);
        tally.refused++;
      } else if (!read.ok) tally.unread++;
      // Python failed running it (a name used before its definition, say): nothing to compare.
      else if ('error' in answer) tally.failed++;
      else {
        assert.deepEqual(
          read.graph.nodes.map((n) => n.name),
          answer.nodes.map(([name]) => name),
          source,
        );
        for (const [j, node] of read.graph.nodes.entries()) if (node.kind !== 'unknown') assert.equal(answer.nodes[j][1], node.kind, `${node.name} in\n${source}`);
        tally.same++;
      }
      if (answer.names && module.unread === undefined && module.namesOpen === undefined) {
        const known = new Set(module.exports.map(([name]) => name));
        for (const name of answer.names) assert.ok(known.has(name), `Python binds '${name}', the reader does not know it:\n${source}`);
      }
    }
    // The pieces make every outcome common.
    assert.ok(tally.same > 100 && tally.unread > 20 && tally.refused > 20, JSON.stringify(tally));
  });
});
