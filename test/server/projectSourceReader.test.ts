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
  });
});
