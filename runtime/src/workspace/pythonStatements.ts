/**
 * The top-level statements of a Python module, found lexically in one pass (strings, comments,
 * brackets and line continuations are followed; nothing is parsed): where each starts and ends, and
 * for a `def`/`class` (decorated or not) the name it binds. The Python reader parses only the
 * statements that can touch a graph and reads a definition that cannot by its name alone; see
 * `readPythonModule`.
 */

/** One top-level statement: `[from, to)` runs from its first line to the next statement's (blank and comment lines after it included). */
export interface TopLevelStatement {
  from: number;
  to: number;
  /** For a function or class definition whose name could be read from its header. */
  definition?: { name: string; kind: 'function' | 'class' };
}

const CONTINUATIONS = ['else', 'elif', 'except', 'finally'];

/** Python's tokenizer refuses brackets nested deeper than this ("too many nested parentheses"). */
export const MAX_BRACKET_DEPTH = 200;

/**
 * The top-level statements of `source`; `open` when its lexical structure is broken (a string or
 * a bracket still open at the end: then only a parse can say where); `tooDeep` with the offset of
 * the first bracket nested deeper than Python allows (which no parse is tried on: the parser's
 * own recursion could not take it).
 */
export type ModuleLayout = { statements: TopLevelStatement[] } | { open: true } | { tooDeep: number };

/** Splits `source` into its top-level statements (see `ModuleLayout`). */
export function topLevelStatements(source: string): ModuleLayout {
  const statements: TopLevelStatement[] = [];
  const n = source.length;
  let from = -1;
  let header = -1;
  let decorated = false;
  let i = 0;
  while (i < n) {
    // A form feed at the start of a line resets Python's column count: it is not indentation.
    let lineStart = i;
    while (lineStart < n && source.charCodeAt(lineStart) === FORM_FEED) lineStart++;
    let j = lineStart;
    for (let c = source.charCodeAt(j); c === SPACE || c === TAB || c === FORM_FEED; c = source.charCodeAt(++j));
    if (j >= n) break;
    const c = source.charCodeAt(j);
    if (c === LF || c === CR || c === HASH) {
      i = endOfPhysicalLine(source, j);
      continue;
    }
    if (j === lineStart && !(from >= 0 && !decorated && startsWithContinuation(source, j))) {
      if (!decorated && from >= 0) {
        statements.push(statementOf(source, from, i, header));
        from = -1;
      }
      if (from < 0) {
        from = i;
        header = -1;
      }
      decorated = c === AT;
      if (!decorated && header < 0) header = j;
    } else if (from < 0) {
      // Indented text with nothing before it: left to the parse to report.
      from = i;
      header = -1;
    }
    i = endOfLogicalLine(source, j);
    if (i === OPEN) return { open: true };
    if (i < 0) return { tooDeep: -i - 2 };
  }
  if (from >= 0) statements.push(statementOf(source, from, n, header));
  return { statements };
}

/** What `endOfLogicalLine` answers when the text ends inside a string or a bracket; below it, `-(offset + 2)` of a bracket nested too deep. */
const OPEN = -1;

const [TAB, LF, FORM_FEED, CR, SPACE, HASH, AT] = [9, 10, 12, 13, 32, 35, 64];

function statementOf(source: string, from: number, to: number, header: number): TopLevelStatement {
  return { from, to, definition: header >= 0 ? definitionAt(source, header) : undefined };
}

/** The offset just after the line break that ends the physical line `at` is on (or the end of the text). */
function endOfPhysicalLine(source: string, at: number): number {
  for (let i = at; i < source.length; i++) {
    const c = source[i];
    if (c === '\n') return i + 1;
    if (c === '\r') return source[i + 1] === '\n' ? i + 2 : i + 1;
  }
  return source.length;
}

/**
 * The offset just after the line break that ends the logical line starting at `at` (brackets,
 * strings and backslash continuations may take it over several physical lines); `OPEN` when the
 * text ends inside a string or a bracket, `-(offset + 2)` for a bracket nested deeper than Python allows.
 */
function endOfLogicalLine(source: string, at: number): number {
  const n = source.length;
  let depth = 0;
  let i = at;
  while (i < n) {
    const c = source.charCodeAt(i);
    if (c === HASH) {
      for (let d = source.charCodeAt(i); i < n && d !== LF && d !== CR; d = source.charCodeAt(++i));
    } else if (c === DOUBLE_QUOTE || c === QUOTE) {
      const quote = source[i];
      i = source.charCodeAt(i + 1) === c && source.charCodeAt(i + 2) === c ? endOfTripleString(source, i + 3, quote) : endOfString(source, i + 1, quote);
      if (i < 0) return OPEN;
    } else if (c === BACKSLASH && (source.charCodeAt(i + 1) === LF || source.charCodeAt(i + 1) === CR)) {
      i += source.charCodeAt(i + 1) === CR && source.charCodeAt(i + 2) === LF ? 3 : 2;
    } else if (c === 40 || c === 91 || c === 123 /* ( [ { */) {
      if (++depth > MAX_BRACKET_DEPTH) return -(i + 2);
      i++;
    } else if (c === 41 || c === 93 || c === 125 /* ) ] } */) {
      if (depth > 0) depth--;
      i++;
    } else if (c === LF || c === CR) {
      const next = c === CR && source.charCodeAt(i + 1) === LF ? i + 2 : i + 1;
      if (depth === 0) return next;
      i = next;
    } else i++;
  }
  return depth === 0 ? n : OPEN;
}

const [DOUBLE_QUOTE, QUOTE, BACKSLASH] = [34, 39, 92];

/** After a one-line string's opening quote: the offset after its closing one, or of the line break that ends it unclosed (a syntax error the parse reports). */
function endOfString(source: string, at: number, quote: string): number {
  for (let i = at; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') i++;
    else if (c === quote) return i + 1;
    else if (c === '\n' || c === '\r') return i;
  }
  return -1;
}

/** After a triple-quoted string's opening quotes: the offset after its closing ones, or -1 when the text ends first. */
function endOfTripleString(source: string, at: number, quote: string): number {
  for (let i = at; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') i++;
    else if (c === quote && source[i + 1] === quote && source[i + 2] === quote) return i + 3;
  }
  return -1;
}

/** Whether an `else`, `elif`, `except` or `finally` starts at `at`: the next clause of the statement before. */
function startsWithContinuation(source: string, at: number): boolean {
  const c = source.charCodeAt(at);
  if (c !== 101 /* e */ && c !== 102 /* f */) return false;
  for (const k of CONTINUATIONS) if (source.startsWith(k, at) && !isPythonNameChar(source.charCodeAt(at + k.length))) return true;
  return false;
}

/** Whether a UTF-16 code unit can be part of a Python name (ASCII letters, digits, `_`, and anything beyond ASCII). */
export function isPythonNameChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code > 127;
}

/** `def NAME(`, `async def NAME(`, `class NAME(`/`:` (or with type parameters `[`) at `at`: the name and kind; undefined for anything else. */
function definitionAt(source: string, at: number): TopLevelStatement['definition'] {
  let i = at;
  const keyword = (k: string): boolean => {
    if (!source.startsWith(k, i) || (source[i + k.length] !== ' ' && source[i + k.length] !== '\t')) return false;
    i += k.length;
    while (source[i] === ' ' || source[i] === '\t') i++;
    return true;
  };
  let kind: 'function' | 'class';
  if (keyword('class')) kind = 'class';
  else if (keyword('def') || (keyword('async') && keyword('def'))) kind = 'function';
  else return undefined;
  const start = i;
  while (i < source.length && isPythonNameChar(source.charCodeAt(i))) i++;
  if (i === start || (source.charCodeAt(start) >= 48 && source.charCodeAt(start) <= 57)) return undefined;
  const name = source.slice(start, i);
  while (source[i] === ' ' || source[i] === '\t') i++;
  const next = source[i];
  return next === '(' || next === '[' || (kind === 'class' && next === ':') ? { name, kind } : undefined;
}

/**
 * The comments and the strings other than f-strings in `[from, to)` (which starts a statement),
 * as `[start, end)` pairs in order, flat: what lies there is no use of a name. An f-string's
 * replacement fields are code, so it is left out whole.
 */
export function nonCodeSpans(source: string, from: number, to: number): number[] {
  const spans: number[] = [];
  let i = from;
  while (i < to) {
    const c = source[i];
    if (c === '#') {
      const start = i;
      while (i < to && source[i] !== '\n' && source[i] !== '\r') i++;
      spans.push(start, i);
    } else if (c === '"' || c === "'") {
      const start = i;
      const triple = source[i + 1] === c && source[i + 2] === c;
      const end = triple ? endOfTripleString(source, i + 3, c) : endOfString(source, i + 1, c);
      i = end < 0 ? to : end;
      if (!isFString(source, start)) spans.push(start, i);
    } else i++;
  }
  return spans;
}

/** Whether the string whose opening quote is at `quote` has an `f` among its prefix letters. */
function isFString(source: string, at: number): boolean {
  let i = at;
  while (i > 0 && at - i < 3 && 'rRbBuUfF'.includes(source[i - 1])) i--;
  if (isPythonNameChar(source.charCodeAt(i - 1))) return false;
  return /[fF]/.test(source.slice(i, at));
}
