/**
 * What one JS/TS source says about the project, read with `@babel/parser` (pure JavaScript,
 * TypeScript and JSX plugins; nothing is run, no native module): the nodes an agent module adds
 * (`addNode('TOOL', new ToolNode(…))`) and the remote-tool handlers any source registers
 * (`client.registerToolHandler('name', …)`). Only literal names count; a computed name is kept
 * as such, so callers can say so and judge nothing from it.
 */
import { parse, type ParserPlugin } from '@babel/parser';
import type { Range } from 'vscode-languageserver';
import type { NodeKind } from '10xgraph/rules';

/** The extensions the project index reads. */
export const SOURCE_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'] as const;

/** A string literal in a source: its value and where its text (between the quotes) lies. */
export interface NameSite {
  /** The literal's value; undefined when the name is computed (not a string literal). */
  name: string | undefined;
  /** The range of the argument (the literal with its quotes, or the computed expression). */
  range: Range;
  /** The range of the text between the quotes (literals only). */
  inner?: Range;
  /** True when the text between the quotes is exactly the value (no escapes): a rename can replace it. */
  exact: boolean;
}

/** One `registerToolHandler(name, …)` call. */
export type HandlerSite = NameSite;

/** One `addNode(name, node)` call and what the node is, as far as the source says. */
export interface NodeSite extends NameSite {
  kind: NodeKind;
}

/** The facts of one source file. */
export interface SourceFacts {
  handlers: HandlerSite[];
  nodes: NodeSite[];
  /** The parser's first error, when the text is not valid (what could be read is kept). */
  syntaxError?: string;
}

const NO_FACTS: SourceFacts = { handlers: [], nodes: [] };

/** True for a path the index reads (declarations excluded: they register nothing). */
export function isSourcePath(path: string): boolean {
  return !path.endsWith('.d.ts') && SOURCE_EXTENSIONS.some((e) => path.endsWith(e));
}

function pluginsFor(path: string): ParserPlugin[] {
  if (/\.[cm]?ts$/.test(path)) return ['typescript'];
  if (path.endsWith('.tsx')) return ['typescript', 'jsx'];
  return ['jsx'];
}

interface BabelNode {
  type: string;
  start?: number | null;
  end?: number | null;
  loc?: { start: { line: number; column: number }; end: { line: number; column: number } } | null;
  [key: string]: unknown;
}

function isNode(value: unknown): value is BabelNode {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

function rangeOfNode(node: BabelNode): Range {
  const loc = node.loc!;
  return { start: { line: loc.start.line - 1, character: loc.start.column }, end: { line: loc.end.line - 1, character: loc.end.column } };
}

/** The literal name of an argument: a string literal or a template without expressions. */
function nameSiteOf(arg: BabelNode, text: string): NameSite {
  const range = rangeOfNode(arg);
  let name: string | undefined;
  if (arg.type === 'StringLiteral') name = arg.value as string;
  else if (arg.type === 'TemplateLiteral' && (arg.expressions as unknown[]).length === 0) {
    name = ((arg.quasis as BabelNode[])[0].value as { cooked?: string | null }).cooked ?? undefined;
  }
  if (name === undefined) return { name: undefined, range, exact: false };
  const raw = text.slice(arg.start! + 1, arg.end! - 1);
  const inner: Range = { start: { line: range.start.line, character: range.start.character + 1 }, end: { line: range.end.line, character: range.end.character - 1 } };
  return { name, range, inner, exact: raw === name && !name.includes('\n') };
}

function calleeProperty(call: BabelNode): string | undefined {
  const callee = call.callee as BabelNode;
  if (callee.type !== 'MemberExpression' && callee.type !== 'OptionalMemberExpression') return undefined;
  const property = callee.property as BabelNode;
  if (callee.computed) return property.type === 'StringLiteral' ? (property.value as string) : undefined;
  return property.type === 'Identifier' ? (property.name as string) : undefined;
}

function constructedClass(node: BabelNode): string | undefined {
  if (node.type !== 'NewExpression') return undefined;
  const callee = node.callee as BabelNode;
  if (callee.type === 'Identifier') return callee.name as string;
  if (callee.type === 'MemberExpression' && (callee.property as BabelNode).type === 'Identifier') return (callee.property as BabelNode).name as string;
  return undefined;
}

/** Unwraps `x as T`, `x!`, `(x)` and `x satisfies T`. */
function unwrap(node: BabelNode): BabelNode {
  let current = node;
  while (['TSAsExpression', 'TSNonNullExpression', 'TSSatisfiesExpression', 'ParenthesizedExpression', 'TSTypeAssertion'].includes(current.type))
    current = current.expression as BabelNode;
  return current;
}

function kindOf(node: BabelNode | undefined, initializers: Map<string, BabelNode>, depth = 0): NodeKind {
  if (!node || depth > 5) return 'unknown';
  const value = unwrap(node);
  if (value.type === 'ArrowFunctionExpression' || value.type === 'FunctionExpression') return 'function_node';
  const cls = constructedClass(value);
  if (cls === 'ToolNode') return 'tool_node';
  if (cls === 'ModelNode') return 'model_node';
  if (value.type === 'Identifier') {
    const init = initializers.get(value.name as string);
    if (init) return kindOf(init, initializers, depth + 1);
    if (initializers.has(`function ${value.name as string}`)) return 'function_node';
  }
  return 'unknown';
}

const CALL = /\.\s*(registerToolHandler|addNode)\s*\(\s*(['"`])([^'"`\\\n$]*)\2/g;

/**
 * The calls of a text the parser gave up on (a file being typed): literal names found by a
 * plain scan, so a handler does not vanish from the project at the first unclosed brace.
 * Node kinds are not known from a scan.
 */
function scanText(text: string): { handlers: HandlerSite[]; nodes: NodeSite[] } {
  const lineStarts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  const position = (offset: number) => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, character: offset - lineStarts[lo] };
  };
  const handlers: HandlerSite[] = [];
  const nodes: NodeSite[] = [];
  for (const m of text.matchAll(CALL)) {
    const start = m.index! + m[0].length - m[3].length - 2;
    const end = m.index! + m[0].length;
    const site: NameSite = {
      name: m[3],
      range: { start: position(start), end: position(end) },
      inner: { start: position(start + 1), end: position(end - 1) },
      exact: true,
    };
    if (m[1] === 'registerToolHandler') handlers.push(site);
    else nodes.push({ ...site, kind: 'unknown' });
  }
  return { handlers, nodes };
}

const SKIPPED_KEYS = new Set(['loc', 'start', 'end', 'extra', 'leadingComments', 'trailingComments', 'innerComments', 'range', 'typeAnnotation', 'returnType', 'typeParameters']);

/**
 * Reads the facts of one source text. Never throws: a text the parser cannot recover from gives
 * no facts and its error; a text with recoverable errors gives what could be read.
 */
export function readSourceFacts(path: string, text: string): SourceFacts {
  // Most files mention neither call: they need no parse at all.
  if (!text.includes('registerToolHandler') && !text.includes('addNode')) return NO_FACTS;
  let ast: BabelNode;
  let syntaxError: string | undefined;
  try {
    const file = parse(text, {
      sourceType: 'unambiguous',
      errorRecovery: true,
      allowReturnOutsideFunction: true,
      allowAwaitOutsideFunction: true,
      allowImportExportEverywhere: true,
      allowUndeclaredExports: true,
      plugins: pluginsFor(path),
    }) as unknown as BabelNode & { errors?: Array<{ message: string }> };
    ast = file;
    if (file.errors && file.errors.length > 0) syntaxError = file.errors[0].message;
  } catch (error) {
    return { ...scanText(text), syntaxError: error instanceof Error ? error.message : String(error) };
  }
  const handlers: HandlerSite[] = [];
  const adds: Array<{ site: NameSite; node: BabelNode | undefined }> = [];
  const initializers = new Map<string, BabelNode>();
  const stack: BabelNode[] = [ast];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === 'VariableDeclarator' && (node.id as BabelNode).type === 'Identifier' && isNode(node.init)) {
      initializers.set((node.id as BabelNode).name as string, node.init);
    } else if (node.type === 'FunctionDeclaration' && isNode(node.id)) {
      initializers.set(`function ${node.id.name as string}`, node);
    } else if ((node.type === 'CallExpression' || node.type === 'OptionalCallExpression') && (node.arguments as unknown[]).length > 0) {
      const method = calleeProperty(node);
      const first = (node.arguments as BabelNode[])[0];
      if (method === 'registerToolHandler' && first.type !== 'SpreadElement') handlers.push(nameSiteOf(first, text));
      else if (method === 'addNode' && first.type !== 'SpreadElement') adds.push({ site: nameSiteOf(first, text), node: (node.arguments as BabelNode[])[1] });
    }
    for (const key of Object.keys(node)) {
      if (SKIPPED_KEYS.has(key)) continue;
      const value = node[key];
      if (Array.isArray(value)) {
        for (let i = value.length - 1; i >= 0; i--) if (isNode(value[i])) stack.push(value[i]);
      } else if (isNode(value)) stack.push(value);
    }
  }
  const byPosition = (a: NameSite, b: NameSite) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character;
  const nodes = adds.map(({ site, node }): NodeSite => ({ ...site, kind: kindOf(node, initializers) }));
  return { handlers: handlers.sort(byPosition), nodes: nodes.sort(byPosition), ...(syntaxError ? { syntaxError } : {}) };
}
