import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodePythonString, readPythonGraph, readPythonModule, type PythonGraphRead } from '../../runtime/src/workspace/pythonGraph';
import { ROOT } from '../support/run';

const FIXTURES = join(ROOT, 'test', 'fixtures', 'python');
const readFixture = (name: string, variable = 'app'): PythonGraphRead => readPythonGraph(readFileSync(join(FIXTURES, name), 'utf8'), variable);

function nodesOf(read: PythonGraphRead): Array<[string, string]> {
  assert.ok(read.ok, read.ok ? '' : read.reason);
  assert.equal(read.graph.origin, 'loaded');
  assert.equal(read.graph.toolsKnown, false);
  return read.graph.nodes.map((n) => [n.name, n.kind]);
}

function reasonOf(read: PythonGraphRead): string {
  assert.equal(read.ok, false);
  return read.ok ? '' : read.reason;
}

describe('readPythonGraph', () => {
  test('every add_node form of the template: literal names, add_node(func), a ToolNode through a variable, an Agent, override_node', () => {
    const read = readFixture('react.py');
    assert.deepEqual(nodesOf(read), [
      ['MAIN', 'function_node'],
      ['TOOL', 'tool_node'],
      ['PLANNER', 'model_node'],
      ['INLINE_TOOLS', 'tool_node'],
      ['should_use_tools', 'function_node'],
      // Named after the imported function's own name (`summarize as summarise_answer`); what it is is not known.
      ['summarize', 'unknown'],
      // override_node replaces the lambda by a function: one node, the new kind.
      ['LAMBDA', 'function_node'],
    ]);
    assert.ok(read.ok);
    assert.equal(read.graphVariable, 'graph');
    assert.deepEqual(
      read.sites.map((s) => `${s.method} ${s.name} ${s.line}:${s.column}`),
      [
        'add_node MAIN 22:7',
        'add_node TOOL 23:7',
        'add_node PLANNER 24:7',
        'add_node INLINE_TOOLS 25:7',
        'add_node should_use_tools 26:7',
        'add_node summarize 27:7',
        'add_node LAMBDA 28:7',
        'override_node LAMBDA 29:7',
      ],
    );
  });

  test('a chain on tenxgraph.StateGraph() compiled in one expression: add_node returns the graph', () => {
    const read = readFixture('chained.py');
    assert.deepEqual(nodesOf(read), [
      ['A', 'function_node'],
      ['TOOL', 'tool_node'],
    ]);
    assert.ok(read.ok);
    assert.deepEqual(
      read.sites.map((s) => `${s.line}:${s.column}`),
      ['11:30', '11:50'],
    );
  });

  test('unicode node names, escapes and joined literals are read as Python reads them', () => {
    assert.deepEqual(nodesOf(readFixture('unicode.py')), [
      ['Étape_🙂', 'function_node'],
      ['ÉTAPE_😀', 'function_node'],
      ['OUTILS_日本', 'tool_node'],
    ]);
    assert.equal(decodePythonString(String.raw`r'\n'`), '\\n');
    assert.equal(decodePythonString(`'''a"b'''`), 'a"b');
    assert.equal(decodePythonString(String.raw`'\x41\101\t'`), 'AA\t');
    assert.equal(decodePythonString(`f'x'`), undefined);
    assert.equal(decodePythonString(`b'x'`), undefined);
    assert.equal(decodePythonString(String.raw`'\N{BULLET}'`), undefined);
  });

  const unread: Array<[string, RegExp]> = [
    ['computed.py', /^add_node\(\) at 7:1 has a name that is not a string literal \(f"WORKER_\{i\}"\); its nodes cannot be read exactly$/],
    ['loop.py', /^add_node\(\) at 6:5 is in a loop; its nodes cannot be read exactly$/],
    ['function.py', /^add_node\(\) at 7:5 is in a function body; its nodes cannot be read exactly$/],
    ['passed.py', /^the graph 'graph' is passed to add_extra_nodes\(\) at 6:1 before compile\(\), and what that call does to it is not known; its nodes cannot be read exactly$/],
    ['imported.py', /^the graph 'graph' is imported from '\.builder' at 1:22; the graph is built in another module$/],
    // A syntax error anywhere: Python would not import the module, so nothing of it is judged.
    ['syntax_error.py', /^syntax error at 6:5; Python cannot import the module either$/],
  ];
  for (const [file, reason] of unread) {
    test(`${file} is not read, and says why and where`, () => {
      assert.match(reasonOf(readFixture(file)), reason);
    });
  }

  test('a chain of calls: read in one expression up to the limit of the parser; past it, said so, not called a syntax error', () => {
    const chain = (n: number) =>
      `from tenxgraph.core.graph import StateGraph\n\ndef step(s):\n    return s\n\napp = (\n    StateGraph()\n${Array.from({ length: n }, (_, i) => `    .add_node("S${i}", step)  # ).x\n`).join('')}    .compile()\n)\n`;
    const short = readPythonGraph(chain(100), 'app');
    assert.ok(short.ok, short.ok ? '' : short.reason);
    assert.equal(short.graph.nodes.length, 100);
    assert.equal(
      reasonOf(readPythonGraph(chain(200), 'app')),
      'the statement at 6:1 chains 201 calls, more than this reader follows in one expression (about 130); add the nodes in statements of their own',
    );
  });

  test("statements joined by ';' bind each of their names, as Python runs them", () => {
    const source =
      'from tenxgraph.core.graph import StateGraph\nimport os; graph = StateGraph()\ngraph.add_node("MAIN", f); graph.add_node("TOOL", g)\napp = graph.compile(); print("compiled")\n';
    assert.deepEqual(nodesOf(readPythonGraph(source, 'app')), [
      ['MAIN', 'unknown'],
      ['TOOL', 'unknown'],
    ]);
    assert.deepEqual(
      readPythonModule('import os; container = object()\n').exports.map(([name]) => name),
      ['os', 'container'],
    );
  });

  test('a UTF-8 byte order mark is no part of the first name (Python decodes it away); offsets stay those of the text', () => {
    assert.deepEqual(
      readPythonModule('\ufeffstore = object()\n').exports.map(([name]) => name),
      ['store'],
    );
    const read = readPythonGraph('\ufefffrom tenxgraph.core.graph import StateGraph\ngraph = StateGraph()\ngraph.add_node("MAIN", f)\napp = graph.compile()\n', 'app');
    assert.ok(read.ok, read.ok ? '' : read.reason);
    assert.deepEqual(
      read.graph.nodes.map((n) => n.name),
      ['MAIN'],
    );
  });

  test('a reason quotes what was found on one line, cut between code points', () => {
    const reason = reasonOf(readPythonGraph(`app = foo("${'a'.repeat(54)}😀😀😀")\n`, 'app'));
    assert.equal(reason, `'app' is assigned at 1:1 from 'foo("${'a'.repeat(54)}…', not from a StateGraph's compile()`);
    assert.doesNotMatch(reason, /[\ud800-\udbff](?![\udc00-\udfff])/);
    assert.equal(reasonOf(readPythonGraph('app = make(\n    1,\n    2)\n', 'app')), "'app' is assigned at 1:1 from 'make( 1, 2)', not from a StateGraph's compile()");
  });

  test('a variable that is not a compiled graph, or no such variable', () => {
    assert.match(reasonOf(readFixture('react.py', 'graph')), /^'graph' is a StateGraph that is not compiled: assign graph\.compile\(\) to it$/);
    assert.match(reasonOf(readFixture('react.py', 'tool_node')), /^'tool_node' is not the result of a StateGraph's compile\(\)$/);
    assert.match(reasonOf(readFixture('react.py', 'nothing')), /^no top-level 'nothing' is assigned in the module$/);
  });

  test('a chain that goes on after a method whose result is not known is not read', () => {
    const source = 'from tenxgraph.core.graph import StateGraph\ngraph = StateGraph()\ngraph.add_edge("A", "B").add_node("C", f)\napp = graph.compile()\n';
    assert.match(reasonOf(readPythonGraph(source, 'app')), /^add_node\(\) at 3:1 is chained after add_edge\(\), whose result is not known/);
  });

  test('a 500 KB module is read whole; a module over 1 MB is not parsed', () => {
    const lines = ['from tenxgraph.core.graph import StateGraph, ToolNode', 'tools = ToolNode([])', 'graph = StateGraph()'];
    let size = 0;
    for (let i = 0; size < 500 * 1024; i++) {
      const line = `def step_${i}(state, config):\n    return {"value": ${i}, "text": "${'x'.repeat(40)}"}\n\ngraph.add_node("STEP_${i}", step_${i})`;
      lines.push(line);
      size += line.length;
    }
    lines.push('graph.add_node("TOOL", tools)', 'app = graph.compile()', '');
    const source = lines.join('\n');
    const read = readPythonGraph(source, 'app');
    assert.ok(read.ok, read.ok ? '' : read.reason);
    assert.equal(read.graph.nodes.length, lines.length - 5);
    assert.equal(read.graph.nodes.at(-1)?.kind, 'tool_node');
    assert.match(reasonOf(readPythonGraph(source + ' '.repeat(1024 * 1024), 'app')), /^the module is larger than 1 MB and is not parsed$/);
  });

  test('brackets nested deeper than Python allows: not parsed (the parser would exhaust the stack), said with their place', () => {
    const source = `from tenxgraph.core.graph import StateGraph\ngraph = StateGraph()\nx = ${'('.repeat(20000)}1${')'.repeat(20000)}\ngraph.add_node("A", f)\napp = graph.compile()\n`;
    // Twenty times: the stack a parse would take depends on what the engine has compiled by then.
    for (let i = 0; i < 20; i++)
      assert.deepEqual(readPythonGraph(source, 'app'), {
        ok: false,
        reason: 'brackets nested deeper than 200 at 3:205; Python cannot import the module either (too many nested parentheses)',
      });
  });
});
