/**
 * Positions in inline fixtures: the range of a needle, a position inside it, and a fixture's `|`
 * cursor marker (zero-based lines, characters in UTF-16 units, as LSP counts them).
 */
import assert from 'node:assert/strict';

/** An LSP position. */
export interface Position {
  line: number;
  character: number;
}

/** The position of `offset` in `text`. */
export function positionAt(text: string, offset: number): Position {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length - 1, character: before[before.length - 1].length };
}

/** The range of the `occurrence`-th `needle` in `text`. */
export function rangeOf(text: string, needle: string, occurrence = 0): { start: Position; end: Position } {
  let offset = -1;
  for (let i = 0; i <= occurrence; i++) {
    offset = text.indexOf(needle, offset + 1);
    assert.ok(offset >= 0, `${JSON.stringify(needle)} occurs ${occurrence + 1} times`);
  }
  return { start: positionAt(text, offset), end: positionAt(text, offset + needle.length) };
}

/** A position inside the `occurrence`-th `needle` (one character in). */
export function inside(text: string, needle: string, occurrence = 0): Position {
  const { start } = rangeOf(text, needle, occurrence);
  return { line: start.line, character: start.character + 1 };
}

/** Splits a fixture at its `|` marker. */
export function marked(source: string): { text: string; position: Position } {
  const offset = source.indexOf('|');
  assert.ok(offset >= 0, 'the fixture has a | marker');
  const text = source.slice(0, offset) + source.slice(offset + 1);
  return { text, position: positionAt(text, offset) };
}
