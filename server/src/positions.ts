/**
 * Offsets ↔ LSP positions for one document version. The rule set's `LineIndex` scans the
 * whole text, which costs milliseconds on a large file at every keystroke; the open document
 * already keeps its line starts up to date incrementally, so positions are read from it, with
 * exactly `LineIndex`'s answers (the parity tests hold the two equal). Should the document move
 * on to another version meanwhile, a `LineIndex` of the kept text answers instead.
 */
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { LineIndex } from '10xgraph/rules';

/** What the features need of a line index. */
export type Positions = Pick<LineIndex, 'positionAt' | 'offsetAt'>;

/** Positions of `text`, the content of `document` at its current version. */
export function positionsOf(document: TextDocument, text: string): Positions {
  const version = document.version;
  let fallback: LineIndex | undefined;
  const stale = (): LineIndex | undefined => (document.version === version ? undefined : (fallback ??= new LineIndex(text)));
  return {
    positionAt(offset) {
      const index = stale();
      if (index) return index.positionAt(offset);
      const position = document.positionAt(offset);
      // Between the \r and \n of one line break the document answers the \r's position; LineIndex one further.
      const clamped = Math.max(0, Math.min(offset, text.length));
      return clamped > 0 && text.charCodeAt(clamped - 1) === 13 && text.charCodeAt(clamped) === 10 ? { line: position.line, character: position.character + 1 } : position;
    },
    offsetAt(position) {
      const index = stale();
      return index ? index.offsetAt(position) : document.offsetAt(position);
    },
  };
}
