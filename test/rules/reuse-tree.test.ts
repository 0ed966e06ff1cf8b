// The rule set reuses the tree of a document's previous text for an edit inside one string value
// (`reuseTree`, `AuditOptions.previous`). The reused tree must be the tree a parse builds, node for
// node, and the problems the same as without it: the editor and `10xgraph audit` agree.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { analyzeConfig } from '../../runtime/src/rules';
import { parseTree, reuseTree, type Tree } from '../../runtime/src/rules/tree';
import { configFiles } from './helpers';

const CORPUS = join(__dirname, '..', 'fixtures', 'corpus');
const FILES = readdirSync(CORPUS)
  .filter((name) => name.endsWith('.json'))
  .map((name) => readFileSync(join(CORPUS, name), 'utf8'));

const CONFIG = `{
  "agent": "graph:app",
  "remote_tools": [
    {
      "name": "get_user_location",
      "description": "Read the position of the user's device.",
      "node": "TOOL",
      "parameters": { "type": "object", "properties": { "accuracy": { "type": "string", "description": "How close." } } }
    },
    { "name": "copy", "description": "Copy \\"text\\" to the clipboard.", "node": "TOOL", "parameters": { "type": "object" } }
  ]
}
`;

function treeOf(text: string): Tree {
  const parsed = parseTree(text);
  assert.ok(parsed.ok, `the text parses: ${text}`);
  return parsed.tree;
}

/** Every array of the two trees over their nodes, and their repeated keys. */
function assertSameTree(actual: Tree, expected: Tree): void {
  assert.equal(actual.text, expected.text);
  assert.equal(actual.count, expected.count);
  for (const field of ['kind', 'start', 'end', 'parent', 'first', 'next', 'escaped'] as const) {
    assert.deepEqual([...actual[field].subarray(0, actual.count)], [...expected[field].subarray(0, expected.count)], `${field} differs`);
  }
  assert.deepEqual(actual.repeatedKeys, expected.repeatedKeys);
}

/** `text` with `[offset, offset + remove)` replaced by `insert`. */
const edit = (text: string, offset: number, remove: number, insert: string) => text.slice(0, offset) + insert + text.slice(offset + remove);

describe('reuseTree', () => {
  test('a keystroke inside a description reuses the tree, moved', () => {
    const before = treeOf(CONFIG);
    const at = CONFIG.indexOf("user's device") + 5;
    for (const [remove, insert] of [
      [0, 'x'],
      [1, ''],
      [3, 'é📋'],
      [0, ' \u2028 '],
    ] as const) {
      const text = edit(CONFIG, at, remove, insert);
      const reused = reuseTree(before, text);
      assert.ok(reused, `${JSON.stringify(insert)} for ${remove} characters is reused`);
      assert.notEqual(reused, before);
      assertSameTree(reused, treeOf(text));
      // The earlier tree is left as it was.
      assertSameTree(before, treeOf(CONFIG));
    }
  });

  test('an edit at either end of a string value, or emptying it, reuses the tree', () => {
    const before = treeOf(CONFIG);
    const value = CONFIG.indexOf('"TOOL"');
    for (const text of [edit(CONFIG, value + 1, 0, 'MY_'), edit(CONFIG, value + 5, 0, '_2'), edit(CONFIG, value + 1, 4, '')]) {
      const reused = reuseTree(before, text);
      assert.ok(reused);
      assertSameTree(reused, treeOf(text));
    }
  });

  test('the same text gives back the same tree', () => {
    const before = treeOf(CONFIG);
    assert.equal(reuseTree(before, CONFIG), before);
  });

  test('any other edit is left to the parser', () => {
    const before = treeOf(CONFIG);
    const inDescription = CONFIG.indexOf("user's device");
    const cases: Array<[string, string]> = [
      ['a key', edit(CONFIG, CONFIG.indexOf('"agent"') + 2, 0, 'x')],
      ['a quote', edit(CONFIG, inDescription, 0, '"')],
      ['a backslash', edit(CONFIG, inDescription, 0, '\\n')],
      ['a control character', edit(CONFIG, inDescription, 0, '\t')],
      ['a line break', edit(CONFIG, inDescription, 0, '\n')],
      ['a string with escapes', edit(CONFIG, CONFIG.indexOf('Copy') + 1, 0, 'x')],
      ['over the closing quote', edit(CONFIG, CONFIG.indexOf('device.') + 7, 2, '')],
      ['between tokens', edit(CONFIG, CONFIG.indexOf('"node"') - 1, 0, ' ')],
      ['a number or keyword', edit(CONFIG, CONFIG.indexOf('{'), 1, '[')],
      ['two strings at once', edit(edit(CONFIG, CONFIG.indexOf('device'), 1, 'D'), CONFIG.indexOf('clipboard'), 1, 'C')],
    ];
    for (const [what, text] of cases) assert.equal(reuseTree(before, text), undefined, what);
  });
});

/** Where the characters of each string of `tree` lie: [after the opening quote, before the closing one]. */
function stringInteriors(tree: Tree | undefined): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  if (!tree) return out;
  for (let node = 0; node < tree.count; node++) if (tree.type(node) === 'string') out.push([tree.start[node]! + 1, tree.end[node]! - 1]);
  return out;
}

describe('analyzeConfig with the previous analysis', () => {
  /** Characters an edit is made of: plain ones and every one that ends or escapes a string. */
  const piece = fc
    .array(fc.constantFrom('a', 'Z', ' ', '_', 'é', '📋', '\ud83d', '"', '\\', '\n', '\t', ',', ':', '{', '}', '[', ']', '1'), { maxLength: 4 })
    .map((parts) => parts.join(''));
  const corpusText = fc.constantFrom(CONFIG, ...FILES);

  test('gives the problems and config of a fresh audit, for random edits of the corpus', () => {
    let reusedCount = 0;
    fc.assert(
      fc.property(corpusText, fc.boolean(), fc.double({ min: 0, max: 1, noNaN: true }), fc.nat({ max: 3 }), piece, (text, inString, where, remove, insert) => {
        const previous = analyzeConfig(text);
        // Half the edits fall between the quotes of a string (where the tree can be reused), half anywhere.
        const strings = inString ? stringInteriors(previous.flatTree) : [];
        const [from, to] = strings.length ? strings[Math.min(strings.length - 1, Math.floor(where * strings.length))]! : [0, text.length];
        const offset = Math.min(to, from + (Math.floor(where * 997) % (to - from + 1)));
        const next = edit(text, offset, remove, insert);
        const fresh = analyzeConfig(next);
        const incremental = analyzeConfig(next, { previous });
        assert.deepEqual(incremental.problems, fresh.problems);
        assert.deepEqual(incremental.config, fresh.config);
        if (previous.flatTree) {
          const reused = reuseTree(previous.flatTree, next);
          if (reused) {
            reusedCount++;
            assertSameTree(reused, fresh.flatTree!);
          }
        }
      }),
      { numRuns: 1500, seed: 20261201 },
    );
    // The property held for edits that did reuse the tree, not only for those that parsed again.
    assert.ok(reusedCount > 100, `only ${reusedCount} edits reused the tree`);
  });

  test('typing a description character by character agrees with a fresh audit at every step', () => {
    let text = CONFIG;
    let previous = analyzeConfig(text);
    const at = CONFIG.indexOf('device.') + 6;
    for (const ch of ' and its heading, in degrees; blank until known') {
      text = edit(text, at + (text.length - CONFIG.length), 0, ch);
      const next = analyzeConfig(text, { previous });
      assert.deepEqual(next.problems, analyzeConfig(text).problems);
      previous = next;
    }
    // Emptying the description: the blank-field problem comes back through the reused tree too.
    const start = text.indexOf('"Read the') + 1;
    const end = text.indexOf('"', start);
    const blank = edit(text, start, end - start, '');
    const judged = analyzeConfig(blank, { previous });
    assert.ok(reuseTree(previous.flatTree!, blank));
    assert.deepEqual(judged.problems, analyzeConfig(blank).problems);
    assert.ok(judged.problems.some((p) => p.code === 'blank-field'));
  });

  test('typing the values of settings agrees with a fresh audit at every step, with the files known', () => {
    const files = configFiles({ exists: ['.env', 'graph/__init__.py'], env: { '.env': ['REDIS_URL'] } });
    const settings = `{
  "agent": "graph:app",
  "env": "",
  "injectq": "",
  "auth": "",
  "rate_limit": { "by": "", "backend": "redis", "redis": "", "requests": "" },
  "observability": { "level": "", "logfire": { "enabled": "" } }
}
`;
    let text = settings;
    let previous = analyzeConfig(text, { files });
    const seen = new Set<string>();
    for (const [key, typed] of [
      ['"env": "', '.env'],
      ['"injectq": "', 'graph.deps:container'],
      ['"auth": "', 'JWT'],
      ['"by": "', 'IP'],
      ['"redis": "', '${REDIS_URL}'],
      ['"requests": "', '1_00'],
      ['"level": "', 'FULL'],
      ['"enabled": "', 'false'],
    ] as const) {
      for (const ch of typed) {
        const at = text.indexOf(key) + key.length;
        const end = text.indexOf('"', at);
        text = edit(text, end, 0, ch);
        const next = analyzeConfig(text, { previous, files });
        assert.deepEqual(next.problems, analyzeConfig(text, { files }).problems, text);
        for (const p of next.problems) seen.add(p.code);
        previous = next;
      }
    }
    // The steps went through the settings rules' verdicts, not only clean texts.
    for (const code of ['env-file-missing', 'module-not-found', 'auth-invalid', 'setting-unknown-value', 'env-var-not-set', 'setting-invalid'] as const)
      assert.ok(seen.has(code), code);
  });
});
