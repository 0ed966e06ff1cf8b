/**
 * A strict JSON parser with positions. It builds a tree in the shape of `jsonc-parser`'s
 * `Node` (so editors can use that library's helpers on it) without recursion, so deep
 * nesting cannot overflow the stack, and records every key repeated in one object.
 * It stops at the first syntax error; `syntaxProblems` then collects every error with
 * recovery for the report.
 */

/** A node of the tree, in the shape of `jsonc-parser`'s `Node`. */
export interface JsonNode {
  type: 'object' | 'array' | 'property' | 'string' | 'number' | 'boolean' | 'null';
  offset: number;
  length: number;
  /** Scalars: the value. Property key nodes: the key. */
  value?: unknown;
  colonOffset?: number;
  parent?: JsonNode;
  /** Objects: property nodes. Arrays: items. Properties: [key, value] (value absent while incomplete). */
  children?: JsonNode[];
}

/** A key that appears more than once in one object: its key nodes in document order. */
export interface RepeatedKey {
  key: string;
  occurrences: JsonNode[];
}

/** The outcome of a parse: a tree, or the first syntax error. */
export type ParseResult =
  | { ok: true; root: JsonNode; repeatedKeys: RepeatedKey[] }
  | { ok: false; error: { offset: number; length: number; message: string } };

/** Objects nested deeper than this are refused: the limit keeps every later walk bounded. */
export const MAX_DEPTH = 1000;

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

class SyntaxFailure {
  constructor(
    readonly offset: number,
    readonly length: number,
    readonly message: string,
  ) {}
}

/** Parses `text` as strict JSON (RFC 8259: no comments, no trailing commas, no BOM). */
export function parseJson(text: string): ParseResult {
  try {
    return new Parser(text).parse();
  } catch (error) {
    if (error instanceof SyntaxFailure) return { ok: false, error: { offset: error.offset, length: error.length, message: error.message } };
    throw error;
  }
}

class Parser {
  private pos = 0;
  private readonly repeatedKeys: RepeatedKey[] = [];

  constructor(private readonly text: string) {}

  parse(): ParseResult {
    const text = this.text;
    this.skipSpace();
    if (this.pos >= text.length) throw this.fail(this.pos, 0, 'The file is empty: it must hold a JSON object.');
    // Containers still open, innermost last, with the keys seen in each object.
    const stack: JsonNode[] = [];
    const keySets: (Map<string, JsonNode[]> | null)[] = [];
    let root: JsonNode | undefined;
    let node = this.parseValueStart(undefined);
    for (;;) {
      if (node.type === 'object' || node.type === 'array') {
        if (node.length === -1) {
          // A container was opened: read its first member or its end.
          if (stack.length >= MAX_DEPTH) throw this.fail(node.offset, 1, `The JSON nests deeper than ${MAX_DEPTH} levels.`);
          stack.push(node);
          keySets.push(null);
          this.skipSpace();
          const closer = node.type === 'object' ? Ch.CloseBrace : Ch.CloseBracket;
          if (text.charCodeAt(this.pos) === closer) {
            this.pos++;
            node.length = this.pos - node.offset;
            stack.pop();
            keySets.pop();
          } else {
            node = this.parseMember(node, keySets, stack.length - 1);
            continue;
          }
        }
      }
      // `node` is complete: close its property, then read what follows in its parent.
      const owner = node.parent;
      if (owner !== undefined && owner.type === 'property') owner.length = node.offset + node.length - owner.offset;
      const parent = stack[stack.length - 1];
      if (parent === undefined) {
        root = node;
        break;
      }
      this.skipSpace();
      const ch = text.charCodeAt(this.pos);
      const closer = parent.type === 'object' ? Ch.CloseBrace : Ch.CloseBracket;
      if (ch === Ch.Comma) {
        const comma = this.pos;
        this.pos++;
        this.skipSpace();
        const next = text.charCodeAt(this.pos);
        if (next === Ch.CloseBrace || next === Ch.CloseBracket) throw this.fail(comma, 1, 'Trailing comma: strict JSON allows no comma before a closing bracket.');
        node = this.parseMember(parent, keySets, stack.length - 1);
        continue;
      }
      if (ch === closer) {
        this.pos++;
        parent.length = this.pos - parent.offset;
        stack.pop();
        keySets.pop();
        node = parent;
        continue;
      }
      if (this.pos >= text.length) throw this.fail(text.length, 0, `The text ends before this ${parent.type === 'object' ? 'object' : 'array'} is closed: expected ',' or '${parent.type === 'object' ? '}' : ']'}'.`);
      throw this.failToken(`Expected ',' or '${parent.type === 'object' ? '}' : ']'}'.`);
    }
    this.skipSpace();
    if (this.pos < text.length) throw this.failToken('Expected the end of the file after the root value.');
    return { ok: true, root, repeatedKeys: this.repeatedKeys };
  }

  /** Reads one array item, or one `"key": value` of an object; returns the value node. */
  private parseMember(container: JsonNode, keySets: (Map<string, JsonNode[]> | null)[], depth: number): JsonNode {
    if (container.type === 'array') {
      const item = this.parseValueStart(container);
      container.children!.push(item);
      return item;
    }
    const text = this.text;
    if (text.charCodeAt(this.pos) !== Ch.Quote) {
      if (this.pos >= text.length) throw this.fail(text.length, 0, "The text ends before this object is closed: expected a property name or '}'.");
      throw this.failToken('Expected a property name in double quotes.');
    }
    const property: JsonNode = { type: 'property', offset: this.pos, length: 0, parent: container, children: [] };
    const key = this.parseString(property);
    property.children!.push(key);
    container.children!.push(property);
    this.noteKey(keySets, depth, key);
    this.skipSpace();
    if (text.charCodeAt(this.pos) !== Ch.Colon) {
      if (this.pos >= text.length) throw this.fail(text.length, 0, `The text ends after the key "${String(key.value)}": expected ':'.`);
      throw this.failToken(`Expected ':' after the key "${String(key.value)}".`);
    }
    property.colonOffset = this.pos;
    this.pos++;
    this.skipSpace();
    const value = this.parseValueStart(property);
    property.children!.push(value);
    return value;
  }

  private noteKey(keySets: (Map<string, JsonNode[]> | null)[], depth: number, key: JsonNode): void {
    let keys = keySets[depth];
    if (keys === null) {
      keys = new Map();
      keySets[depth] = keys;
    }
    const name = key.value as string;
    const seen = keys.get(name);
    if (seen === undefined) {
      keys.set(name, [key]);
      return;
    }
    seen.push(key);
    if (seen.length === 2) this.repeatedKeys.push({ key: name, occurrences: seen });
  }

  /**
   * Reads a scalar completely, or the opening bracket of a container (returned with
   * `length` -1 and empty children, completed by the caller).
   */
  private parseValueStart(parent: JsonNode | undefined): JsonNode {
    this.skipSpace();
    const text = this.text;
    const start = this.pos;
    const ch = text.charCodeAt(start);
    switch (ch) {
      case Ch.OpenBrace:
        this.pos++;
        return { type: 'object', offset: start, length: -1, parent, children: [] };
      case Ch.OpenBracket:
        this.pos++;
        return { type: 'array', offset: start, length: -1, parent, children: [] };
      case Ch.Quote:
        return this.parseString(parent);
      case 116: // t
        return this.parseWord('true', 'boolean', true, parent);
      case 102: // f
        return this.parseWord('false', 'boolean', false, parent);
      case 110: // n
        return this.parseWord('null', 'null', null, parent);
      default:
        if (ch === Ch.Minus || (ch >= Ch.Zero && ch <= Ch.Nine)) return this.parseNumber(parent);
        if (start >= text.length) throw this.fail(text.length, 0, 'The text ends where a value was expected.');
        throw this.failToken('Expected a value (an object, array, string, number, true, false or null).');
    }
  }

  private parseWord(word: string, type: 'boolean' | 'null', value: boolean | null, parent: JsonNode | undefined): JsonNode {
    if (!this.text.startsWith(word, this.pos)) throw this.failToken('Expected a value (an object, array, string, number, true, false or null).');
    const offset = this.pos;
    this.pos += word.length;
    if (isWordChar(this.text.charCodeAt(this.pos))) throw this.failToken('Expected a value (an object, array, string, number, true, false or null).', offset);
    return { type, offset, length: word.length, value, parent };
  }

  private parseNumber(parent: JsonNode | undefined): JsonNode {
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
    return { type: 'number', offset: start, length: p - start, value: Number(text.slice(start, p)), parent };
  }

  private parseString(parent: JsonNode | undefined): JsonNode {
    const text = this.text;
    const start = this.pos;
    let p = start + 1;
    let value = '';
    let chunkStart = p;
    for (;;) {
      const ch = text.charCodeAt(p);
      if (ch === Ch.Quote) break;
      if (Number.isNaN(ch)) throw this.fail(start, p - start, 'Unterminated string: the text ends before the closing quote.');
      if (ch < 0x20) {
        if (ch === Ch.LineFeed || ch === Ch.CarriageReturn) throw this.fail(start, p - start, 'Unterminated string: a string cannot span lines (write \\n for a line break).');
        throw this.fail(p, 1, `Control character U+${ch.toString(16).toUpperCase().padStart(4, '0')} in a string: escape it.`);
      }
      if (ch === Ch.Backslash) {
        value += text.slice(chunkStart, p);
        const esc = text.charCodeAt(p + 1);
        switch (esc) {
          case Ch.Quote: value += '"'; break;
          case Ch.Backslash: value += '\\'; break;
          case Ch.Slash: value += '/'; break;
          case 98: value += '\b'; break;
          case 102: value += '\f'; break;
          case 110: value += '\n'; break;
          case 114: value += '\r'; break;
          case 116: value += '\t'; break;
          case 117: {
            const hex = text.slice(p + 2, p + 6);
            if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw this.fail(p, Math.min(6, text.length - p), 'Invalid \\u escape: it needs four hexadecimal digits.');
            value += String.fromCharCode(parseInt(hex, 16));
            p += 4;
            break;
          }
          default:
            throw this.fail(p, Number.isNaN(esc) ? 1 : 2, 'Invalid escape in a string: use \\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX.');
        }
        p += 2;
        chunkStart = p;
        continue;
      }
      p++;
    }
    value += text.slice(chunkStart, p);
    this.pos = p + 1;
    return { type: 'string', offset: start, length: this.pos - start, value, parent };
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

  private fail(offset: number, length: number, message: string): SyntaxFailure {
    return new SyntaxFailure(offset, length, message);
  }

  /** A failure covering the token at the cursor (or at `offset`), whatever it is. */
  private failToken(message: string, offset = this.pos): SyntaxFailure {
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

/** The last property of `object` named `key` (the one a strict parser keeps), if any. */
export function propertyOf(object: JsonNode | undefined, key: string): JsonNode | undefined {
  const children = object?.type === 'object' ? object.children : undefined;
  if (!children) return undefined;
  for (let i = children.length - 1; i >= 0; i--) {
    const property = children[i];
    if (property.children![0].value === key) return property;
  }
  return undefined;
}

/** The value node of `object[key]` as a strict parser keeps it. */
export function valueOf(object: JsonNode | undefined, key: string): JsonNode | undefined {
  return propertyOf(object, key)?.children![1];
}

/** The plain JavaScript value of a node, with repeated keys resolved as a strict parser does. */
export function valueOfNode(node: JsonNode): unknown {
  // Iterative, like the parser, so deep values cannot overflow the stack.
  const build = (n: JsonNode): unknown => (n.type === 'object' ? {} : n.type === 'array' ? [] : n.value);
  const rootValue = build(node);
  const work: Array<[JsonNode, unknown]> = [[node, rootValue]];
  while (work.length > 0) {
    const [n, target] = work.pop()!;
    if (n.type === 'object') {
      for (const property of n.children!) {
        const [key, value] = property.children!;
        if (!value) continue;
        const v = build(value);
        Object.defineProperty(target, key.value as string, { value: v, enumerable: true, writable: true, configurable: true });
        if (value.type === 'object' || value.type === 'array') work.push([value, v]);
      }
    } else if (n.type === 'array') {
      for (const item of n.children!) {
        const v = build(item);
        (target as unknown[]).push(v);
        if (item.type === 'object' || item.type === 'array') work.push([item, v]);
      }
    }
  }
  return rootValue;
}

/** The innermost node that contains `offset` (the end included, as editors expect at a cursor). */
export function nodeAtOffset(root: JsonNode, offset: number): JsonNode | undefined {
  if (offset < root.offset || offset > root.offset + root.length) return undefined;
  let node = root;
  for (;;) {
    const children = node.children;
    if (!children) return node;
    let next: JsonNode | undefined;
    // Binary search: children are in document order.
    let lo = 0;
    let hi = children.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const child = children[mid];
      if (offset < child.offset) hi = mid - 1;
      else if (offset > child.offset + child.length) lo = mid + 1;
      else {
        next = child;
        break;
      }
    }
    if (!next) return node;
    node = next;
  }
}

/** The path of keys and indexes from the root to `node` (as `jsonc-parser`'s `getNodePath`). */
export function pathOfNode(node: JsonNode): (string | number)[] {
  const path: (string | number)[] = [];
  let current: JsonNode | undefined = node;
  while (current?.parent) {
    const parent: JsonNode = current.parent;
    if (parent.type === 'property') {
      if (parent.children![1] === current) path.push(parent.children![0].value as string);
      current = parent.parent;
      continue;
    }
    if (parent.type === 'array') path.push(parent.children!.indexOf(current));
    current = parent;
  }
  return path.reverse();
}
