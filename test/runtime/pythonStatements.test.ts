// The Python reader parses only the statements that can touch a graph and reads the other
// definitions by their names (runtime/src/workspace/pythonStatements.ts): its answers must be
// those of a parse of the whole module, which these tests hold it to on the fixtures, on modules
// built to cut statements wrongly, and on many modules put together from pieces.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readPythonGraph, readPythonModule, readPythonModuleWhole } from '../../runtime/src/workspace/pythonGraph';
import { type NodeCall, topLevelStatements, type TopLevelStatement } from '../../runtime/src/workspace/pythonStatements';
import { ROOT } from '../support/run';

const FIXTURES = join(ROOT, 'test', 'fixtures', 'python');

function statementsOf(source: string): TopLevelStatement[] {
  const layout = topLevelStatements(source);
  assert.ok('statements' in layout, JSON.stringify(layout));
  return layout.statements;
}

/** Each statement as its text, with `name (kind)` for a definition read by its header. */
function layoutOf(source: string): string[] {
  return statementsOf(source).map((s) => (s.definition ? `${s.definition.kind} ${s.definition.name}: ` : '') + source.slice(s.from, s.to));
}

function assertSameAsWhole(source: string, label: string): void {
  assert.deepEqual(readPythonModule(source), readPythonModuleWhole(source), label);
}

describe('topLevelStatements', () => {
  test('a statement runs to the next one at column 0; decorators and else/except clauses belong to it', () => {
    const source = [
      'import a',
      '# a comment',
      '',
      '@decorate(1)',
      '@other',
      'async def run(x):',
      '    return x',
      '',
      'if a:',
      '    def f(): pass',
      'else:',
      '    pass',
      'try:',
      '    import b',
      'except ImportError:',
      '    b = None',
      'finally :',
      '    pass',
      'class Plan[T]:',
      '    pass',
      'class Step: pass',
      'def 日本(s): pass',
      'elsewhere = 1',
      '',
    ].join('\n');
    assert.deepEqual(layoutOf(source), [
      'import a\n# a comment\n\n',
      'function run: @decorate(1)\n@other\nasync def run(x):\n    return x\n\n',
      'if a:\n    def f(): pass\nelse:\n    pass\n',
      'try:\n    import b\nexcept ImportError:\n    b = None\nfinally :\n    pass\n',
      'class Plan: class Plan[T]:\n    pass\n',
      'class Step: class Step: pass\n',
      'function 日本: def 日本(s): pass\n',
      'elsewhere = 1\n',
    ]);
  });

  test('strings, brackets, comments and continuations that reach column 0 do not start a statement', () => {
    const source = [
      'def f():',
      '    text = """',
      'def fake(): pass',
      "graph.add_node('FAKE', f)",
      '"""',
      "    other = 'it''s # not a comment'",
      '    values = [',
      '1, 2,',
      ']',
      '    total = 1 + \\',
      '2',
      '    return (text,  # a comment with a quote: "',
      ')',
      'x = 1',
    ].join('\n');
    assert.deepEqual(
      statementsOf(source).map((s) => [s.definition?.name, source.slice(s.from, s.to).split('\n').length]),
      [
        ['f', 14],
        [undefined, 1],
      ],
    );
  });

  test('CRLF, lone CR and form feeds', () => {
    assert.deepEqual(layoutOf('def a():\r\n    pass\r\n\r\nb = 1\r\n'), ['function a: def a():\r\n    pass\r\n\r\n', 'b = 1\r\n']);
    assert.deepEqual(layoutOf('def a():\r    pass\rb = 1\r'), ['function a: def a():\r    pass\r', 'b = 1\r']);
    assert.deepEqual(layoutOf('x = 1\n\fdef a(): pass\n'), ['x = 1\n', 'function a: \fdef a(): pass\n']);
  });

  test('the plainest add_node and override_node calls are read without a parse; anything else is left to it', () => {
    const source = [
      'graph.add_node("A", step)',
      "graph.add_node( r'B' , tools )  # c",
      'graph.add_node(step)',
      'graph.override_node("A", other)',
      'graph.add_node("C", step, x)',
      'graph.add_node("D", None)',
      'graph.add_node(f"E", step)',
      'graph.add_node("F", step); x = 1',
      'graph.add_node("G",',
      '    step)',
      'graph.override_node(step)',
      'graph . add_node("H", step)',
      'graph.add_node("I", étape)',
      'graph.add_node("J", a).override_node("J", b)',
      '(',
      '    graph  # the graph',
      '    .add_node("K", a)',
      '',
      '    .add_node(b)',
      ')',
      '(graph)',
      'graph.add_node("L", a).compile()',
      '(graph.add_node("M", a)',
      '    .add_node("N", b,',
      '              c))',
      '',
    ].join('\n');
    const shown = (call: NodeCall) => `${call.receiver}${call.links.map((l) => `.${l.method}(${l.args.map((a) => `${a.kind}:${a.text}`).join(', ')})`).join('')}`;
    assert.deepEqual(
      statementsOf(source).map((s) => (s.nodeCall ? shown(s.nodeCall) : '-')),
      [
        'graph.add_node(string:"A", name:step)',
        "graph.add_node(string:r'B', name:tools)",
        'graph.add_node(name:step)',
        'graph.override_node(string:"A", name:other)',
        '-',
        '-',
        '-',
        '-',
        '-',
        '-',
        '-',
        '-',
        'graph.add_node(string:"J", name:a).override_node(string:"J", name:b)',
        'graph.add_node(string:"K", name:a).add_node(name:b)',
        '-',
        '-',
        '-',
      ],
    );
    const call = statementsOf(source)[1].nodeCall!;
    assert.deepEqual(
      [call.receiverFrom, call.links[0].methodFrom, call.links[0].args[0].from, call.links[0].args[0].to],
      [source.indexOf("graph.add_node( r'B'"), source.indexOf('add_node( r'), source.indexOf("r'B'"), source.indexOf("r'B'") + 4],
    );
    const chained = statementsOf(source)[13].nodeCall!;
    assert.deepEqual([chained.receiverFrom, chained.links[1].methodFrom], [source.indexOf('graph  # the graph'), source.indexOf('add_node(b)')]);
  });

  test('what is not a plain definition header is not read by name', () => {
    assert.deepEqual(layoutOf('def (x): pass\ndef 1a(): pass\ndefine = 1\nclass\tC(B): pass\n'), [
      'def (x): pass\n',
      'def 1a(): pass\n',
      'define = 1\n',
      'class C: class\tC(B): pass\n',
    ]);
    // Indented text before any statement is kept for the parse to report.
    assert.deepEqual(layoutOf('  x = 1\ny = 2\n'), ['  x = 1\n', 'y = 2\n']);
  });

  test('a string or a bracket open at the end, and brackets nested deeper than Python allows', () => {
    assert.deepEqual(topLevelStatements('def f():\n    """never closed\n'), { open: true });
    assert.deepEqual(topLevelStatements('x = [1,\n'), { open: true });
    assert.deepEqual(topLevelStatements(`x = ${'('.repeat(200)}1${')'.repeat(200)}\n`).hasOwnProperty('statements'), true);
    assert.deepEqual(topLevelStatements(`x = ${'('.repeat(201)}1${')'.repeat(201)}\n`), { tooDeep: 4 + 200 });
  });
});

describe('readPythonModule reads as a parse of the whole module does', () => {
  test('on every fixture', () => {
    const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.py'));
    assert.ok(files.length >= 9);
    for (const file of files) assertSameAsWhole(readFileSync(join(FIXTURES, file), 'utf8'), file);
    assertSameAsWhole(readFileSync(join(ROOT, 'examples', 'python', 'graph', 'react.py'), 'utf8'), 'examples/python/graph/react.py');
  });

  test('on definitions that touch the graph, or are named like it, or hide it in strings', () => {
    const head = 'from tenxgraph.core.graph import StateGraph, ToolNode\ngraph = StateGraph()\n';
    const tail = 'graph.add_node("A", step)\napp = graph.compile()\n';
    const cases: Record<string, string> = {
      'a def that adds a node': `${head}def step(s):\n    graph.add_node("B", step)\n${tail}`,
      'a def passed the graph in an f-string': `${head}def step(s):\n    return f"{graph}"\n${tail}`,
      'the graph only in a docstring and a comment': `${head}def step(s):\n    """Adds to graph."""\n    return s  # graph\n${tail}`,
      'a def named like the graph': `${head}def step(s): pass\ndef graph(): pass\n${tail}`,
      'a def before the graph that uses its name': `from tenxgraph.core.graph import StateGraph\ndef step(s):\n    return graph\ngraph = StateGraph()\n${tail}`,
      'a class used as a node': `${head}class step:\n    pass\n${tail}`,
      'a decorated function': `${head}@tool\n@other(graph=1)\ndef step(s): pass\n${tail}`,
      'many names bound to graphs': `${head}def step(s): pass\n${Array.from({ length: 40 }, (_, i) => `g${i} = graph.compile()\n`).join('')}${tail}`,
      'a graph built in a function called later': `${head}def build():\n    graph.add_node("X", step)\n    return graph\ndef step(s): pass\n${tail}`,
    };
    for (const [label, source] of Object.entries(cases)) assertSameAsWhole(source, label);
    // A name in a docstring or a comment is no use of the graph: the definition is read by its name alone.
    const read = readPythonGraph(cases['the graph only in a docstring and a comment'], 'app');
    assert.ok(read.ok);
    assert.deepEqual(read.graph.nodes, [{ name: 'A', kind: 'function_node' }]);
  });

  test('on modules put together from pieces (fast-check, a fixed seed)', () => {
    const pieces = [
      'import os\n',
      'tools = ToolNode([lookup])\n',
      'def lookup(q):\n    """Looks q up."""\n    return os.environ.get(q, "")\n',
      '@decorate\ndef planner(state):\n    return {"plan": [\n1, 2]}\n',
      'async def main_agent(state, config):\n    return state\n',
      'class Memory:\n    def read(self):\n        return "graph"\n',
      'graph.add_node("MAIN", main_agent)\n',
      'graph.add_node("TOOL", tools)\n',
      'graph.add_node(planner)\n',
      'graph.add_node("AGENT", Agent(model="m"))\n',
      'graph.override_node("MAIN", planner)\n',
      'def helper():\n    graph.add_node("HIDDEN", lookup)\n',
      'if os.environ.get("X"):\n    graph.add_node("MAYBE", lookup)\nelse:\n    pass\n',
      'TEXT = """\ndef fake(): pass\ngraph.add_node("FAKE", lookup)\n"""\n',
      'graph = StateGraph()\n',
      '# graph.add_node("COMMENTED", lookup)\n',
      'x = (1,\n2)  # ")"\n',
      'total = 1 + \\\n    2\n',
      'def planner(s): return s\r\n',
      // Plain node calls, read without a parse, and near misses that are parsed.
      'graph.add_node( "SPACED" , lookup )  # a comment\n',
      "graph.add_node(r'RAW\\n', lookup)\n",
      "graph.add_node('QUOTE\\'S', tools)\n",
      'graph.add_node("\\N{BULLET}", lookup)\n',
      'graph.add_node("NONE", None)\n',
      'graph.add_node("PASSED", graph)\n',
      'graph.add_node(unknown_function)\n',
      'graph.add_node("A", lookup, "extra")\n',
      'graph.override_node(planner)\n',
      'other.add_node("ELSEWHERE", lookup)\n',
      'app.override_node("MAIN", lookup)\n',
      'app.add_node("LATE", lookup)\n',
      '(graph\n    .add_node("PAREN", lookup))\n',
      'graph.add_node("C1", lookup).add_node("C2", tools)\n',
      '(\n    graph  # chained\n    .add_node("C3", planner)\n\n    .override_node("C3", lookup)\n)\n',
      '(graph\n    .add_node("C4", graph))\n',
      '(app\n    .add_node("C5", lookup))\n',
      '(graph\n    .add_node(unknown_function))\n',
      'app = (\n    graph  # the graph\n    .compile()\n)\n',
      'graph.add_node("SEMI", lookup); x = 1\n',
      'graph.add_node("INDENTED", lookup)\n    y = 2\n',
      'from .helpers import summarize\ngraph.add_node(summarize)\n',
      'graph.add_node("ÉTAPE", lookup)\n',
      'graph.add_node(f"F_{1}", lookup)\n',
      'app = graph.compile()\n',
      // Factories, prebuilt agents, names bound in blocks, what Python refuses.
      'def build():\n    g = StateGraph()\n    g.add_node("F", lookup)\n    return g.compile()\n',
      'async def build():\n    g = StateGraph()\n    return g\n',
      'factory_app = build()\n',
      'react = ReactAgent(model="m", tools=[lookup])\n',
      'app = react.compile()\n',
      'try:\n    app = graph.compile()\nexcept ImportError:\n    pass\n',
      'if __name__ == "__main__":\n    graph.add_node("SCRIPT", lookup)\n',
      'def waits():\n    await something()\n',
      'result = await app.ainvoke({})\n',
      'with open("x") as handle:\n    graph = StateGraph()\n',
      'graph = StateGraph[dict](dict())\n',
    ];
    // What comes before the graph: the partial parse must place every text where it is.
    const prefixes = ['', '\n', '# a comment\n\n', '"""The module."""\n', 'def first(x):\n    return x\n', '\n\ndef first(x):\n    return x\n\n'];
    let read = 0;
    fc.assert(
      fc.property(fc.constantFrom(...prefixes), fc.array(fc.constantFrom(...pieces), { maxLength: 14 }), (prefix, chosen) => {
        const source = `${prefix}from tenxgraph.core.graph import StateGraph, ToolNode, Agent\nfrom tenxgraph.prebuilt.agent import ReactAgent\ngraph = StateGraph()\n${chosen.join('')}app = graph.compile()\n`;
        assert.deepEqual(readPythonModule(source), readPythonModuleWhole(source));
        if (readPythonGraph(source, 'app').ok) read++;
      }),
      { seed: 20, numRuns: 400 },
    );
    // The pieces make both outcomes common: graphs read exactly and graphs that are not.
    assert.ok(read > 30 && read < 360, `${read} of 400 read`);
  });

  test('a module that opens with a blank line, a def and an inline Agent: texts and positions where they are', () => {
    const source = '\nfrom m import Agent, StateGraph\ndef f(x):\n    return x\ngraph = StateGraph()\ngraph.add_node("MAIN", Agent(model="x"))\napp = graph.compile()\n';
    assertSameAsWhole(source, 'a blank line first');
    assert.deepEqual(
      readPythonModule(source).exports.map(([name]) => name),
      ['Agent', 'StateGraph', 'f', 'graph', 'app'],
    );
    const app = readPythonGraph(source, 'app');
    assert.ok(app.ok);
    assert.deepEqual(
      app.sites.map((s) => `${s.name} ${s.line}:${s.column} ${source.slice(s.nameOffset, s.nameOffset + s.nameLength)}`),
      ['MAIN 6:7 "MAIN"'],
    );
  });
  test('a syntax error in a definition read by its name alone is not seen (Python would refuse the module at import)', () => {
    const source = 'from tenxgraph.core.graph import StateGraph\ngraph = StateGraph()\ndef step(s):\n    return (s]\ngraph.add_node("A", step)\napp = graph.compile()\n';
    assert.equal(readPythonGraph(source, 'app').ok, true);
    assert.match(readPythonModuleWhole(source).unread ?? '', /^syntax error at 4:/);
  });
});
