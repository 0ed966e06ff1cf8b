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
  definition?: { name: string; kind: 'function' | 'class'; async?: true };
  /** For a statement that is one `NAME.add_node(...)` or `NAME.override_node(...)` call of the plainest form (see `nodeCallAt`). */
  nodeCall?: NodeCall;
}

/**
 * `receiver.add_node(A)`, `receiver.add_node(A, B)` or `receiver.override_node(A, B)` alone on its
 * line (a comment after it allowed), or several of them chained (`receiver.add_node(A, B).add_node(C, D)`,
 * or inside parentheses with a link a line: `(receiver\n    .add_node(A, B)\n    .add_node(C, D))`),
 * where the receiver and every argument is an ASCII name that is no keyword or one string literal
 * without `f` or `b`, and no argument list spans a line: the forms most of a graph's statements
 * take, read without a parse.
 */
export interface NodeCall {
  receiver: string;
  /** Offset of the receiver (where each call of the chain starts). */
  receiverFrom: number;
  links: NodeCallLink[];
}

/** One `.add_node(...)` or `.override_node(...)` of a `NodeCall`. */
export interface NodeCallLink {
  method: 'add_node' | 'override_node';
  /** Offset of the method's name. */
  methodFrom: number;
  args: NodeCallArgument[];
}

/** One argument of a `NodeCall`: its text, and whether it is a name or a string literal. */
export interface NodeCallArgument {
  from: number;
  to: number;
  text: string;
  kind: 'name' | 'string';
}

const CONTINUATIONS = ['else', 'elif', 'except', 'finally'];

/** Python's tokenizer refuses brackets nested deeper than this ("too many nested parentheses"). */
export const MAX_BRACKET_DEPTH = 200;

/**
 * The top-level statements of `source`, and `nonCode`: its comments and its strings other than
 * f-strings (whose replacement fields are code), as `[start, end)` pairs in order, flat: where a
 * name is no use of it. `open` when its lexical structure is broken (a string or
 * a bracket still open at the end: then only a parse can say where); `tooDeep` with the offset of
 * the first bracket nested deeper than Python allows (which no parse is tried on: the parser's
 * own recursion could not take it).
 */
export type ModuleLayout = { statements: TopLevelStatement[]; nonCode: number[] } | { open: true } | { tooDeep: number };

/** Splits `source` into its top-level statements (see `ModuleLayout`). */
export function topLevelStatements(source: string): ModuleLayout {
  const statements: TopLevelStatement[] = [];
  const nonCode: number[] = [];
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
    i = endOfLogicalLine(source, j, nonCode);
    if (i === OPEN) return { open: true };
    if (i < 0) return { tooDeep: -i - 2 };
  }
  if (from >= 0) statements.push(statementOf(source, from, n, header));
  return { statements, nonCode };
}

/** What `endOfLogicalLine` answers when the text ends inside a string or a bracket; below it, `-(offset + 2)` of a bracket nested too deep. */
const OPEN = -1;

const [TAB, LF, FORM_FEED, CR, SPACE, HASH, AT] = [9, 10, 12, 13, 32, 35, 64];

function statementOf(source: string, from: number, to: number, header: number): TopLevelStatement {
  if (header !== from) return { from, to, definition: header >= 0 ? definitionAt(source, header) : undefined };
  const definition = definitionAt(source, header);
  if (definition) return { from, to, definition };
  const nodeCall = nodeCallAt(source, from, to);
  return nodeCall ? { from, to, nodeCall } : { from, to };
}

/** Names Python gives a meaning of its own (soft keywords too): never read as a plain name here. */
const KEYWORDS = new Set(
  'False None True and as assert async await break case class continue def del elif else except finally for from global if import in is lambda match nonlocal not or pass raise return try type while with yield'.split(
    ' ',
  ),
);

/** The ASCII name at `at` (no keyword), as its end offset; -1 when there is none. */
function plainNameEnd(source: string, at: number): number {
  let i = at;
  for (let c = source.charCodeAt(i); (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || (i > at && c >= 48 && c <= 57); c = source.charCodeAt(++i));
  if (i === at || source.charCodeAt(i) > 127 || KEYWORDS.has(source.slice(at, i))) return -1;
  return i;
}

function skipBlanks(source: string, at: number): number {
  let i = at;
  while (source.charCodeAt(i) === SPACE || source.charCodeAt(i) === TAB) i++;
  return i;
}

/** The statement `[from, to)` as a `NodeCall`, or undefined when it is anything else (see `NodeCall`). */
function nodeCallAt(source: string, from: number, to: number): NodeCall | undefined {
  const parenthesized = source.charCodeAt(from) === 40; /* ( */
  // Inside the parentheses, line breaks and comments may stand between the links.
  const gap = (at: number) => (parenthesized ? skipLayout(source, at, to) : at);
  const receiverFrom = gap(parenthesized ? from + 1 : from);
  const receiverEnd = plainNameEnd(source, receiverFrom);
  if (receiverEnd < 0) return undefined;
  const links: NodeCallLink[] = [];
  let i = receiverEnd;
  for (let dot = gap(i); source.charCodeAt(dot) === 46 /* . */; dot = gap(i)) {
    const link = linkAt(source, dot + 1, to);
    if (!link) return undefined;
    links.push(link.link);
    i = link.end;
  }
  if (links.length === 0) return undefined;
  if (parenthesized) {
    i = gap(i);
    if (source.charCodeAt(i) !== 41 /* ) */) return undefined;
    i++;
  }
  // After the call: blanks, a comment, then only blank and comment lines to the statement's end.
  if (skipLayout(source, i, to) < to) return undefined;
  return { receiver: source.slice(receiverFrom, receiverEnd), receiverFrom, links };
}

/** `add_node(...)` or `override_node(...)` at `methodFrom` (just after the dot), with the offset after its `)`. */
function linkAt(source: string, methodFrom: number, to: number): { link: NodeCallLink; end: number } | undefined {
  const method = source.startsWith('add_node', methodFrom) ? 'add_node' : source.startsWith('override_node', methodFrom) ? 'override_node' : undefined;
  if (!method) return undefined;
  let i = skipBlanks(source, methodFrom + method.length);
  if (source.charCodeAt(i) !== 40 /* ( */) return undefined;
  const args: NodeCallArgument[] = [];
  i = skipBlanks(source, i + 1);
  for (;;) {
    const argument = argumentAt(source, i, to);
    if (!argument) return undefined;
    args.push(argument);
    i = skipBlanks(source, argument.to);
    const c = source.charCodeAt(i);
    if (c === 41 /* ) */) break;
    if (c !== 44 /* , */ || args.length === 2) return undefined;
    i = skipBlanks(source, i + 1);
  }
  if (method === 'override_node' && args.length !== 2) return undefined;
  return { link: { method, methodFrom, args }, end: i + 1 };
}

/** Past blanks, line breaks and comments from `at` (within `to`). */
function skipLayout(source: string, at: number, to: number): number {
  let i = at;
  while (i < to) {
    const c = source.charCodeAt(i);
    if (c === HASH) while (i < to && source.charCodeAt(i) !== LF && source.charCodeAt(i) !== CR) i++;
    else if (c === SPACE || c === TAB || c === LF || c === CR || c === FORM_FEED) i++;
    else break;
  }
  return i;
}

/** A plain name or a one-line string literal (prefix `r` or `u` at most) at `at`, within `to`. */
function argumentAt(source: string, at: number, to: number): NodeCallArgument | undefined {
  let quoteAt = at;
  const first = source[at];
  if (first === 'r' || first === 'R' || first === 'u' || first === 'U') quoteAt++;
  const quote = source[quoteAt];
  if (quote === '"' || quote === "'") {
    if (source[quoteAt + 1] === quote && source[quoteAt + 2] === quote) return undefined;
    let end = -1;
    for (let i = quoteAt + 1; i < to && end < 0; i++) {
      const c = source[i];
      if (c === '\n' || c === '\r') return undefined;
      if (c === '\\') {
        if (source[i + 1] === '\n' || source[i + 1] === '\r') return undefined;
        i++;
      } else if (c === quote) end = i + 1;
    }
    if (end < 0) return undefined;
    return { from: at, to: end, text: source.slice(at, end), kind: 'string' };
  }
  const end = plainNameEnd(source, at);
  return end < 0 ? undefined : { from: at, to: end, text: source.slice(at, end), kind: 'name' };
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
function endOfLogicalLine(source: string, at: number, nonCode: number[]): number {
  const n = source.length;
  let depth = 0;
  let i = at;
  while (i < n) {
    const c = source.charCodeAt(i);
    if (c === HASH) {
      const start = i;
      const lf = source.indexOf('\n', i);
      const cr = source.indexOf('\r', i);
      i = lf < 0 ? (cr < 0 ? n : cr) : cr < 0 ? lf : Math.min(lf, cr);
      nonCode.push(start, i);
    } else if (c === DOUBLE_QUOTE || c === QUOTE) {
      const start = i;
      const quote = source[i];
      i = source.charCodeAt(i + 1) === c && source.charCodeAt(i + 2) === c ? endOfTripleString(source, i + 3, quote) : endOfString(source, i + 1, quote);
      if (i < 0) return OPEN;
      if (!isFString(source, start)) nonCode.push(start, i);
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
  const closing = quote + quote + quote;
  for (let i = source.indexOf(closing, at); i >= 0; i = source.indexOf(closing, i + 1)) {
    // Escaped when an odd number of backslashes stands before it.
    let slashes = 0;
    while (i - slashes - 1 >= at && source.charCodeAt(i - slashes - 1) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return i + 3;
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
  let kind: 'function' | 'class';
  let isAsync = false;
  let i = keywordEnd(source, at, 'class');
  if (i >= 0) kind = 'class';
  else {
    i = keywordEnd(source, at, 'def');
    if (i < 0) {
      const async = keywordEnd(source, at, 'async');
      i = async < 0 ? -1 : keywordEnd(source, async, 'def');
      isAsync = i >= 0;
    }
    if (i < 0) return undefined;
    kind = 'function';
  }
  const start = i;
  while (i < source.length && isPythonNameChar(source.charCodeAt(i))) i++;
  if (i === start || (source.charCodeAt(start) >= 48 && source.charCodeAt(start) <= 57)) return undefined;
  const name = source.slice(start, i);
  i = skipBlanks(source, i);
  const next = source[i];
  if (!(next === '(' || next === '[' || (kind === 'class' && next === ':'))) return undefined;
  return isAsync ? { name, kind, async: true } : { name, kind };
}

/** After `keyword` and the blanks (at least one) that follow it at `at`: the offset; -1 when it is not there. */
function keywordEnd(source: string, at: number, keyword: string): number {
  if (!source.startsWith(keyword, at)) return -1;
  const c = source.charCodeAt(at + keyword.length);
  return c === SPACE || c === TAB ? skipBlanks(source, at + keyword.length) : -1;
}

/** Whether the string whose opening quote is at `quote` has an `f` among its prefix letters. */
function isFString(source: string, at: number): boolean {
  let f = false;
  let i = at;
  for (; i > 0 && at - i < 3; i--) {
    const c = source.charCodeAt(i - 1) | 32; // lower case
    if (c === 102 /* f */) f = true;
    else if (c !== 114 /* r */ && c !== 98 /* b */ && c !== 117 /* u */) break;
  }
  return f && !isPythonNameChar(source.charCodeAt(i - 1));
}

/** Whether `at` lies in one of `spans` (flat `[start, end)` pairs in order, as `ModuleLayout.nonCode`): a binary search. */
export function insideSpan(spans: number[], at: number): boolean {
  let lo = 0;
  let hi = spans.length / 2;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (spans[2 * mid + 1] <= at) lo = mid + 1;
    else hi = mid;
  }
  return lo < spans.length / 2 && spans[2 * lo] <= at;
}

/**
 * The statements among `statements` (in order, apart) whose code uses one of `words` as a whole
 * name: not inside `nonCode` (comments and plain strings). One search of the text per word.
 */
export function statementsMentioning(source: string, words: readonly string[], statements: readonly TopLevelStatement[], nonCode: number[]): Set<TopLevelStatement> {
  const found = new Set<TopLevelStatement>();
  if (statements.length === 0) return found;
  for (const word of words) {
    for (let at = source.indexOf(word); at >= 0; at = source.indexOf(word, at + word.length)) {
      if (isPythonNameChar(source.charCodeAt(at - 1)) || isPythonNameChar(source.charCodeAt(at + word.length)) || insideSpan(nonCode, at)) continue;
      // The statement holding `at`, if any: a binary search.
      let lo = 0;
      let hi = statements.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (statements[mid].from <= at) lo = mid;
        else hi = mid - 1;
      }
      const statement = statements[lo];
      if (statement.from <= at && at < statement.to) {
        found.add(statement);
        // On past this statement: one hit is enough.
        at = statement.to - word.length;
      }
    }
  }
  return found;
}

/** How many calls are chained on another call's result in `[from, to)` (each `).name`, blanks, comments and line breaks allowed before the dot), strings and comments aside. */
export function chainedCalls(source: string, from: number, to: number, nonCode: number[]): number {
  let links = 0;
  for (let i = source.indexOf(')', from); i >= 0 && i < to; i = source.indexOf(')', i + 1)) {
    if (insideSpan(nonCode, i)) continue;
    let j = i + 1;
    for (let c = source.charCodeAt(j); c === SPACE || c === TAB || c === LF || c === CR || c === BACKSLASH || c === HASH; c = source.charCodeAt(++j)) {
      if (c === HASH) while (j + 1 < to && source.charCodeAt(j + 1) !== LF && source.charCodeAt(j + 1) !== CR) j++;
    }
    if (source.charCodeAt(j) === 46 /* . */) links++;
  }
  return links;
}
