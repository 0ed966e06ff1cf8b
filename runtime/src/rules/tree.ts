/**
 * A strict JSON parser with positions that keeps the tree in flat typed arrays: one index a
 * node, no object per node. A 50,000-tool file is millions of nodes; as objects they would
 * cost the garbage collector more than the parse itself. Rules read the tree through the
 * index-based methods below; editors that want `jsonc-parser`-shaped nodes get them from
 * `toJsonNode`, built on demand.
 *
 * The parser has no recursion (deep nesting cannot overflow the stack) and stops at the
 * first syntax error; `collectSyntaxProblems` then lists every error with recovery.
 */
import type { JsonNode } from './parse';

/** Node kinds. A property node's children are its key (a string node) and its value. */
export const enum Kind {
  Object = 1,
  Array = 2,
  Property = 3,
  String = 4,
  Number = 5,
  True = 6,
  False = 7,
  Null = 8,
}

const TYPE_NAMES: readonly JsonNode['type'][] = ['null', 'object', 'array', 'property', 'string', 'number', 'boolean', 'boolean', 'null'];

/** Objects nested deeper than this are refused: the limit keeps every later walk bounded. */
export const MAX_DEPTH = 1000;

/** No node. */
export const NONE = -1;

/** A syntax error: where, and what to say. */
export interface SyntaxError {
  offset: number;
  length: number;
  message: string;
}

/** The parsed text. Indexes are node ids; `NONE` (-1) stands for no node. */
export class Tree {
  count = 0;
  kind: Uint8Array;
  start: Int32Array;
  end: Int32Array;
  parent: Int32Array;
  first: Int32Array;
  next: Int32Array;
  /** 1 when a string node holds an escape (its value must be decoded). */
  escaped: Uint8Array;
  /**
   * For a tree `reuseTree` built: the string node whose characters the edit changed (else NONE).
   * It names the edit from the tree this one was built from; a text that did not change gets that
   * same tree back, with the field as it was.
   */
  editedString = NONE;
  /** Keys that appear more than once in one object: property ids, in document order. */
  readonly repeatedKeys: number[][] = [];
  private decoded: Map<number, string> | undefined;
  private materialized: JsonNode[] | undefined;

  constructor(
    readonly text: string,
    capacity = Math.max(64, text.length >> 3),
  ) {
    this.kind = new Uint8Array(capacity);
    this.start = new Int32Array(capacity);
    this.end = new Int32Array(capacity);
    this.parent = new Int32Array(capacity);
    this.first = new Int32Array(capacity);
    this.next = new Int32Array(capacity);
    this.escaped = new Uint8Array(capacity);
  }

  /** The root node (0). */
  get root(): number {
    return 0;
  }

  /** The node's type, as `jsonc-parser` names it. */
  type(node: number): JsonNode['type'] {
    return TYPE_NAMES[this.kind[node]];
  }

  /** The node's offset and length. */
  span(node: number): { offset: number; length: number } {
    return { offset: this.start[node], length: this.end[node] - this.start[node] };
  }

  /** A string node's value. */
  string(node: number): string {
    const text = this.text;
    if (this.escaped[node] === 0) return text.slice(this.start[node] + 1, this.end[node] - 1);
    this.decoded ??= new Map();
    let value = this.decoded.get(node);
    if (value === undefined) {
      value = JSON.parse(text.slice(this.start[node], this.end[node])) as string;
      this.decoded.set(node, value);
    }
    return value;
  }

  /** Whether string node `node` holds exactly `value`, without building the string. */
  stringEquals(node: number, value: string): boolean {
    if (this.escaped[node] !== 0) return this.string(node) === value;
    const start = this.start[node] + 1;
    return this.end[node] - 1 - start === value.length && this.text.startsWith(value, start);
  }

  /** The key (a string node) of property `property`. */
  keyOf(property: number): number {
    return this.first[property];
  }

  /** The value of property `property`. */
  valueOfProperty(property: number): number {
    return this.next[this.first[property]];
  }

  /** The last property of object `object` named `key` (the one a strict parser keeps), or NONE. */
  property(object: number, key: string): number {
    if (object === NONE || this.kind[object] !== Kind.Object) return NONE;
    let found = NONE;
    for (let p = this.first[object]; p !== NONE; p = this.next[p]) if (this.stringEquals(this.first[p], key)) found = p;
    return found;
  }

  /** The value of `object[key]` as a strict parser keeps it, or NONE. */
  get(object: number, key: string): number {
    const p = this.property(object, key);
    return p === NONE ? NONE : this.next[this.first[p]];
  }

  /** The children of a node (properties of an object, items of an array). */
  children(node: number): number[] {
    const out: number[] = [];
    for (let c = this.first[node]; c !== NONE; c = this.next[c]) out.push(c);
    return out;
  }

  /** The plain JavaScript value of a node, with repeated keys resolved as a strict parser does. */
  value(node: number): unknown {
    const make = (n: number): unknown => {
      switch (this.kind[n]) {
        case Kind.Object:
          return {};
        case Kind.Array:
          return [];
        case Kind.String:
          return this.string(n);
        case Kind.Number:
          return Number(this.text.slice(this.start[n], this.end[n]));
        case Kind.True:
          return true;
        case Kind.False:
          return false;
        default:
          return null;
      }
    };
    const result = make(node);
    const work: Array<[number, unknown]> = [[node, result]];
    while (work.length > 0) {
      const [n, target] = work.pop()!;
      if (this.kind[n] === Kind.Object) {
        for (let p = this.first[n]; p !== NONE; p = this.next[p]) {
          const v = this.next[this.first[p]];
          const value = make(v);
          Object.defineProperty(target, this.string(this.first[p]), { value, enumerable: true, writable: true, configurable: true });
          if (this.kind[v] === Kind.Object || this.kind[v] === Kind.Array) work.push([v, value]);
        }
      } else if (this.kind[n] === Kind.Array) {
        for (let c = this.first[n]; c !== NONE; c = this.next[c]) {
          const value = make(c);
          (target as unknown[]).push(value);
          if (this.kind[c] === Kind.Object || this.kind[c] === Kind.Array) work.push([c, value]);
        }
      }
    }
    return result;
  }

  /** The whole tree as `jsonc-parser`-shaped nodes (built once, then cached). */
  toJsonNode(node = 0): JsonNode {
    if (!this.materialized) {
      const nodes: JsonNode[] = new Array(this.count);
      for (let i = 0; i < this.count; i++) {
        const k = this.kind[i];
        const n: JsonNode = { type: TYPE_NAMES[k], offset: this.start[i], length: this.end[i] - this.start[i] };
        if (k === Kind.String) n.value = this.string(i);
        else if (k === Kind.Number) n.value = Number(this.text.slice(this.start[i], this.end[i]));
        else if (k === Kind.True) n.value = true;
        else if (k === Kind.False) n.value = false;
        else if (k === Kind.Null) n.value = null;
        else n.children = [];
        nodes[i] = n;
      }
      // Children are created after their parents, so one forward pass links them in order.
      for (let i = 1; i < this.count; i++) {
        const p = this.parent[i];
        nodes[i].parent = nodes[p];
        nodes[p].children!.push(nodes[i]);
        if (this.kind[p] === Kind.Property && this.first[p] !== i) nodes[p].colonOffset = this.text.indexOf(':', this.end[this.first[p]]);
      }
      this.materialized = nodes;
    }
    return this.materialized[node];
  }

  /** Adds a node; returns its id. */
  add(kind: Kind, start: number, parent: number): number {
    const id = this.count;
    if (id === this.kind.length) this.grow();
    this.kind[id] = kind;
    this.start[id] = start;
    this.end[id] = start;
    this.parent[id] = parent;
    this.first[id] = NONE;
    this.next[id] = NONE;
    this.escaped[id] = 0;
    this.count = id + 1;
    return id;
  }

  private grow(): void {
    const size = this.kind.length * 2;
    const widen = <T extends Int32Array | Uint8Array>(a: T): T => {
      const b = new (a.constructor as new (n: number) => T)(size);
      b.set(a);
      return b;
    };
    this.kind = widen(this.kind);
    this.start = widen(this.start);
    this.end = widen(this.end);
    this.parent = widen(this.parent);
    this.first = widen(this.first);
    this.next = widen(this.next);
    this.escaped = widen(this.escaped);
  }
}

/** Characters compared at once while looking for the edit between two texts. */
const DIFF_CHUNK = 2048;

/**
 * The tree of `text` built from `previous` (the tree of an earlier text of the same document)
 * without parsing, when the two texts differ by one edit inside a string value: between its
 * quotes, in a string without escapes, adding no quote, backslash or control character. Every
 * token but that string is then the same, only moved, so the result is the tree `parseTree`
 * would build (node for node; the tests hold the two side by side). Undefined for any other
 * edit (a key, several tokens, an escape...): parse `text` instead. A keystroke in a
 * description is the common case, and a parse is most of an audit.
 */
export function reuseTree(previous: Tree, text: string): Tree | undefined {
  const before = previous.text;
  if (before === text) return previous;
  const shorter = Math.min(before.length, text.length);
  // Whole chunks are compared natively first (a character loop over a long text costs more than
  // the rules), then the characters of the chunk that differs.
  let head = 0;
  while (head + DIFF_CHUNK <= shorter && before.substring(head, head + DIFF_CHUNK) === text.substring(head, head + DIFF_CHUNK)) head += DIFF_CHUNK;
  while (head < shorter && before.charCodeAt(head) === text.charCodeAt(head)) head++;
  let tail = 0;
  const most = shorter - head;
  while (
    tail + DIFF_CHUNK <= most &&
    before.substring(before.length - tail - DIFF_CHUNK, before.length - tail) === text.substring(text.length - tail - DIFF_CHUNK, text.length - tail)
  ) {
    tail += DIFF_CHUNK;
  }
  while (tail < most && before.charCodeAt(before.length - 1 - tail) === text.charCodeAt(text.length - 1 - tail)) tail++;
  // The edit replaced before[head, replacedEnd) with text[head, insertedEnd).
  const replacedEnd = before.length - tail;
  const insertedEnd = text.length - tail;
  // Node starts never decrease with the id (nodes are added in document order), so the string
  // holding the edit is the last node starting before it.
  let low = 0;
  let high = previous.count - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (previous.start[middle] < head) low = middle;
    else high = middle - 1;
  }
  const node = low;
  if (previous.count === 0 || previous.start[node] >= head || previous.kind[node] !== Kind.String || previous.escaped[node] !== 0) return undefined;
  const parent = previous.parent[node];
  // A key is left to the parser: repeated keys depend on it.
  if (parent === NONE || (previous.kind[parent] === Kind.Property && previous.first[parent] === node)) return undefined;
  if (head < previous.start[node] + 1 || replacedEnd > previous.end[node] - 1) return undefined;
  for (let i = head; i < insertedEnd; i++) {
    const ch = text.charCodeAt(i);
    if (ch === Ch.Quote || ch === Ch.Backslash || ch < 0x20) return undefined;
  }
  const count = previous.count;
  const tree = new Tree(text, count);
  tree.count = count;
  tree.kind.set(previous.kind.subarray(0, count));
  tree.parent.set(previous.parent.subarray(0, count));
  tree.first.set(previous.first.subarray(0, count));
  tree.next.set(previous.next.subarray(0, count));
  tree.escaped.set(previous.escaped.subarray(0, count));
  const delta = insertedEnd - replacedEnd;
  const start = tree.start;
  const end = tree.end;
  const oldStart = previous.start;
  const oldEnd = previous.end;
  // Nodes after the edit move; the string and its ancestors (which hold it) grow or shrink.
  for (let i = 0; i < count; i++) {
    const s = oldStart[i];
    const e = oldEnd[i];
    start[i] = s >= replacedEnd ? s + delta : s;
    end[i] = e >= replacedEnd ? e + delta : e;
  }
  for (const group of previous.repeatedKeys) tree.repeatedKeys.push(group.slice());
  tree.editedString = node;
  return tree;
}

const enum Ch {
  Tab = 9,
  LineFeed = 10,
  CarriageReturn = 13,
  Space = 32,
  Quote = 34,
  Plus = 43,
  Comma = 44,
  Minus = 45,
  Dot = 46,
  Slash = 47,
  Zero = 48,
  Nine = 57,
  Colon = 58,
  UpperE = 69,
  OpenBracket = 91,
  Backslash = 92,
  CloseBracket = 93,
  LowerE = 101,
  OpenBrace = 123,
  CloseBrace = 125,
}

class Failure {
  constructor(readonly error: SyntaxError) {}
}

/** Parses `text` as strict JSON (RFC 8259: no comments, no trailing commas, no BOM). */
export function parseTree(text: string): { ok: true; tree: Tree } | { ok: false; error: SyntaxError } {
  try {
    return { ok: true, tree: new Parser(text).parse() };
  } catch (error) {
    if (error instanceof Failure) return { ok: false, error: error.error };
    throw error;
  }
}

/** The plain run of a string's characters: no quote, backslash or control character. */
const STRING_BODY = /[^"\\\x00-\x1f]*/y;

const VALUE_EXPECTED = 'Expected a value (an object, array, string, number, true, false or null).';

class Parser {
  private pos = 0;
  private readonly tree: Tree;

  constructor(private readonly text: string) {
    this.tree = new Tree(text);
  }

  parse(): Tree {
    const text = this.text;
    const tree = this.tree;
    this.skipSpace();
    if (this.pos >= text.length) throw this.fail(this.pos, 0, 'The file is empty: it must hold a JSON object.');
    // The open containers, innermost last, and the last child of each (to link siblings).
    const stack: number[] = [];
    const lastChild: number[] = [];
    let depth = 0;
    let node = this.value(NONE);
    for (;;) {
      const kind = tree.kind[node];
      if ((kind === Kind.Object || kind === Kind.Array) && tree.end[node] === tree.start[node]) {
        // A container was just opened: read its first member or its end.
        if (depth >= MAX_DEPTH) throw this.fail(tree.start[node], 1, `The JSON nests deeper than ${MAX_DEPTH} levels.`);
        stack[depth] = node;
        lastChild[depth] = NONE;
        depth++;
        this.skipSpace();
        if (text.charCodeAt(this.pos) === (kind === Kind.Object ? Ch.CloseBrace : Ch.CloseBracket)) {
          this.pos++;
          tree.end[node] = this.pos;
          depth--;
        } else {
          node = this.member(node, lastChild, depth - 1);
          continue;
        }
      }
      // `node` is complete: close its property, then read what follows in its parent.
      const owner = tree.parent[node];
      if (owner !== NONE && tree.kind[owner] === Kind.Property) tree.end[owner] = tree.end[node];
      if (depth === 0) break;
      const parent = stack[depth - 1];
      const isObject = tree.kind[parent] === Kind.Object;
      this.skipSpace();
      const ch = text.charCodeAt(this.pos);
      if (ch === Ch.Comma) {
        const comma = this.pos;
        this.pos++;
        this.skipSpace();
        const after = text.charCodeAt(this.pos);
        if (after === Ch.CloseBrace || after === Ch.CloseBracket) throw this.fail(comma, 1, 'Trailing comma: strict JSON allows no comma before a closing bracket.');
        node = this.member(parent, lastChild, depth - 1);
        continue;
      }
      if (ch === (isObject ? Ch.CloseBrace : Ch.CloseBracket)) {
        this.pos++;
        tree.end[parent] = this.pos;
        if (isObject) this.checkRepeatedKeys(parent);
        depth--;
        node = parent;
        continue;
      }
      const closer = isObject ? '}' : ']';
      if (this.pos >= text.length) throw this.fail(text.length, 0, `The text ends before this ${isObject ? 'object' : 'array'} is closed: expected ',' or '${closer}'.`);
      throw this.failToken(`Expected ',' or '${closer}'.`);
    }
    this.skipSpace();
    if (this.pos < text.length) throw this.failToken('Expected the end of the file after the root value.');
    return tree;
  }

  /** Reads one array item, or one `"key": value` of an object; returns the value node. */
  private member(container: number, lastChild: number[], level: number): number {
    const tree = this.tree;
    const text = this.text;
    if (tree.kind[container] === Kind.Array) {
      const item = this.value(container);
      this.link(container, item, lastChild, level);
      return item;
    }
    if (text.charCodeAt(this.pos) !== Ch.Quote) {
      if (this.pos >= text.length) throw this.fail(text.length, 0, "The text ends before this object is closed: expected a property name or '}'.");
      throw this.failToken('Expected a property name in double quotes.');
    }
    const property = tree.add(Kind.Property, this.pos, container);
    this.link(container, property, lastChild, level);
    const key = this.string(property);
    tree.first[property] = key;
    this.skipSpace();
    if (text.charCodeAt(this.pos) !== Ch.Colon) {
      if (this.pos >= text.length) throw this.fail(text.length, 0, `The text ends after the key ${text.slice(tree.start[key], tree.end[key])}: expected ':'.`);
      throw this.failToken(`Expected ':' after the key ${text.slice(tree.start[key], tree.end[key])}.`);
    }
    this.pos++;
    this.skipSpace();
    const value = this.value(property);
    tree.next[key] = value;
    return value;
  }

  private link(container: number, child: number, lastChild: number[], level: number): void {
    const previous = lastChild[level];
    if (previous === NONE) this.tree.first[container] = child;
    else this.tree.next[previous] = child;
    lastChild[level] = child;
  }

  /** Records the keys of `object` that appear more than once. */
  private checkRepeatedKeys(object: number): void {
    const tree = this.tree;
    let count = 0;
    for (let p = tree.first[object]; p !== NONE; p = tree.next[p]) count++;
    if (count < 2) return;
    if (count <= 12) {
      // Few keys: compare each with the later ones, without building strings.
      let reported: number[] | undefined;
      for (let p = tree.first[object]; p !== NONE; p = tree.next[p]) {
        if (reported?.includes(p)) continue;
        let group: number[] | undefined;
        for (let q = tree.next[p]; q !== NONE; q = tree.next[q]) {
          if (this.sameKey(tree.first[p], tree.first[q])) (group ??= [p]).push(q);
        }
        if (group) {
          tree.repeatedKeys.push(group);
          (reported ??= []).push(...group);
        }
      }
      return;
    }
    const seen = new Map<string, number[]>();
    for (let p = tree.first[object]; p !== NONE; p = tree.next[p]) {
      const key = tree.string(tree.first[p]);
      const group = seen.get(key);
      if (group) group.push(p);
      else seen.set(key, [p]);
    }
    for (const group of seen.values()) if (group.length > 1) tree.repeatedKeys.push(group);
  }

  private sameKey(a: number, b: number): boolean {
    const tree = this.tree;
    if (tree.escaped[a] !== 0 || tree.escaped[b] !== 0) return tree.string(a) === tree.string(b);
    const length = tree.end[a] - tree.start[a];
    if (length !== tree.end[b] - tree.start[b]) return false;
    const text = this.text;
    const sa = tree.start[a];
    const sb = tree.start[b];
    for (let i = 1; i < length - 1; i++) if (text.charCodeAt(sa + i) !== text.charCodeAt(sb + i)) return false;
    return true;
  }

  /** Reads a scalar completely, or the opening bracket of a container (completed by the caller). */
  private value(parent: number): number {
    this.skipSpace();
    const text = this.text;
    const start = this.pos;
    const ch = text.charCodeAt(start);
    switch (ch) {
      case Ch.OpenBrace:
        this.pos++;
        return this.tree.add(Kind.Object, start, parent);
      case Ch.OpenBracket:
        this.pos++;
        return this.tree.add(Kind.Array, start, parent);
      case Ch.Quote:
        return this.string(parent);
      case 116: // t
        return this.word('true', Kind.True, parent);
      case 102: // f
        return this.word('false', Kind.False, parent);
      case 110: // n
        return this.word('null', Kind.Null, parent);
      default:
        if (ch === Ch.Minus || (ch >= Ch.Zero && ch <= Ch.Nine)) return this.number(parent);
        if (start >= text.length) throw this.fail(text.length, 0, 'The text ends where a value was expected.');
        throw this.failToken(VALUE_EXPECTED);
    }
  }

  private word(word: string, kind: Kind, parent: number): number {
    const offset = this.pos;
    if (!this.text.startsWith(word, offset) || isWordChar(this.text.charCodeAt(offset + word.length))) throw this.failToken(VALUE_EXPECTED);
    this.pos += word.length;
    const node = this.tree.add(kind, offset, parent);
    this.tree.end[node] = this.pos;
    return node;
  }

  private number(parent: number): number {
    const text = this.text;
    const start = this.pos;
    let p = start;
    if (text.charCodeAt(p) === Ch.Minus) p++;
    const first = text.charCodeAt(p);
    if (first === Ch.Zero) p++;
    else if (first > Ch.Zero && first <= Ch.Nine) while (isDigit(text.charCodeAt(p))) p++;
    else throw this.fail(start, Math.max(1, p - start), 'Invalid number: a digit must follow the minus sign.');
    if (text.charCodeAt(p) === Ch.Dot) {
      p++;
      if (!isDigit(text.charCodeAt(p))) throw this.fail(start, p - start, 'Invalid number: a digit must follow the decimal point.');
      while (isDigit(text.charCodeAt(p))) p++;
    }
    const e = text.charCodeAt(p);
    if (e === Ch.LowerE || e === Ch.UpperE) {
      p++;
      const sign = text.charCodeAt(p);
      if (sign === Ch.Plus || sign === Ch.Minus) p++;
      if (!isDigit(text.charCodeAt(p))) throw this.fail(start, p - start, 'Invalid number: the exponent needs digits.');
      while (isDigit(text.charCodeAt(p))) p++;
    }
    if (isWordChar(text.charCodeAt(p)) || text.charCodeAt(p) === Ch.Dot) throw this.failToken('Invalid number.', start);
    this.pos = p;
    const node = this.tree.add(Kind.Number, start, parent);
    this.tree.end[node] = p;
    return node;
  }

  private string(parent: number): number {
    const text = this.text;
    const start = this.pos;
    let p = start + 1;
    let escaped = 0;
    for (;;) {
      // Skip the plain characters in one native step; stop at a quote, a backslash or a control character.
      STRING_BODY.lastIndex = p;
      STRING_BODY.test(text);
      p = STRING_BODY.lastIndex;
      const ch = text.charCodeAt(p);
      if (ch === Ch.Quote) break;
      if (ch === Ch.Backslash) {
        escaped = 1;
        const esc = text.charCodeAt(p + 1);
        if (esc === 117) {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(p + 2, p + 6))) throw this.fail(p, Math.min(6, text.length - p), 'Invalid \\u escape: it needs four hexadecimal digits.');
          p += 6;
          continue;
        }
        if (esc === Ch.Quote || esc === Ch.Backslash || esc === Ch.Slash || esc === 98 || esc === 102 || esc === 110 || esc === 114 || esc === 116) {
          p += 2;
          continue;
        }
        throw this.fail(p, Number.isNaN(esc) ? 1 : 2, 'Invalid escape in a string: use \\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX.');
      }
      if (ch < 0x20 || Number.isNaN(ch)) {
        if (Number.isNaN(ch)) throw this.fail(start, p - start, 'Unterminated string: the text ends before the closing quote.');
        if (ch === Ch.LineFeed || ch === Ch.CarriageReturn) throw this.fail(start, p - start, 'Unterminated string: a string cannot span lines (write \\n for a line break).');
        throw this.fail(p, 1, `Control character U+${ch.toString(16).toUpperCase().padStart(4, '0')} in a string: escape it.`);
      }
      p++;
    }
    this.pos = p + 1;
    const node = this.tree.add(Kind.String, start, parent);
    this.tree.end[node] = this.pos;
    this.tree.escaped[node] = escaped;
    return node;
  }

  private skipSpace(): void {
    const text = this.text;
    let p = this.pos;
    for (;;) {
      const ch = text.charCodeAt(p);
      if (ch === Ch.Space || ch === Ch.LineFeed || ch === Ch.CarriageReturn || ch === Ch.Tab) p++;
      else break;
    }
    this.pos = p;
  }

  private fail(offset: number, length: number, message: string): Failure {
    return new Failure({ offset, length, message });
  }

  /** A failure covering the token at the cursor (or at `offset`), whatever it is. */
  private failToken(message: string, offset = this.pos): Failure {
    const text = this.text;
    const ch = text.charCodeAt(offset);
    if (ch === Ch.Slash && (text.charCodeAt(offset + 1) === Ch.Slash || text.charCodeAt(offset + 1) === 42)) {
      return this.fail(offset, commentLength(text, offset), 'Comments are not allowed in strict JSON.');
    }
    if (ch === 0xfeff) return this.fail(offset, 1, 'A byte order mark is not allowed in strict JSON.');
    let end = offset + 1;
    if (isWordChar(ch)) while (end < text.length && isWordChar(text.charCodeAt(end))) end++;
    else if (ch >= 0xd800 && ch <= 0xdbff) end = offset + 2;
    return this.fail(offset, Math.min(end, text.length) - offset, message);
  }
}

/** The length of the comment starting at `offset` (`//` to the line end, `/*` to its close or the text end). */
export function commentLength(text: string, offset: number): number {
  if (text.charCodeAt(offset + 1) === Ch.Slash) {
    let end = offset + 2;
    while (end < text.length && text.charCodeAt(end) !== Ch.LineFeed && text.charCodeAt(end) !== Ch.CarriageReturn) end++;
    return end - offset;
  }
  const close = text.indexOf('*/', offset + 2);
  return (close < 0 ? text.length : close + 2) - offset;
}

function isDigit(ch: number): boolean {
  return ch >= Ch.Zero && ch <= Ch.Nine;
}

function isWordChar(ch: number): boolean {
  return (ch >= 97 && ch <= 122) || (ch >= 65 && ch <= 90) || (ch >= Ch.Zero && ch <= Ch.Nine) || ch === 95 || ch === 36;
}
