// The project's one JS/TS source reader (runtime/src/workspace/sourceAnalysis.ts), as the language
// server's index and `10xgraph audit --project` use it: names and ranges of handlers and nodes,
// node kinds, a file being typed, and inputs built to make a careless reader quadratic (the hang
// guard is the test's own time-out; nothing here times the reader).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeSource, isSourcePath } from '../../runtime/src/workspace/sourceAnalysis';

const names = (text: string) => analyzeSource(text).handlers.map((h) => h.name ?? null);

describe('the source reader', () => {
  test('reads literal handler names on any receiver, and keeps a computed one as such', () => {
    assert.deepEqual(
      names(
        "c.registerToolHandler('a', h); c?.registerToolHandler(\"b\", h); c['registerToolHandler'](`c`, h); c.registerToolHandler?.('d', h); c.registerToolHandler(`e${x}`, h); c.registerToolHandler(NAME, h);",
      ),
      ['a', 'b', 'c', 'd', null, null],
    );
  });

  test('skips what is not code: comments, strings, regular expressions and template text', () => {
    assert.deepEqual(
      names(
        "// c.registerToolHandler('a', h)\n/* c.registerToolHandler('b', h) */\nconst s = \"c.registerToolHandler('c', h)\";\nconst r = /registerToolHandler('d'/;\nconst t = `c.registerToolHandler('e', h)`;\n",
      ),
      [],
    );
  });

  test('the range of a name is the literal with its quotes, and its inner text is exact only without escapes', () => {
    const text = "c.registerToolHandler('read_clipboard', h);\nc.registerToolHandler('a\\u0062', h);";
    const [plain, escaped] = analyzeSource(text).handlers;
    assert.equal(text.slice(plain.offset, plain.offset + plain.length), "'read_clipboard'");
    assert.equal(text.slice(plain.inner!.offset, plain.inner!.offset + plain.inner!.length), 'read_clipboard');
    assert.equal(plain.exact, true);
    assert.deepEqual([escaped.name, escaped.exact, escaped.line], ['ab', false, 1]);
  });

  test('a call left open while typing still counts, and the file says it does not parse', () => {
    const facts = analyzeSource("client.registerToolHandler('read_clipboard', () => {\n  const x = ;\n  if (x {\n");
    assert.deepEqual(
      facts.handlers.map((h) => h.name),
      ['read_clipboard'],
    );
    assert.match(facts.syntaxError ?? '', /not closed \(line 1\)/);
  });

  test('the forms of @10xscale/agentflow-client: through a React ref, a const, a spread, a parameter', () => {
    const text = [
      "const weatherTool = { node: 'TOOL', name: 'get_weather', handler: async () => ({}) };",
      'client.registerTool(weatherTool);',
      'client.registerToolHandler(weatherTool.name, weatherTool.handler);',
      "client.current.registerTool({ node: 'TOOL', name: 'pick_color', handler });",
      "clientRef.current?.registerTool({ name: 'read_clipboard', handler });",
      "client.registerTool({ ...weatherTool, name: 'get_forecast' });",
      'client.registerTool({ ...weatherTool });',
      "client.registerTool({ name: 'x', ...weatherTool });",
      'function registerOne(client, tool) { client.registerTool(tool); }',
      'for (const t of tools) client.registerTool({ name: t.name, handler: t.handler });',
      'client.registerTool({ name, handler });',
    ].join('\n');
    const handlers = analyzeSource(text).handlers;
    assert.deepEqual(
      handlers.map((h) => h.name ?? null),
      // `weatherTool` registered twice is one name at the place its const gives it.
      ['get_weather', 'pick_color', 'read_clipboard', 'get_forecast', null, null, null, null, null],
    );
    assert.equal(text.slice(handlers[0].offset, handlers[0].offset + handlers[0].length), "'get_weather'");
    assert.equal(handlers[0].line, 0);
    // A computed name's site is the argument itself.
    assert.equal(text.slice(handlers[4].offset, handlers[4].offset + handlers[4].length), '{ ...weatherTool }');
  });

  test('a type assertion inside a registration is part of it: only one at the end is taken off', () => {
    assert.deepEqual(
      names(
        [
          "client.registerTool({ name: 'a', handler: async () => (navigator as any).getBattery() });",
          "const b: ToolRegistration = { name: 'b', parameters: { type: 'object' as const }, handler: async (): Promise<{ ok: boolean }> => ({ ok: true }) };",
          'client.registerTool(b);',
          "const c = { name: 'c' as const, handler } satisfies ToolRegistration;",
          'client.registerToolHandler(c.name, c.handler);',
          "client.registerTool({ name: 'd', handler } as ToolRegistration);",
          "client.registerToolHandler('e' as const, h);",
          'client.registerTool(tool.as);',
        ].join('\n'),
      ),
      ['a', 'b', 'c', 'd', 'e', null],
    );
  });

  test('a name is read from its binding in the block it is used in, never from another block', () => {
    // Each test declares its own `mockTool` (10xHub/agentflow-client tests/invoke.test.ts).
    const perTest = [
      "it('a', () => { const mockTool = { name: 'first_tool', handler }; client.registerTool(mockTool); });",
      "it('b', () => { const mockTool = { name: 'second_tool', handler }; client.registerTool(mockTool); });",
    ].join('\n');
    assert.deepEqual(names(perTest), ['first_tool', 'second_tool']);
    // A binding of an inner block hides the outer one; one with nothing to follow hides it too.
    assert.deepEqual(names("const NAME = 'outer'; function f() { const NAME = 'inner'; c.registerToolHandler(NAME, h); } c.registerToolHandler(NAME, h);"), ['inner', 'outer']);
    assert.deepEqual(names("const tool = { name: 'x' }; function f(tools) { for (const tool of tools) { c.registerTool(tool); } }"), [null]);
    // Declared below its use in an enclosing block: read; declared in a block the use is outside of: not.
    assert.deepEqual(names("function f() { c.registerTool(tool); }\nconst tool = { name: 'below' };"), ['below']);
    assert.deepEqual(names("function f() { const tool = { name: 'x' }; }\nc.registerTool(tool);"), [null]);
    // Bound twice in one block: which one is meant is not known.
    assert.deepEqual(names("var t = { name: 'a' }; var t = { name: 'b' }; c.registerTool(t);"), [null]);
    // A parameter hides the outer const in its function, whichever way the function is written.
    assert.deepEqual(names("const tool = { name: 'get_weather' }; c.registerTool(tool); function reg(tool) { c.registerTool(tool); }"), ['get_weather', null]);
    assert.deepEqual(names("const tool = { name: 'get_weather' }; c.registerTool(tool); tools.forEach((tool) => c.registerTool(tool));"), ['get_weather', null]);
    assert.deepEqual(names("const tool = { name: 'get_weather' }; c.registerTool(tool); tools.forEach(tool => c.registerTool(tool));"), ['get_weather', null]);
    assert.deepEqual(names("const tool = { name: 'get_weather' }; c.registerTool(tool); const reg = async (tool: Tool): Promise<void> => { c.registerTool(tool); };"), [
      'get_weather',
      null,
    ]);
    assert.deepEqual(names("const name = 'get_weather'; c.registerToolHandler(name, h); class A { r(name) { c.registerToolHandler(name, h); } }"), ['get_weather', null]);
    assert.deepEqual(names("const tool = { name: 'get_weather' }; c.registerTool(tool); try { x(); } catch (tool) { c.registerTool(tool); }"), ['get_weather', null]);
    assert.deepEqual(names("const tool = { name: 'get_weather' }; c.registerTool(tool); function f(opts) { const { tool } = opts; c.registerTool(tool); }"), ['get_weather', null]);
    // A condition's parentheses are no parameter list.
    assert.deepEqual(names("const tool = { name: 'get_weather' }; if (tool) { c.registerTool(tool); }"), ['get_weather']);
    // A `let` assigned again, or its `name` set, holds no known value; a `const` is never assigned again.
    assert.deepEqual(names("let tool = { name: 'get_weather' }; c.registerTool(tool); tool = { name: 'search' }; c.registerTool(tool);"), [null, null]);
    assert.deepEqual(names("let tool = { name: 'get_weather' }; tool.name = 'search'; c.registerTool(tool);"), [null]);
    assert.deepEqual(names("let tool = { name: 'get_weather' }; if (tool == null) {} c.registerTool(tool);"), ['get_weather']);
  });

  test('declarations register nothing; every other JS/TS extension is read', () => {
    assert.equal(isSourcePath('types.d.ts'), false);
    for (const ext of ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs']) assert.equal(isSourcePath(`a${ext}`), true, ext);
  });

  test('inputs built for quadratic time are read in one pass', () => {
    const n = 50_000;
    assert.equal(analyzeSource('('.repeat(n)).handlers.length, 0);
    assert.equal(analyzeSource('c.registerToolHandler('.repeat(n)).handlers.length, n - 1);
    assert.equal(analyzeSource("g.addNode('x', y".repeat(n)).nodes.length, n);
    assert.equal(analyzeSource('`${'.repeat(n)).handlers.length, 0);
    assert.equal(analyzeSource("'".repeat(n) + '\n').handlers.length, 0);
    assert.equal(analyzeSource('const a: ' + 'A<'.repeat(n)).nodes.length, 0);
    // One name bound in many blocks, each registering it: past a bound it is not followed (and no look-up scans every binding).
    const perBlock = analyzeSource("{ const t = { name: 'x', h: (a as any) }; c.registerTool(t); }".repeat(n)).handlers;
    assert.equal(perBlock.length, n);
    assert.ok(perBlock.every((h) => h.name === undefined));
    assert.equal(analyzeSource('c.registerTool({ h: ' + '(a as b), '.repeat(n) + "name: 'x' })").handlers[0].name, 'x');
    // One long initializer named by many registrations is followed once, not once a registration.
    const sum = analyzeSource(`const N = ${Array.from({ length: n }, (_, i) => `a${i}`).join('+')};\n` + 'c.registerToolHandler(N, h);\n'.repeat(n)).handlers;
    assert.equal(sum.length, n);
    assert.ok(sum.every((h) => h.name === undefined));
    const wide = analyzeSource(`const t = {${Array.from({ length: n }, (_, i) => ` p${i}: 1,`).join('')} name: 'x' };\n` + 'c.registerTool(t);\n'.repeat(n)).handlers;
    assert.deepEqual(
      wide.map((h) => h.name),
      ['x'],
    );
  });
});
