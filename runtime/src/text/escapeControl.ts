/**
 * Escaping of the characters that let a name taken from a file rewrite a terminal or a log:
 * C0 controls (a newline forges a new problem line, or a `::error file=…::` command in a CI
 * log; ESC starts a terminal sequence), DEL, C1 controls, the Unicode line and paragraph
 * separators, and the bidirectional controls that reorder what is shown. Every human-readable
 * output of the CLI and of `10xgraph api` goes through it; JSON and SARIF need only JSON's own
 * escaping.
 */

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** The same class without `g`, so that `test` keeps no position between calls. */
const HAS_CONTROL = new RegExp(CONTROL.source);
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * `text` with each control character written as an escape (`\n`, `\t`, `\x1b`, `\u2028`), so it
 * prints on one line and shows exactly what the file holds. Other text, backslashes included,
 * is unchanged, so escaping twice changes nothing.
 */
export function escapeControl(text: string): string {
  // Most values (every log line's method, route and ids) have nothing to escape: no copy then.
  if (!HAS_CONTROL.test(text)) return text;
  return text.replace(CONTROL, (ch) => {
    const named = NAMED[ch];
    if (named) return named;
    const code = ch.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
