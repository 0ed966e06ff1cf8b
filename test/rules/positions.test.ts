// Positions: offsets count UTF-16 code units (as LSP and JavaScript do); lines end at \n,
// \r\n or a lone \r. LineIndex is checked against vscode-languageserver-textdocument, the
// conversion the language server's clients rely on.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { LineIndex, auditConfig } from '../../runtime/src/rules';
import { expectProblems, problemsAt, textAt } from './helpers';

/** The same marked file with `eol` line breaks. */
const withEol = (marked: string, eol: string) => marked.replace(/\n/g, eol);

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;
/** Whether `offset` falls between the two halves of a surrogate pair. */
const splitsPair = (text: string, offset: number) => offset > 0 && offset < text.length && isHigh(text.charCodeAt(offset - 1)) && isLow(text.charCodeAt(offset));

const EMOJI_FILE = `{
  "agent": "graph:app",
  "remote_tools": [
    {"description": "Copy 📋 text 🧾 to the clipboard.", "node": "TOOL", "name": ⟦"copy 📋"⟧}
  ]
}
`;

describe('LineIndex', () => {
  test('lines end at LF, CRLF and lone CR', () => {
    const index = new LineIndex('a\r\nb\rc\nd');
    assert.equal(index.lineCount, 4);
    assert.deepEqual(
      [0, 1, 3, 5, 7, 8].map((o) => index.positionAt(o)),
      [
        { line: 0, character: 0 },
        { line: 0, character: 1 },
        { line: 1, character: 0 },
        { line: 2, character: 0 },
        { line: 3, character: 0 },
        { line: 3, character: 1 },
      ],
    );
    assert.deepEqual(
      [0, 1, 2, 3].map((line) => index.offsetAt({ line, character: 0 })),
      [0, 3, 5, 7],
    );
  });

  test('a trailing line break opens an empty last line; an empty text has one line', () => {
    assert.equal(new LineIndex('{}\n').lineCount, 2);
    assert.deepEqual(new LineIndex('{}\n').positionAt(3), { line: 1, character: 0 });
    assert.equal(new LineIndex('').lineCount, 1);
    assert.deepEqual(new LineIndex('').positionAt(0), { line: 0, character: 0 });
  });

  test('characters count UTF-16 code units: an astral character is two', () => {
    const index = new LineIndex('"📋x"\n"é"');
    assert.deepEqual(index.positionAt(3), { line: 0, character: 3 });
    assert.deepEqual(index.positionAt(4), { line: 0, character: 4 });
    assert.equal(index.offsetAt({ line: 0, character: 3 }), 3);
    assert.deepEqual(index.positionAt(8), { line: 1, character: 2 });
  });

  test('out-of-range positions and offsets are clamped', () => {
    const text = 'ab\r\ncd';
    const index = new LineIndex(text);
    assert.deepEqual(index.positionAt(-5), { line: 0, character: 0 });
    assert.deepEqual(index.positionAt(99), { line: 1, character: 2 });
    assert.equal(index.offsetAt({ line: 0, character: 99 }), 2, 'a line ends before its line break');
    assert.equal(index.offsetAt({ line: 7, character: 0 }), text.length);
    assert.equal(index.offsetAt({ line: -1, character: 3 }), 0);
    assert.equal(index.offsetAt({ line: 1, character: -4 }), 4);
  });

  test('agrees with vscode-languageserver-textdocument, and offsets round-trip except inside a CRLF', () => {
    const alphabet = fc.constantFrom('a', ' ', '\n', '\r', '\r\n', '📋', 'é', '{', '"');
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 40 }), (parts) => {
        const text = parts.join('');
        const index = new LineIndex(text);
        const doc = TextDocument.create('file:///x.json', 'json', 1, text);
        assert.equal(index.lineCount, doc.lineCount);
        for (let offset = 0; offset <= text.length; offset++) {
          const position = index.positionAt(offset);
          const insideCrlf = text[offset - 1] === '\r' && text[offset] === '\n';
          if (!insideCrlf) {
            assert.deepEqual(position, doc.positionAt(offset), `positionAt(${offset}) of ${JSON.stringify(text)}`);
            assert.equal(index.offsetAt(position), offset, `round trip of ${offset} in ${JSON.stringify(text)}`);
          }
          assert.equal(index.offsetAt(doc.positionAt(offset)), doc.offsetAt(doc.positionAt(offset)));
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('problem ranges in UTF-16', () => {
  test('a range after astral characters on its line: offsets and columns count code units', () => {
    const { text, problems } = expectProblems(EMOJI_FILE, 'invalid-tool-name');
    const [p] = problems;
    assert.equal(textAt(text, p), '"copy 📋"');
    assert.equal(p.length, 9);
    const index = new LineIndex(text);
    // 79 code points precede the value on its line, two of them astral: 81 code units.
    assert.deepEqual(index.positionAt(p.offset), { line: 3, character: 81 });
    assert.deepEqual(index.positionAt(p.offset + p.length), { line: 3, character: 90 });
  });

  for (const [name, eol, shift] of [
    ['CRLF', '\r\n', 3],
    ['lone CR', '\r', 0],
  ] as const) {
    test(`the same file with ${name} line breaks: the same lines and columns`, () => {
      const lf = problemsAt(EMOJI_FILE).problems.find((p) => p.code === 'invalid-tool-name')!;
      const { text, problems } = expectProblems(withEol(EMOJI_FILE, eol), 'invalid-tool-name');
      assert.equal(problems[0].offset, lf.offset + shift);
      assert.deepEqual(new LineIndex(text).positionAt(problems[0].offset), { line: 3, character: 81 });
      assert.deepEqual(problems[0].message, lf.message);
    });
  }

  test('a syntax error after astral characters in a CRLF file', () => {
    const { text, problems } = expectProblems('{\r\n  "agent": "📋:app",\r\n  "x": "🧾"⟦,⟧\r\n}\r\n', 'invalid-json', { only: true });
    assert.deepEqual(new LineIndex(text).positionAt(problems[0].offset), { line: 2, character: 11 });
  });

  test('a syntax error in a lone-CR file', () => {
    const { text, problems } = expectProblems('{\r  "agent": "graph:app"\r  ⟦// 📋 note⟧\r}', 'invalid-json', { only: true });
    assert.deepEqual(new LineIndex(text).positionAt(problems[0].offset), { line: 2, character: 2 });
    assert.equal(problems[0].length, 10);
  });

  test('an astral character where a value belongs is covered whole, never half', () => {
    const { text, problems } = problemsAt('{"agent": 📋}');
    assert.equal(problems[0].offset, 10);
    assert.equal(textAt(text, problems[0]), '📋');
  });

  test('an unknown key made of emoji is covered whole', () => {
    expectProblems('{"agent": "graph:app", "remote_tools": [{"node": "TOOL", "name": "a", "description": "Read the clipboard.", ⟦"📋🧾"⟧: 1}]}', 'unknown-field');
  });

  test('an unknown setting key or a setting value made of emoji is covered whole', () => {
    expectProblems('{"agent": "graph:app", ⟦"📋🧾"⟧: 1}', 'unknown-key');
    expectProblems('{"agent": "graph:app", "rate_limit": {"enabled": false, "by": ⟦"📋"⟧, "trusted_proxies": ["🧾"]}}', 'setting-unknown-value');
    expectProblems('{"agent": "graph:app", "rate_limit": {"enabled": false, "by": "📋", "trusted_proxies": [⟦"🧾"⟧]}}', 'invalid-network');
  });

  test('no problem range ever splits a surrogate pair or leaves the text, and the audit never throws', () => {
    const parts = fc.constantFrom(
      '{',
      '}',
      '[',
      ']',
      ':',
      ',',
      ' ',
      '\n',
      '\r\n',
      '\r',
      '"',
      '📋',
      'é',
      'x',
      '1',
      '-',
      '\\',
      '//',
      '/*',
      '*/',
      '\uFEFF',
      '"agent"',
      '"graph:app"',
      '"remote_tools"',
      '"node"',
      '"name"',
      '"description"',
      '"parameters"',
      '"type"',
      '"📋"',
      'null',
      'true',
      '"rate_limit"',
      '"by"',
      '"trusted_proxies"',
      '"redis"',
      '"auth"',
      '"authorization"',
      '"observability"',
      '"logfire"',
      '"enabled"',
      '"env"',
      '"${📋}"',
    );
    fc.assert(
      fc.property(fc.array(parts, { maxLength: 30 }), (chunks) => {
        const text = chunks.join('');
        for (const p of auditConfig(text)) {
          assert.ok(p.offset >= 0 && p.length >= 0 && p.offset + p.length <= text.length, `${p.code} outside ${JSON.stringify(text)}`);
          assert.ok(!splitsPair(text, p.offset) && !splitsPair(text, p.offset + p.length), `${p.code} splits a pair in ${JSON.stringify(text)}`);
        }
      }),
      { numRuns: 500 },
    );
  });

  test('well-formed configs with astral characters anywhere: every range covers whole characters', () => {
    const piece = fc.constantFrom('📋', 'a', ' ', 'é', '_', '🧾', '');
    const str = fc.array(piece, { maxLength: 6 }).map((xs) => xs.join(''));
    fc.assert(
      fc.property(str, str, str, str, (nodeName, name, description, key) => {
        const text = JSON.stringify({ agent: `${name}:app`, remote_tools: [{ node: nodeName, name, description, [key]: 1 }] }, null, 2);
        for (const p of auditConfig(text)) {
          assert.ok(!splitsPair(text, p.offset) && !splitsPair(text, p.offset + p.length), `${p.code} splits a pair in ${JSON.stringify(text)}`);
        }
      }),
      { numRuns: 200 },
    );
  });
});
