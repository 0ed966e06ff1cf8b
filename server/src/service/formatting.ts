/**
 * Formatting with `jsonc-parser`'s formatter, the one VS Code's JSON support uses, with the
 * client's indentation options and the document's own line ending.
 */
import type { FormattingOptions, Range, TextEdit } from 'vscode-languageserver';
import { format } from 'jsonc-parser';
import type { Positions } from '../positions';
import { rangeOf } from '../diagnostics';

/** The edits that format `text` (or only `range` of it). */
export function formatText(text: string, lines: Positions, options: FormattingOptions, range?: Range): TextEdit[] {
  const eol = /\r\n/.test(text) ? '\r\n' : '\n';
  const offsets = range ? { offset: lines.offsetAt(range.start), length: lines.offsetAt(range.end) - lines.offsetAt(range.start) } : undefined;
  const edits = format(text, offsets, {
    tabSize: options.tabSize,
    insertSpaces: options.insertSpaces,
    insertFinalNewline: options.insertFinalNewline ?? false,
    eol,
  });
  return edits.map((e) => ({ range: rangeOf(lines, e.offset, e.length), newText: e.content }));
}
