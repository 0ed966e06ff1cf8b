/**
 * Escaping of what lets a name taken from a file rewrite a terminal or a CI log: C0 controls (a
 * newline forges a new problem line; ESC starts a terminal sequence), DEL, C1 controls (U+009B is
 * a terminal's CSI), the Unicode line and paragraph separators, the bidirectional controls that
 * reorder what is shown, and GitHub Actions' workflow commands (`::error …::` at the start of a
 * line, `##[error]…` anywhere in it). Every human-readable output of the CLI and of `10xgraph api`
 * goes through `escapeControl`; every JSON output through `jsonForLog`.
 */

const CONTROLS = '\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069';
/**
 * A control, a `##[` (the runner reads `##[command]` anywhere in a line) or a `::` after the
 * white space that starts the text (the runner trims it before looking for `::command`).
 */
const ESCAPED = new RegExp(`[${CONTROLS}]|##\\[|^\\s*::`, 'g');
/** The same class without `g`, so that `test` keeps no position between calls. */
const HAS_ESCAPED = new RegExp(ESCAPED.source);
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `\xNN` or `\uNNNN` for the code unit `code`. */
function hexEscape(code: number): string {
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * `text` with each control character written as an escape (`\n`, `\t`, `\x1b`, `\u2028`), so it
 * prints on one line and shows exactly what the file holds, and with the `[` of `##[` and the
 * first `:` of a leading `::` written `\x5b` and `\x3a`, so no line is a workflow command. Other
 * text, backslashes included, is unchanged, so escaping twice changes nothing.
 */
export function escapeControl(text: string): string {
  // Most values (every log line's method, route and ids) have nothing to escape: no copy then.
  if (!HAS_ESCAPED.test(text)) return text;
  return text.replace(ESCAPED, (match) => {
    if (match === '##[') return '##\\x5b';
    if (match.endsWith('::')) return `${match.slice(0, -2)}\\x3a:`;
    return NAMED[match] ?? hexEscape(match.charCodeAt(0));
  });
}

/**
 * What JSON.stringify leaves raw and a terminal or a CI runner reads: DEL, C1 controls, the
 * line separators, bidirectional controls, and `##[`. In JSON text these occur only inside
 * strings, where `\uNNNN` means the same character: the parsed value is unchanged.
 */
const JSON_RISKY = new RegExp(`[${CONTROLS.slice('\\u0000-\\u001f'.length)}]|##\\[`, 'g');

/** `value` as indented JSON that is safe to print in a terminal or a CI log, and parses to the same value. */
export function jsonForLog(value: unknown): string {
  return jsonTextForLog(JSON.stringify(value, null, 2));
}

/** JSON text made safe to print (see `jsonForLog`); the text must be JSON. */
export function jsonTextForLog(json: string): string {
  return json.replace(JSON_RISKY, (match) => (match === '##[' ? '##\\u005b' : `\\u${match.charCodeAt(0).toString(16).padStart(4, '0')}`));
}
