/**
 * The one reader of JS/TS sources: what a module says about the project, read (never run) in
 * one pass over its text. It serves the agent modules' scan (the exports, the compiled graphs
 * among them) and the project's (the nodes an agent module adds with `addNode('TOOL', new
 * ToolNode(…))`, the handlers a client registers with `registerToolHandler('name', …)`), for
 * `10xgraph audit` and the language server alike. The files may be anyone's (an untrusted
 * workspace), so the reading is linear in the text: one tokenizer without regular expressions,
 * brackets matched with one stack, every call looked at once. Only literal names count; a
 * computed name is kept as such, so callers can say so and judge nothing from it.
 */
import type { NodeKind } from '../rules/types';

/** The extensions of the sources the project reads (handlers, agent modules), declarations excluded. */
export const SOURCE_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'] as const;

/** The extensions `agent` modules may have, in the order the loader tries them: the ones of `SOURCE_EXTENSIONS` a spec without an extension resolves to. */
export const AGENT_EXTENSIONS = ['.ts', '.mts', '.js', '.mjs'] as const satisfies ReadonlyArray<(typeof SOURCE_EXTENSIONS)[number]>;

/** The extensions an `agent` spec may name its module's file with (`graph.mjs:app`): the ones the loader runs. */
export const AGENT_FILE_EXTENSIONS = ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs'] as const satisfies ReadonlyArray<(typeof SOURCE_EXTENSIONS)[number]>;

/** True for a path the project reads: a source with one of `SOURCE_EXTENSIONS`, not a declaration file (it registers nothing). */
export function isSourcePath(path: string): boolean {
  return !path.endsWith('.d.ts') && SOURCE_EXTENSIONS.some((e) => path.endsWith(e));
}

/** A name argument in a source: its value and where it lies (offsets in UTF-16 code units). */
export interface SourceName {
  /** The literal's value; undefined when the name is computed (not a string literal). */
  name: string | undefined;
  /** The argument (the literal with its quotes, or the computed expression). */
  offset: number;
  length: number;
  /** The text between the quotes (literals only). */
  inner?: { offset: number; length: number };
  /** True when the text between the quotes is exactly the value (no escapes): a rename can replace it. */
  exact: boolean;
  /** The zero-based line the argument starts on. */
  line: number;
}

/** One `addNode(name, node)` call and what the node is, as far as the source says. */
export interface SourceNode extends SourceName {
  kind: NodeKind;
}

/** What one source says. */
export interface SourceAnalysis {
  /** Exports that look like compiled graphs (`export const app = graph.compile()`), then the other exports. */
  exports: string[];
  /** How many of `exports`, from the start, look like compiled graphs. */
  graphExports: number;
  /** The `registerToolHandler(name, …)` calls, in text order. */
  handlers: SourceName[];
  /** The `addNode(name, node)` calls, in text order. */
  nodes: SourceNode[];
  /** The first structural error (an unclosed bracket, string or comment), when there is one; what could be read is kept. */
  syntaxError?: string;
}

const enum T {
  Word,
  Punct,
  /** A quoted string: `value` is its cooked text, undefined when it does not close. */
  String,
  /** A piece of a template literal: from its backtick or `}` up to and including the closing backtick or `${`. */
  Template,
  Regex,
}

interface Token {
  type: T;
  start: number;
  end: number;
  text: string;
  /** For a bracket: the index of its partner, or -1; for a template piece that opens a `${`, the index of the piece its `}` starts. */
  match: number;
  /** For a string or a template piece: whether it ends as it should (its quote, backtick or `${`). */
  closed?: boolean;
}

function isIdentifierPart(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f || c === 0x24 || c > 0x7f;
}

function isIdentifier(token: string | undefined): token is string {
  if (token === undefined) return false;
  const c = token.charCodeAt(0);
  return isIdentifierPart(c) && !(c >= 0x30 && c <= 0x39);
}

// After these words a `/` starts a regular expression, not a division.
const BEFORE_REGEX: ReadonlySet<string> = new Set(['return', 'typeof', 'case', 'do', 'else', 'in', 'of', 'new', 'delete', 'void', 'throw', 'yield', 'await', 'instanceof']);

/** Whether a `/` after `previous` (the last word or punctuation) starts a regular expression literal. */
function startsRegex(previous: string | undefined): boolean {
  if (previous === undefined) return true;
  if (isIdentifierPart(previous.charCodeAt(0))) return BEFORE_REGEX.has(previous);
  return previous !== ')' && previous !== ']' && previous !== '}';
}

const OPENERS: Record<string, string> = { ')': '(', ']': '[', '}': '{' };

interface Scan {
  tokens: Token[];
  lineStarts: number[];
  syntaxError?: string;
}

/**
 * The tokens of a source in one pass: identifiers whole, strings, template pieces and regular
 * expression literals as one token each, comments dropped, every other character a token of its
 * own. A quote string or a regular expression ends at its line's end at the latest, so a misread
 * costs one line, not the rest of the file. Brackets are matched on one stack (a template's `${`
 * counts as an opener its `}` closes).
 */
function scan(source: string): Scan {
  const tokens: Token[] = [];
  const lineStarts = [0];
  const n = source.length;
  const open: number[] = [];
  let syntaxError: string | undefined;
  let previous: string | undefined;
  let i = 0;
  const fail = (message: string, at: number) => {
    syntaxError ??= `${message} (line ${lineOf(lineStarts, at) + 1})`;
  };
  // Only the span itself is looked at (a search for the next line break could run to the end of the text every time).
  const newlines = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (source.charCodeAt(k) === 0x0a) lineStarts.push(k + 1);
  };
  /** Reads template text from `i` up to its closing backtick or into a `${`; the token runs from `start`. */
  const templateText = (start: number): void => {
    let closed = false;
    while (i < n) {
      const d = source.charCodeAt(i);
      if (d === 0x5c /* \ */) i += 2;
      else if (d === 0x60 /* ` */) {
        i++;
        closed = true;
        break;
      } else if (d === 0x24 /* $ */ && source.charCodeAt(i + 1) === 0x7b /* { */) {
        i += 2;
        open.push(tokens.length);
        closed = true;
        break;
      } else i++;
    }
    if (i > n) i = n;
    newlines(start, i);
    if (!closed) fail('Unterminated template literal', start);
    tokens.push({ type: T.Template, start, end: i, text: source.slice(start, i), match: -1, closed });
  };
  while (i < n) {
    const c = source.charCodeAt(i);
    if (c === 0x0a) {
      lineStarts.push(i + 1);
      i++;
    } else if (isIdentifierPart(c)) {
      const start = i;
      while (i < n && isIdentifierPart(source.charCodeAt(i))) i++;
      previous = source.slice(start, i);
      tokens.push({ type: T.Word, start, end: i, text: previous, match: -1 });
    } else if (c === 0x2f /* / */ && source.charCodeAt(i + 1) === 0x2f) {
      const end = source.indexOf('\n', i);
      i = end === -1 ? n : end;
    } else if (c === 0x2f && source.charCodeAt(i + 1) === 0x2a /* * */) {
      const end = source.indexOf('*/', i + 2);
      if (end === -1) fail('Unterminated comment', i);
      const stop = end === -1 ? n : end + 2;
      newlines(i, stop);
      i = stop;
    } else if (c === 0x2f && startsRegex(previous)) {
      // A regular expression literal: its quotes and braces are not code. It ends at its line's end at the latest.
      const start = i++;
      let inClass = false;
      while (i < n) {
        const d = source.charCodeAt(i);
        if (d === 0x5c) i += source.charCodeAt(i + 1) === 0x0a ? 1 : 2;
        else if (d === 0x0a) break;
        else {
          i++;
          if (d === 0x5b /* [ */) inClass = true;
          else if (d === 0x5d /* ] */) inClass = false;
          else if (d === 0x2f && !inClass) break;
        }
      }
      if (i > n) i = n;
      tokens.push({ type: T.Regex, start, end: i, text: source.slice(start, i), match: -1 });
    } else if (c === 0x22 /* " */ || c === 0x27 /* ' */) {
      const start = i++;
      let closed = false;
      while (i < n) {
        const d = source.charCodeAt(i);
        if (d === 0x5c) {
          if (source.charCodeAt(i + 1) === 0x0a) lineStarts.push(i + 2);
          i += 2;
        } else if (d === c) {
          i++;
          closed = true;
          break;
        } else if (d === 0x0a) break;
        else i++;
      }
      if (i > n) i = n;
      if (!closed) fail('Unterminated string constant', start);
      tokens.push({ type: T.String, start, end: i, text: source.slice(start, i), match: -1, closed });
    } else if (c === 0x60) {
      const start = i++;
      templateText(start);
    } else if (c === 0x7d /* } */ && open.length > 0 && tokens[open[open.length - 1]].type === T.Template) {
      // The end of a `${...}`: back to the template's text.
      tokens[open.pop()!].match = tokens.length;
      const start = i++;
      templateText(start);
    } else {
      const ch = source[i];
      if (c > 0x20) {
        previous = ch;
        const index = tokens.length;
        tokens.push({ type: T.Punct, start: i, end: i + 1, text: ch, match: -1 });
        if (ch === '(' || ch === '[' || ch === '{') open.push(index);
        else if (ch in OPENERS) {
          const top = open.length > 0 ? tokens[open[open.length - 1]] : undefined;
          if (top?.text === OPENERS[ch]) {
            const partner = open.pop()!;
            tokens[partner].match = index;
            tokens[index].match = partner;
          } else fail(`Unexpected '${ch}'`, i);
        }
      }
      i++;
    }
  }
  if (open.length > 0) fail(`'${tokens[open[0]].text.endsWith('${') ? '${' : tokens[open[0]].text}' is not closed`, tokens[open[0]].start);
  return { tokens, lineStarts, ...(syntaxError ? { syntaxError } : {}) };
}

function lineOf(lineStarts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = lineStarts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (lineStarts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

const SINGLE_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', v: '\v', '0': '\0' };

/** The value of the text between a literal's quotes, with its escapes read as JavaScript reads them; undefined when an escape is malformed. */
function cook(raw: string): string | undefined {
  if (!raw.includes('\\')) return raw;
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = raw[++i];
    if (e === undefined) return undefined;
    if (e === '\n') continue;
    if (e === '\r') {
      if (raw[i + 1] === '\n') i++;
      continue;
    }
    if (e in SINGLE_ESCAPES && !(e === '0' && /[0-9]/.test(raw[i + 1] ?? ''))) out += SINGLE_ESCAPES[e];
    else if (e === 'x') {
      const hex = raw.slice(i + 1, i + 3);
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) return undefined;
      out += String.fromCharCode(parseInt(hex, 16));
      i += 2;
    } else if (e === 'u') {
      if (raw[i + 1] === '{') {
        const close = raw.indexOf('}', i + 2);
        const hex = close === -1 ? '' : raw.slice(i + 2, close);
        if (!/^[0-9a-fA-F]{1,6}$/.test(hex) || parseInt(hex, 16) > 0x10ffff) return undefined;
        out += String.fromCodePoint(parseInt(hex, 16));
        i = close;
      } else {
        const hex = raw.slice(i + 1, i + 5);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) return undefined;
        out += String.fromCharCode(parseInt(hex, 16));
        i += 4;
      }
    } else if (/[1-9]/.test(e)) return undefined;
    else out += e;
  }
  return out;
}

/** The literal value of a token: a closed quote string or a template without `${`; undefined otherwise. */
function literalOf(token: Token | undefined): string | undefined {
  if (!token) return undefined;
  if (token.type === T.String && token.closed) return cook(token.text.slice(1, -1));
  if (token.type === T.Template && token.closed && token.text.length >= 2 && token.text.startsWith('`') && token.text.endsWith('`') && !token.text.endsWith('${')) {
    return cook(token.text.slice(1, -1));
  }
  return undefined;
}

/** The index of the token after the argument starting at `from` of a call whose `)` is at `close`: its `,` or the `)`. */
function argumentEnd(tokens: readonly Token[], from: number, close: number): number {
  let j = from;
  // A bracket jumps past its partner; a template piece opening a `${` to the piece that closes it. An
  // opener left unclosed ends the argument of a call left open: each token is then scanned for one call at most.
  while (j < close) {
    const t = tokens[j];
    if (t.type === T.Punct && t.text === ',') break;
    if (t.match > j) j = t.match + (t.type === T.Template ? 0 : 1);
    else if (j > from && t.match === -1 && ((t.type === T.Punct && (t.text === '(' || t.text === '[' || t.text === '{')) || (t.type === T.Template && t.text.endsWith('${'))))
      break;
    else j++;
  }
  return Math.min(j, close);
}

function nameOf(tokens: readonly Token[], from: number, end: number, text: string, lineStarts: readonly number[]): SourceName {
  const first = tokens[from];
  const offset = first.start;
  const length = tokens[end - 1].end - offset;
  const line = lineOf(lineStarts, offset);
  const name = end === from + 1 ? literalOf(first) : undefined;
  if (name === undefined) return { name: undefined, offset, length, exact: false, line };
  const raw = text.slice(offset + 1, offset + length - 1);
  return { name, offset, length, inner: { offset: offset + 1, length: length - 2 }, exact: raw === name && !name.includes('\n'), line };
}

const DECLARATIONS: ReadonlySet<string> = new Set(['const', 'let', 'var']);
/** Words after an expression that keep it what it is (`x as T`, `x satisfies T`). */
const TYPE_WRAPPERS: ReadonlySet<string> = new Set(['as', 'satisfies']);

// How many initializers `kindAt` follows from an identifier to what it is bound to.
const MAX_KIND_DEPTH = 5;

/**
 * What the expression starting at token `at` is, as far as its first tokens say (`depth` follows
 * identifiers to their initializers). Each (`at`, `depth`) is judged once and kept in `known`: many
 * `addNode` calls naming one variable bound to a long expression cost that expression once, not once a call.
 */
function kindAt(tokens: readonly Token[], at: number, initializers: ReadonlyMap<string, number>, known: Map<number, NodeKind>, depth = 0): NodeKind {
  if (depth > MAX_KIND_DEPTH) return 'unknown';
  const key = at * (MAX_KIND_DEPTH + 1) + depth;
  let kind = known.get(key);
  if (kind === undefined) known.set(key, (kind = judgeKind(tokens, at, initializers, known, depth)));
  return kind;
}

function judgeKind(tokens: readonly Token[], at: number, initializers: ReadonlyMap<string, number>, known: Map<number, NodeKind>, depth: number): NodeKind {
  let i = at;
  // Parentheses around an expression are not a node of their own (but `(s) => …` is a function).
  while (tokens[i]?.text === '(' && tokens[i].match > i && tokens[tokens[i].match + 1]?.text !== '=' && tokens[i].type === T.Punct) i++;
  const t = tokens[i];
  if (!t) return 'unknown';
  if (t.text === 'function' || (t.text === 'async' && tokens[i + 1]?.text === 'function')) return 'function_node';
  const arrowAt = (j: number) => tokens[j]?.text === '=' && tokens[j + 1]?.text === '>' && tokens[j + 1].start === tokens[j].end;
  const start = t.text === 'async' && (tokens[i + 1]?.text === '(' || isIdentifier(tokens[i + 1]?.text)) ? i + 1 : i;
  const s = tokens[start];
  if (s.text === '(' && s.type === T.Punct && s.match > start && arrowAt(s.match + 1)) return 'function_node';
  if (s.type === T.Word && isIdentifier(s.text) && arrowAt(start + 1)) return 'function_node';
  if (t.text === 'new') {
    let j = i + 1;
    let last: string | undefined;
    while (tokens[j]?.type === T.Word && isIdentifier(tokens[j].text)) {
      last = tokens[j].text;
      if (tokens[j + 1]?.text !== '.') break;
      j += 2;
    }
    if (last === 'ToolNode') return 'tool_node';
    if (last === 'ModelNode') return 'model_node';
    return 'unknown';
  }
  if (t.type === T.Word && isIdentifier(t.text)) {
    const next = tokens[i + 1]?.text;
    const whole = next === undefined || next === ',' || next === ')' || next === ';' || next === '!' || TYPE_WRAPPERS.has(next);
    if (!whole) return 'unknown';
    const init = initializers.get(t.text);
    if (init !== undefined) return init === -1 ? 'function_node' : kindAt(tokens, init, initializers, known, depth + 1);
  }
  return 'unknown';
}

/** The exports of a module's tokens: compiled graphs first (see `SourceAnalysis.exports`). */
function moduleExports(tokens: readonly string[]): { exports: string[]; graphExports: number } {
  const graphs = new Set<string>();
  const compiledLocals = new Set<string>();
  const named: string[] = [];
  const listed: Array<{ local: string; name: string }> = [];
  let hasDefault = false;
  // The declaration being read, until its `;`: a `.compile(` before then makes it a graph.
  let pending: { name: string; exported: boolean } | undefined;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t === 'export') {
      const next = tokens[i + 1];
      if (DECLARATIONS.has(next) && isIdentifier(tokens[i + 2])) {
        pending = { name: tokens[i + 2], exported: true };
        named.push(tokens[i + 2]);
        i += 2;
      } else if (next === 'class' && isIdentifier(tokens[i + 2])) {
        named.push(tokens[i + 2]);
        i += 2;
      } else if (next === 'function' || (next === 'async' && tokens[i + 2] === 'function')) {
        let j = next === 'async' ? i + 3 : i + 2;
        if (tokens[j] === '*') j++;
        if (isIdentifier(tokens[j])) named.push(tokens[j]);
        i = j;
      } else if (next === 'default') {
        hasDefault = true;
        i++;
      } else if (next === '{') {
        // `export { a, b as c }`: read up to the closing brace, once.
        let j = i + 2;
        while (j < tokens.length && tokens[j] !== '}') {
          // `export { type T }` exports a type, not a value.
          const typeOnly = tokens[j] === 'type' && isIdentifier(tokens[j + 1]) && tokens[j + 1] !== 'as';
          if (typeOnly) j++;
          const local = tokens[j];
          let name = local;
          let k = j + 1;
          if (tokens[k] === 'as' && tokens[k + 1] !== undefined) {
            name = tokens[k + 1];
            k += 2;
          }
          const wellFormed = tokens[k] === ',' || tokens[k] === '}';
          if (wellFormed && !typeOnly && isIdentifier(local) && isIdentifier(name)) listed.push({ local, name });
          j = k;
          while (j < tokens.length && tokens[j] !== ',' && tokens[j] !== '}') j++;
          if (tokens[j] === ',') j++;
        }
        i = j;
      }
    } else if (DECLARATIONS.has(t) && isIdentifier(tokens[i + 1])) {
      pending = { name: tokens[i + 1], exported: false };
      i++;
    } else if (t === ';') {
      pending = undefined;
    } else if (t === '.' && tokens[i + 1] === 'compile' && tokens[i + 2] === '(' && pending) {
      (pending.exported ? graphs : compiledLocals).add(pending.name);
      pending = undefined;
      i += 2;
    }
  }
  const others = new Set<string>();
  for (const name of named) if (!graphs.has(name)) others.add(name);
  for (const { local, name } of listed) {
    if (graphs.has(name)) continue;
    if (compiledLocals.has(local)) graphs.add(name);
    else others.add(name);
  }
  for (const g of graphs) others.delete(g);
  if (hasDefault) others.add('default');
  return { exports: [...graphs, ...others], graphExports: graphs.size };
}

/** The `(` of a call of method `name` at token `i` (`x.name(`, `x?.name(`, `x.name?.(`, `x['name'](`), or -1. */
function callOpen(tokens: readonly Token[], i: number): number {
  const t = tokens[i];
  let after: number;
  if (t.type === T.Word) {
    if (tokens[i - 1]?.text !== '.' || tokens[i - 1].type !== T.Punct) return -1;
    after = i + 1;
  } else if (t.type === T.String && tokens[i - 1]?.text === '[' && tokens[i + 1]?.text === ']') after = i + 2;
  else return -1;
  if (tokens[after]?.text === '?' && tokens[after + 1]?.text === '.') after += 2;
  return tokens[after]?.text === '(' && tokens[after].type === T.Punct ? after : -1;
}

const METHODS: ReadonlySet<string> = new Set(['registerToolHandler', 'registerTool', 'addNode']);

// How many initializers a registration's name is followed through (`registerTool(tool)`, `registerToolHandler(tool.name, …)`, `const NAME = 'x'`).
const MAX_NAME_DEPTH = 3;

/** One binding of a name (`const`, `let`, `var`, `function`): the block it is seen in, and its initializer's first token (-1 when it has none to follow). */
interface Binding {
  init: number;
  /** Declared with `let` or `var`: an assignment to the name elsewhere makes its value unknown. */
  mutable?: boolean;
  /** The `{` of the innermost block around the declaration (-1: the module), and the token its block ends at. */
  open: number;
  close: number;
}

// Words before a parenthesis that is a condition, not a parameter list.
const CONTROL_KEYWORDS: ReadonlySet<string> = new Set(['if', 'for', 'while', 'switch', 'with', 'return', 'typeof', 'await', 'new']);

/** Whether tokens `at`, `at + 1` are `=>`. */
function isArrow(tokens: readonly Token[], at: number): boolean {
  return tokens[at]?.text === '=' && tokens[at + 1]?.text === '>' && tokens[at + 1].start === tokens[at].end;
}

/** Whether token `at` is a plain `=` (not `==`, `===` or `=>`). */
function isAssignment(tokens: readonly Token[], at: number): boolean {
  const t = tokens[at];
  if (t?.type !== T.Punct || t.text !== '=') return false;
  const next = tokens[at + 1];
  return !(next && next.start === t.end && (next.text === '=' || next.text === '>'));
}

/**
 * When the parenthesis closing at `close` ends a parameter list: the token of the function's body
 * block (`) {`, `) => {`, `): Type {`), -1 for an arrow whose body is an expression, undefined when
 * it is no parameter list. A return type is looked through on a bounded number of tokens.
 */
function functionBodyAfter(tokens: readonly Token[], close: number): number | undefined {
  let j = close + 1;
  if (tokens[j]?.text === ':') {
    const stop = Math.min(tokens.length, j + 64);
    j++;
    while (j < stop && !isArrow(tokens, j) && tokens[j].text !== '{') {
      const t = tokens[j];
      if (t.type === T.Punct && (t.text === ';' || t.text === ',' || t.text === ')' || t.text === ']' || t.text === '}')) return undefined;
      j = t.match > j ? t.match + (t.type === T.Template ? 0 : 1) : j + 1;
    }
  }
  const t = tokens[j];
  if (t?.type === T.Punct && t.text === '{' && t.match > j) return j;
  if (isArrow(tokens, j)) return tokens[j + 2]?.text === '{' && tokens[j + 2].match > j + 2 ? j + 2 : -1;
  return undefined;
}

// How many bindings of one name are told apart by their blocks; a name bound more often than that is not followed (each look-up stays bounded).
const MAX_BINDINGS = 64;

/**
 * The bindings of a source's names, by the blocks they are declared in: a name used at a token
 * is the binding of the innermost block around that token, wherever in the block it is declared
 * (a tool may be declared below the function that registers it). The same name bound in two
 * blocks (`const mockTool = …` in each test of a file) is two bindings; bound twice in one block,
 * or bound more than `MAX_BINDINGS` times, it is not followed, so nothing is read from it.
 */
class Bindings {
  private readonly byName = new Map<string, Binding[] | null>();
  /** Names assigned to after their declaration (`x = …`, `x.name = …`): a `let` or `var` of theirs holds no known value. */
  readonly assigned = new Set<string>();
  /** What following an initializer gave, by its first token, depth and reader: each initializer is read once a depth, however many registrations name it. */
  readonly followed = new Map<number, number | undefined>();

  add(name: string, binding: Binding): void {
    const list = this.byName.get(name);
    if (list === null) return;
    if (list === undefined) this.byName.set(name, [binding]);
    else if (list.length >= MAX_BINDINGS) this.byName.set(name, null);
    else list.push(binding);
  }

  /** The first token of the initializer `name` holds where it is used at token `at`; undefined when that is not one known binding with an initializer. */
  initializerAt(name: string, at: number): number | undefined {
    const list = this.byName.get(name);
    if (!list) return undefined;
    let best: Binding | undefined;
    let tied = false;
    for (const b of list) {
      if (!(b.open < at && at < b.close)) continue;
      if (best === undefined || b.open > best.open) {
        best = b;
        tied = false;
      } else if (b.open === best.open) tied = true;
    }
    return best === undefined || tied || best.init < 0 || (best.mutable && this.assigned.has(name)) ? undefined : best.init;
  }
}

/**
 * The name a registration gives, read from the tokens `[from, end)` of an argument:
 * `registerToolHandler`'s first argument (a literal, a `const` holding one, or `tool.name` of a
 * `const tool = { name: '…' }`), or `registerTool`'s one (an object literal with a `name`, or a
 * `const` holding one). A name that cannot be followed to one literal is computed (`name`
 * undefined, the site the argument itself), so that nothing is judged from it.
 */
function registrationName(
  tokens: readonly Token[],
  from: number,
  end: number,
  method: 'registerToolHandler' | 'registerTool',
  bindings: Bindings,
  text: string,
  lineStarts: readonly number[],
): SourceName {
  const computed = nameOf(tokens, from, end, text, lineStarts);
  const literal = method === 'registerTool' ? objectName(tokens, from, end, bindings, text, 0) : nameValue(tokens, from, end, bindings, text, 0);
  return literal === undefined ? { ...computed, name: undefined, inner: undefined, exact: false } : nameOf(tokens, literal, literal + 1, text, lineStarts);
}

/**
 * The end of the expression an initializer holds from token `at`: its `;`, `,` or closing bracket
 * at its own level, or (without semicolons) a line break before a word that cannot go on with it.
 */
function initializerEnd(tokens: readonly Token[], at: number, text: string): number {
  let j = at;
  while (j < tokens.length) {
    const t = tokens[j];
    if (t.type === T.Punct && (t.text === ';' || t.text === ',' || t.text === ')' || t.text === ']' || t.text === '}')) break;
    if (j > at && t.type === T.Word && !TYPE_WRAPPERS.has(t.text) && t.text !== 'instanceof' && t.text !== 'in' && text.slice(tokens[j - 1].end, t.start).includes('\n')) break;
    if (t.match > j) j = t.match + (t.type === T.Template ? 0 : 1);
    else j++;
  }
  return j;
}

/**
 * `[from, end)` without a trailing `as const` / `as T` / `satisfies T` (`'x' as const` is `'x'`).
 * Only a wrapper at the expression's own level counts: an `as` inside its brackets (`handler: () =>
 * (window as any).x` in an object literal) is part of it, and `x.as` is a property.
 */
function withoutTypeWrapper(tokens: readonly Token[], from: number, end: number): number {
  for (let j = from; j < end;) {
    const t = tokens[j];
    if (j > from && t.type === T.Word && TYPE_WRAPPERS.has(t.text) && tokens[j - 1].text !== '.') return j;
    j = t.match > j ? t.match + (t.type === T.Template ? 0 : 1) : j + 1;
  }
  return end;
}

/** The token of the one string literal `[from, end)` is or holds (through `const` initializers and `x.name`); undefined when computed. */
function nameValue(tokens: readonly Token[], from: number, end: number, bindings: Bindings, text: string, depth: number): number | undefined {
  if (depth > MAX_NAME_DEPTH) return undefined;
  const stop = withoutTypeWrapper(tokens, from, end);
  const first = tokens[from];
  if (stop === from + 1) {
    if (literalOf(first) !== undefined) return from;
    if (first.type === T.Word && isIdentifier(first.text)) {
      const init = bindings.initializerAt(first.text, from);
      return init === undefined ? undefined : follow(tokens, init, nameValue, bindings, text, depth + 1);
    }
    return undefined;
  }
  // `tool.name`, with `tool` a `const` holding an object literal.
  if (stop === from + 3 && first.type === T.Word && tokens[from + 1].text === '.' && tokens[from + 2].text === 'name') {
    const init = bindings.initializerAt(first.text, from);
    return init === undefined ? undefined : follow(tokens, init, objectName, bindings, text, depth + 1);
  }
  return undefined;
}

/** `read` (nameValue or objectName) of the initializer starting at token `init`, read once for each depth and kept in `bindings.followed`. */
function follow(tokens: readonly Token[], init: number, read: typeof nameValue, bindings: Bindings, text: string, depth: number): number | undefined {
  const key = (init * (MAX_NAME_DEPTH + 2) + Math.min(depth, MAX_NAME_DEPTH + 1)) * 2 + (read === objectName ? 1 : 0);
  if (bindings.followed.has(key)) return bindings.followed.get(key);
  const found = read(tokens, init, initializerEnd(tokens, init, text), bindings, text, depth);
  bindings.followed.set(key, found);
  return found;
}

/**
 * The token of the literal `name` of the object `[from, end)` is or holds: an object literal's own
 * `name: '…'` (a spread after it, or none with a spread before it, makes it computed), or a `const` holding one.
 */
function objectName(tokens: readonly Token[], from: number, end: number, bindings: Bindings, text: string, depth: number): number | undefined {
  if (depth > MAX_NAME_DEPTH) return undefined;
  const stop = withoutTypeWrapper(tokens, from, end);
  const first = tokens[from];
  if (stop === from + 1 && first.type === T.Word && isIdentifier(first.text)) {
    const init = bindings.initializerAt(first.text, from);
    return init === undefined ? undefined : follow(tokens, init, objectName, bindings, text, depth + 1);
  }
  if (first.text !== '{' || first.type !== T.Punct || first.match !== stop - 1) return undefined;
  const close = first.match;
  let name: number | undefined;
  let computed = false;
  for (let j = from + 1; j < close;) {
    const next = argumentEnd(tokens, j, close);
    const key = tokens[j];
    if (key.text === '.' && tokens[j + 1]?.text === '.' && tokens[j + 2]?.text === '.') {
      // A spread may hold a `name` of its own, which a later `name` overrides.
      computed = true;
      name = undefined;
    } else if ((key.type === T.Word ? key.text : literalOf(key)) === 'name') {
      if (tokens[j + 1]?.text === ':' && j + 2 < next) {
        name = nameValue(tokens, j + 2, next, bindings, text, depth + 1);
        computed = name === undefined;
      } else {
        // `{ name }` or `name() {}`: a value read elsewhere.
        name = undefined;
        computed = true;
      }
    }
    j = next + 1;
  }
  return computed ? undefined : name;
}

/**
 * Reads one source text: its exports, the nodes it adds and the handlers it registers. Never
 * throws and never runs anything; time and memory are linear in the text's length.
 */
export function analyzeSource(text: string): SourceAnalysis {
  const { tokens, lineStarts, syntaxError } = scan(text);
  const exports = moduleExports(tokens.filter((t) => t.type === T.Word || t.type === T.Punct).map((t) => t.text));
  const handlers: SourceName[] = [];
  const nodes: SourceNode[] = [];
  // Worth a second look only when a call's name occurs at all (most files mention neither).
  if (text.includes('registerTool') || text.includes('addNode')) {
    const initializers = new Map<string, number>();
    const bindings = new Bindings();
    // The `{` of every block open at the token read: a binding is seen in the innermost one.
    const blocks: number[] = [];
    // Every bracket open at the token read: the innermost ends an arrow function without a block.
    const brackets: number[] = [];
    const bind = (name: string, init: number, at: number, mutable = false) => {
      const open = blocks.length > 0 ? blocks[blocks.length - 1] : -1;
      bindings.add(name, { init, open, close: open === -1 || tokens[open].match < at ? tokens.length : tokens[open].match, ...(mutable ? { mutable } : {}) });
    };
    // A parameter (or a name a pattern binds) hides the name's other bindings in its function: its value is not known there.
    const shadow = (from: number, to: number, open: number, close: number) => {
      for (let j = from; j < to; j++) if (tokens[j].type === T.Word && isIdentifier(tokens[j].text)) bindings.add(tokens[j].text, { init: -1, open, close });
    };
    const enclosingEnd = () => {
      const top = brackets.length > 0 ? brackets[brackets.length - 1] : -1;
      return top === -1 ? tokens.length : tokens[top].match;
    };
    const adds: Array<{ site: SourceName; value: number }> = [];
    // Read once every `const` is known: a tool may be declared below the function that registers it.
    const registrations: Array<{ method: 'registerToolHandler' | 'registerTool'; first: number; end: number }> = [];
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i];
      if (t.type === T.Punct && t.text === '{') blocks.push(i);
      else if (t.type === T.Punct && t.text === '}' && blocks.length > 0 && tokens[blocks[blocks.length - 1]].match === i) blocks.pop();
      if (t.type === T.Punct && (t.text === '(' || t.text === '[' || t.text === '{') && t.match > i) {
        // `(params) => …`, `function f(params) {`, a method, `catch (e) {`: the parameters hide outer names in the body.
        if (t.text === '(' && !(tokens[i - 1]?.type === T.Word && CONTROL_KEYWORDS.has(tokens[i - 1].text))) {
          const body = functionBodyAfter(tokens, t.match);
          if (body !== undefined) shadow(i + 1, t.match, i, body === -1 ? enclosingEnd() : tokens[body].match);
        }
        brackets.push(i);
      } else if (t.type === T.Punct && (t.text === ')' || t.text === ']' || t.text === '}') && brackets.length > 0 && tokens[brackets[brackets.length - 1]].match === i)
        brackets.pop();
      if (t.type === T.Word && isIdentifier(t.text) && tokens[i - 1]?.text !== '.') {
        if (isArrow(tokens, i + 1)) {
          // `tool => …`: one parameter without parentheses.
          const block = tokens[i + 3]?.text === '{' && tokens[i + 3].match > i + 3 ? tokens[i + 3].match : enclosingEnd();
          shadow(i, i + 1, i, block);
        } else if (
          !DECLARATIONS.has(tokens[i - 1]?.text ?? '') &&
          (isAssignment(tokens, i + 1) || (tokens[i + 1]?.text === '.' && tokens[i + 2]?.text === 'name' && isAssignment(tokens, i + 3)))
        ) {
          // `tool = …` or `tool.name = …` after the declaration: a `let` or `var` of it holds no known value.
          bindings.assigned.add(t.text);
        }
      }
      if (t.type === T.Word && DECLARATIONS.has(t.text) && (tokens[i + 1]?.text === '{' || tokens[i + 1]?.text === '[') && tokens[i + 1].match > i + 1) {
        // `const { tool } = …`: every name the pattern binds is one whose value is not followed.
        const open = blocks.length > 0 ? blocks[blocks.length - 1] : -1;
        shadow(i + 2, tokens[i + 1].match, open, open === -1 ? tokens.length : tokens[open].match);
      }
      if (t.type === T.Word && DECLARATIONS.has(t.text) && isIdentifier(tokens[i + 1]?.text) && tokens[i + 1].type === T.Word) {
        // `const x = …` or `const x: Type = …` (the type read up to its `=`, on a bounded number of tokens).
        let j = i + 2;
        if (tokens[j]?.text === ':') {
          const stop = Math.min(tokens.length, j + 64);
          while (j < stop && !(tokens[j].text === '=' && tokens[j + 1]?.text !== '>') && tokens[j].text !== ';')
            j = tokens[j].match > j ? tokens[j].match + (tokens[j].type === T.Template ? 0 : 1) : j + 1;
        }
        const init = tokens[j]?.text === '=' && tokens[j + 1] !== undefined && tokens[j + 1].text !== '>' ? j + 1 : -1;
        if (init !== -1) initializers.set(tokens[i + 1].text, init);
        // Bound without an initializer to follow (`let x;`, `for (const t of tools)`): it still hides the name's other bindings.
        bind(tokens[i + 1].text, init, i, t.text !== 'const');
      } else if (t.type === T.Word && t.text === 'function' && tokens[i + 1]?.type === T.Word && isIdentifier(tokens[i + 1].text)) {
        initializers.set(tokens[i + 1].text, -1);
        bind(tokens[i + 1].text, -1, i);
      }
      const method = t.type === T.Word ? t.text : t.type === T.String ? literalOf(t) : undefined;
      if (method === undefined || !METHODS.has(method)) continue;
      const open = callOpen(tokens, i);
      if (open === -1) continue;
      // A call left open (a file being typed) runs to the end of the text: its name still counts.
      const close = tokens[open].match > open ? tokens[open].match : tokens.length;
      const first = open + 1;
      if (first === close || tokens[first].text === '.') continue;
      const end = argumentEnd(tokens, first, close);
      if (end === first) continue;
      if (method === 'addNode') adds.push({ site: nameOf(tokens, first, end, text, lineStarts), value: end < close ? end + 1 : -1 });
      else registrations.push({ method: method as 'registerToolHandler' | 'registerTool', first, end });
    }
    const sites = new Set<number>();
    for (const { method, first, end } of registrations) {
      const site = registrationName(tokens, first, end, method, bindings, text, lineStarts);
      // One tool registered twice through its `const` (`registerTool(tool)` and `registerToolHandler(tool.name, …)`) is one name at one place.
      if (site.name !== undefined && sites.has(site.offset)) continue;
      sites.add(site.offset);
      handlers.push(site);
    }
    const known = new Map<number, NodeKind>();
    for (const { site, value } of adds) nodes.push({ ...site, kind: value === -1 || value >= tokens.length ? 'unknown' : kindAt(tokens, value, initializers, known) });
  }
  return { ...exports, handlers, nodes, ...(syntaxError ? { syntaxError } : {}) };
}
