/**
 * The server reads positions from the open document instead of scanning the text again; these
 * tests hold its answers equal to the rule set's `LineIndex` at every offset and position,
 * with every kind of line break, after incremental edits, and once the document has moved on.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { LineIndex } from '../../runtime/src/rules/index';
import { positionsOf } from '../../server/src/positions';

function assertSame(doc: TextDocument, text: string): void {
  const positions = positionsOf(doc, text);
  const index = new LineIndex(text);
  for (let offset = -1; offset <= text.length + 1; offset++) {
    assert.deepEqual(positions.positionAt(offset), index.positionAt(offset), `positionAt(${offset}) of ${JSON.stringify(text)}`);
  }
  for (let line = -1; line <= index.lineCount; line++) {
    for (let character = -1; character <= 6; character++) {
      assert.equal(positions.offsetAt({ line, character }), index.offsetAt({ line, character }), `offsetAt(${line}:${character}) of ${JSON.stringify(text)}`);
    }
  }
}

const pieces = fc.constantFrom('a', '{', '"x"', '\n', '\r', '\r\n', '😀', ' ', '\u2028');

test('equal to LineIndex on texts with mixed line breaks and surrogate pairs', () => {
  fc.assert(
    fc.property(fc.array(pieces, { maxLength: 30 }), (parts) => {
      const text = parts.join('');
      assertSame(TextDocument.create('file:///x.json', 'json', 1, text), text);
    }),
    { numRuns: 300, seed: 4 },
  );
});

test('equal to LineIndex after incremental edits', () => {
  fc.assert(
    fc.property(
      fc.array(pieces, { minLength: 1, maxLength: 20 }),
      fc.array(fc.tuple(fc.nat(), fc.nat(3), fc.array(pieces, { maxLength: 3 })), { maxLength: 5 }),
      (parts, edits) => {
        let doc = TextDocument.create('file:///x.json', 'json', 1, parts.join(''));
        for (const [at, length, inserted] of edits) {
          const text = doc.getText();
          const start = at % (text.length + 1);
          const end = Math.min(text.length, start + length);
          doc = TextDocument.update(doc, [{ range: { start: doc.positionAt(start), end: doc.positionAt(end) }, text: inserted.join('') }], doc.version + 1);
        }
        assertSame(doc, doc.getText());
      },
    ),
    { numRuns: 300, seed: 7 },
  );
});

test('once the document moves on, the kept text still answers', () => {
  const doc = TextDocument.create('file:///x.json', 'json', 1, 'ab\r\ncd\nef');
  const positions = positionsOf(doc, doc.getText());
  TextDocument.update(doc, [{ text: 'completely\n\n\nother' }], 2);
  assert.deepEqual(positions.positionAt(5), { line: 1, character: 1 });
  assert.equal(positions.offsetAt({ line: 2, character: 1 }), 8);
});
