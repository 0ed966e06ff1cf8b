/**
 * Reads the graph of a Python 10xGraph agent module from its source, never running it: the
 * `StateGraph` a module builds at its top level, the nodes it adds (`add_node("NAME", value)`,
 * `add_node(func)`, `override_node("NAME", value)`, chained or not), which of them are ToolNodes
 * or Agents, and the variable its `compile()` is assigned to. What cannot be read exactly (a
 * computed name, `add_node` in a loop or a function, a graph imported or passed around, a syntax
 * error) makes the whole graph unread, with the reason and its place: a graph half read would
 * judge node names wrongly. The parse is `@lezer/python` (pure JavaScript), of the statements
 * that need one: `pythonStatements.ts` cuts the module into its top-level statements in one
 * lexical pass, and the definitions that never name a graph and the plainest `add_node` calls are
 * read without it (`readParsingSome`). Every walk here is iterative, and brackets nested deeper
 * than Python allows are refused before a parse, so no nesting of the source can overflow the stack.
 */
import type { NodeType, SyntaxNode, Tree } from '@lezer/common';
import { LineIndex } from '../rules/lineIndex';
import type { Graph, NodeKind } from '../rules/types';
import {
  chainedCalls,
  insideSpan,
  isPythonNameChar,
  MAX_BRACKET_DEPTH,
  type ModuleLayout,
  type NodeCall,
  statementsMentioning,
  topLevelStatements,
  type TopLevelStatement,
} from './pythonStatements';
import { isPrebuiltModule, LEGACY_REACT_NODES, PREBUILT_AGENTS, type PrebuiltAgent, type PrebuiltCondition } from './pythonPrebuilt';

/** Modules larger than this (in UTF-16 code units, about bytes for code) are not parsed. */
export const MAX_PYTHON_MODULE_CHARS = 1024 * 1024;

/** The bound in bytes a module file is read within, for the reader (a text within it is within `MAX_PYTHON_MODULE_CHARS`). */
export const MAX_PYTHON_MODULE_BYTES = MAX_PYTHON_MODULE_CHARS;

/** Why a module over the bound is not read. */
export const PYTHON_MODULE_TOO_LARGE = `the module is larger than ${MAX_PYTHON_MODULE_CHARS / (1024 * 1024)} MB and is not parsed`;

/** Where a node is added or replaced in the module (lines and columns one-based, columns in UTF-16 code units). */
export interface PythonNodeSite {
  name: string;
  kind: NodeKind;
  /** `prebuilt` for a node a prebuilt agent adds (its site is the class's name, or the literal that renames the node). */
  method: 'add_node' | 'override_node' | 'prebuilt';
  line: number;
  column: number;
  /** Offset of the method's name (`add_node`) in the module's text. */
  offset: number;
  /** Where the name argument lies (the string literal with its quotes, or the function of `add_node(func)`). */
  nameOffset: number;
  nameLength: number;
}

/** What was read of a module: the graph exported as `variable`, or why it could not be read exactly. */
export type PythonGraphRead = { ok: true; graph: Graph; graphVariable: string; sites: PythonNodeSite[] } | PythonUnread;

/**
 * Why a name of a module gives no graph. `missing` when the module, read whole, binds no such
 * top-level name at all: importing it there fails (an `AttributeError` at start-up), which is the
 * config's error, not an unread graph.
 */
export interface PythonUnread {
  ok: false;
  reason: string;
  missing?: true;
}

interface GraphState {
  variable: string;
  nodes: Map<string, NodeKind>;
  sites: PythonNodeSite[];
  /** The first thing that made the graph unreadable. */
  unread?: string;
  /** Whether `compile()` was called on it yet (for the reasons that say "before compile()"). */
  compiled?: boolean;
  /** How deep in factory calls it was made (0 at the top level): a factory's own graph is new to its caller. */
  depth: number;
}

/**
 * A function defined in the module: its name (`add_node(func)` names the node after it), where,
 * and for a factory (a function whose code names a graph's making: `FACTORY_WORDS`) its definition,
 * whose body is read as a module when it is called or exported.
 */
interface FunctionBinding {
  kind: 'function';
  name: string;
  at?: string;
  definition?: SyntaxNode;
  async?: boolean;
}

/** A prebuilt agent made (`ReactAgent(...)`): its class's entry, and the constructor call whose arguments decide its nodes. */
interface PrebuiltValue {
  kind: 'prebuilt';
  className: string;
  agent: PrebuiltAgent;
  call: SyntaxNode;
  /** Where the class's name lies in the call (the site of the nodes it adds). */
  nameFrom: number;
  nameTo: number;
}

/**
 * An `Agent(...)` (a model node), and whether it owns a ToolNode (`tool_node=ToolNode(...)`:
 * a prebuilt team gives such a member a `<KEY>_TOOL` node); undefined when that is not known.
 */
interface ModelNodeValue {
  kind: 'model_node';
  name: string;
  ownsToolNode?: boolean;
}

type Binding =
  | { kind: 'graph'; graph: GraphState }
  | { kind: 'compiled'; graph: GraphState }
  | { kind: 'tool_node'; name: string }
  | ModelNodeValue
  | PrebuiltValue
  | { kind: 'sequence'; empty: boolean }
  | FunctionBinding
  | { kind: 'imported'; name: string; from: string; at: string }
  | { kind: 'other'; why: string };

/** What a top-level expression evaluates to, as far as the reader follows it. */
type Value =
  | { kind: 'graph'; graph: GraphState; fresh: boolean }
  | { kind: 'compiled'; graph: GraphState }
  | { kind: 'tool_node'; name: string }
  | ModelNodeValue
  | PrebuiltValue
  | { kind: 'sequence'; empty: boolean }
  | FunctionBinding
  | { kind: 'unknown'; why?: string };

// How much of an expression a reason quotes.
const EXCERPT_CHARS = 60;

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/**
 * The words that make a function a factory whose body is read (`FunctionBinding.definition`): a
 * function whose code names none of them builds no graph of the module's. Found lexically, so a
 * partial parse and a whole one read the same functions.
 */
const FACTORY_WORDS = ['compile', 'StateGraph', 'add_node', 'override_node', ...Object.keys(PREBUILT_AGENTS)];

/** 10xGraph's helpers that take a graph and add no node to it (see `isObservabilityCall`). */
const OBSERVABILITY_CALLS = new Set(['setup_logfire', 'setup_langsmith', 'setup_observability', 'setup_tracing']);

/** Factories calling factories are followed this deep (a function that calls itself ends here). */
const MAX_CALL_DEPTH = 8;

/**
 * Code that can bind a module's names where no statement shows it (`globals()`, `setattr` on the
 * module, `exec`, a module `__getattr__`, a star import, `global` in a function): found
 * lexically, so a partial parse and a whole one agree. Linear: words and fixed tokens.
 */
const OPEN_NAMES = /\b(?:globals|locals|vars|exec|eval|setattr|__getattr__|__dict__|global)\b|\bsys\s*\.\s*modules\b|\bimport\s*\*/g;

type PythonParser = (typeof import('@lezer/python'))['parser'];

/** One argument of `add_node`/`override_node`: its place and text, the name it is (a plain name), its value (a string literal), and the kind of node it gives. */
interface NodeArgument {
  from: number;
  to: number;
  text: string;
  variable?: string;
  literal?: string;
  kind: NodeKind;
}

const NODE_METHODS = new Set(['add_node', 'override_node']);

/** A statement with this many chained calls or more is read past the parser's limit (see `syntaxError`). */
const LONG_CHAIN = 100;

/** More names than this ever bound to a graph, and the definitions are not looked through for them: the whole module is parsed. */
const MAX_GRAPH_NAMES = 16;

/**
 * Whether `name` is used as a whole name in the code of any of `statements` (sorted, apart):
 * not inside `nonCode` (the module's comments and plain strings, as `topLevelStatements` finds them).
 */
function mentionedIn(source: string, name: string, statements: TopLevelStatement[], nonCode: number[]): boolean {
  let k = 0;
  for (let at = source.indexOf(name); at >= 0 && k < statements.length; at = source.indexOf(name, at + name.length)) {
    while (k < statements.length && statements[k].to <= at) k++;
    const statement = statements[k];
    if (!statement) return false;
    // Between statements: on to the next one.
    if (statement.from > at) {
      at = source.indexOf(name, statement.from) - name.length;
      if (at < 0) return false;
      continue;
    }
    if (isPythonNameChar(source.charCodeAt(at - 1)) || isPythonNameChar(source.charCodeAt(at + name.length))) continue;
    if (!insideSpan(nonCode, at)) return true;
  }
  return false;
}

/**
 * What one parse of a module says of every top-level name it binds, as `readPythonGraph` would
 * answer for each: `unread` when no name can be read (a syntax error, a module too large), else
 * one read per bound name (plain data, so an index can keep and compare it).
 */
export interface PythonModuleRead {
  unread?: string;
  exports: Array<[string, PythonGraphRead]>;
  /**
   * Why the module may have top-level names that `exports` does not list (a star import,
   * `globals()`, a module `__getattr__`, …, with its place): then a name missing from `exports`
   * is not known to be missing. Absent when `exports` names every top-level name.
   */
  namesOpen?: string;
}

/**
 * Reads the graph that `source` (a Python module's text) assigns to the top-level `variable`
 * (the export of `"agent": "module:variable"`).
 */
export function readPythonGraph(source: string, variable: string): PythonGraphRead {
  return pythonGraphOf(readPythonModule(source), variable);
}

/** Reads every top-level name of a Python module at once (one parse), for a reader that does not know yet which one a config names. */
export function readPythonModule(source: string): PythonModuleRead {
  return readModule(source, false);
}

/**
 * What `readPythonModule` answers with the whole module parsed, no definition read by its name
 * alone: the reference the tests hold it to.
 */
export function readPythonModuleWhole(source: string): PythonModuleRead {
  return readModule(source, true);
}

function readModule(source: string, whole: boolean): PythonModuleRead {
  if (source.length > MAX_PYTHON_MODULE_CHARS) return { unread: PYTHON_MODULE_TOO_LARGE, exports: [] };
  // Python decodes a UTF-8 byte order mark away; a space in its place keeps every offset.
  const text = source.charCodeAt(0) === 0xfeff ? ' ' + source.slice(1) : source;
  try {
    return new ModuleReader(text).readAll(whole);
  } catch (error) {
    // The parser's tree building recurses: nesting it meets that the layout did not bound (in an
    // f-string's fields, say) can exhaust the stack, which is a module too deep to read, not a crash.
    if (error instanceof RangeError) return { unread: 'the module nests too deeply to be parsed', exports: [] };
    throw error;
  }
}

/** The graph of `variable` in a module read by `readPythonModule`: what `readPythonGraph` answers. */
export function pythonGraphOf(module: PythonModuleRead, variable: string): PythonGraphRead {
  const found = module.unread === undefined ? module.exports.find(([name]) => name === variable) : undefined;
  return found ? found[1] : unboundRead(module, variable);
}

/** The top-level names of a module read by `readPythonModule` that hold a graph read exactly (what `agent` may name). */
export function compiledGraphNames(module: { exports: ReadonlyArray<readonly [string, { ok: boolean }]> }): string[] {
  return module.exports.filter(([, read]) => read.ok).map(([name]) => name);
}

/**
 * What a module read by `readPythonModule` (or facts made of one) says of a name it does not
 * bind: why nothing is read, `missing` when the module is known to bind no such name.
 */
export function unboundRead(module: { unread?: string; namesOpen?: string }, variable: string): PythonUnread {
  if (module.unread !== undefined) return { ok: false, reason: module.unread };
  if (module.namesOpen !== undefined) return { ok: false, reason: `no statement of the module assigns a top-level '${variable}' (${module.namesOpen})` };
  return { ok: false, reason: `no top-level '${variable}' is assigned in the module`, missing: true };
}

class ModuleReader {
  private readonly lines: LineIndex;
  private bindings = new Map<string, Binding>();
  private layout: ModuleLayout | undefined;
  /** Every name bound to a graph or a compiled graph so far, at the top level. */
  private readonly graphNames = new Set<string>();
  /** The top-level statements whose code names one of `FACTORY_WORDS`: their functions are factories. */
  private factoryStatements: TopLevelStatement[] = [];
  /** How deep the factory being read is called (0 at the top level). */
  private depth = 0;

  constructor(private readonly source: string) {
    this.lines = new LineIndex(source);
  }

  readAll(whole: boolean): PythonModuleRead {
    // Required here, not imported: only the audit of a Python module pays for loading the parser.
    const { parser } = require('@lezer/python') as typeof import('@lezer/python');
    const layout = (this.layout = topLevelStatements(this.source));
    if ('tooDeep' in layout)
      return {
        unread: `brackets nested deeper than ${MAX_BRACKET_DEPTH} at ${this.at(layout.tooDeep)}; Python cannot import the module either (too many nested parentheses)`,
        exports: [],
      };
    if ('statements' in layout) {
      const definitions = layout.statements.filter((s) => s.definition);
      // Only a function is a factory: a class mentioning StateGraph (a graph built in a method) is read by its name alone.
      const factories = statementsMentioning(
        this.source,
        FACTORY_WORDS,
        definitions.filter((s) => s.definition!.kind === 'function'),
        layout.nonCode,
      );
      // A plain `def` that awaits is parsed too: Python refuses it, and only a parse sees where.
      const awaiting = statementsMentioning(
        this.source,
        ['await'],
        definitions.filter((s) => !s.definition!.async),
        layout.nonCode,
      );
      this.factoryStatements = definitions.filter((s) => factories.has(s));
      this.parsedDefinitions = new Set([...factories, ...awaiting]);
    }
    const read = this.readModuleOnce(parser, layout, whole);
    if (read.unread === undefined && 'statements' in layout) {
      const open = this.namesOpen(layout.nonCode);
      if (open) read.namesOpen = open;
    }
    return read;
  }

  /** The definitions a partial parse parses (factories, and plain functions that await), not read by their name alone. */
  private parsedDefinitions = new Set<TopLevelStatement>();

  private readModuleOnce(parser: PythonParser, layout: ModuleLayout, whole: boolean): PythonModuleRead {
    if (!whole && 'statements' in layout && layout.statements.some((s) => (s.definition && !this.parsedDefinitions.has(s)) || s.nodeCall)) {
      const read = this.readParsingSome(parser, layout.statements, layout.nonCode);
      if (read) return read;
      this.bindings.clear();
      this.graphNames.clear();
    }
    // With nothing left unparsed, readTree always answers (a syntax error is an answer then).
    return this.readTree(parser.parse(this.source), [])!;
  }

  /** Why the module may bind names no statement shows (`OPEN_NAMES`, in code), with the place of the first; undefined when it cannot. */
  private namesOpen(nonCode: number[]): string | undefined {
    OPEN_NAMES.lastIndex = 0;
    for (let m = OPEN_NAMES.exec(this.source); m; m = OPEN_NAMES.exec(this.source)) {
      if (insideSpan(nonCode, m.index)) continue;
      return `\`${m[0].replace(/\s+/g, ' ')}\` at ${this.at(m.index)} may bind names no statement shows`;
    }
    return undefined;
  }

  /** Whether the definition at `offset` stands in a top-level statement whose code names one of `FACTORY_WORDS`. */
  private isFactoryAt(offset: number): boolean {
    const list = this.factoryStatements;
    let lo = 0;
    let hi = list.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid].to <= offset) lo = mid + 1;
      else if (list[mid].from > offset) hi = mid - 1;
      else return true;
    }
    return false;
  }

  /**
   * Most of a module is definitions that never touch the graph and plain `add_node` calls: a
   * definition is read by its name alone, a call of the plainest form (`NodeCall`) without a parse,
   * and only the other statements are parsed (one parse over their ranges). That answers exactly
   * what a parse of the whole module would, unless a definition names a variable that is ever a
   * graph (it may add nodes to it or pass it on), a plain call is not on a graph or passes one, or
   * the parsed part has a syntax error (the statements may have been cut wrongly): then undefined,
   * and the whole module is parsed. A syntax error inside a definition read by its name alone goes
   * unseen here.
   */
  private readParsingSome(parser: PythonParser, statements: TopLevelStatement[], nonCode: number[]): PythonModuleRead | undefined {
    const ranges: Array<{ from: number; to: number }> = [];
    const unparsed: TopLevelStatement[] = [];
    for (const s of statements) {
      if ((s.definition && !this.parsedDefinitions.has(s)) || s.nodeCall) {
        unparsed.push(s);
        continue;
      }
      const last = ranges.at(-1);
      if (last && last.to === s.from) last.to = s.to;
      else ranges.push({ from: s.from, to: s.to });
    }
    const read = this.readTree(ranges.length > 0 ? atOffset(parser.parse(this.source, [], ranges), ranges[0].from) : undefined, unparsed);
    if (!read || this.graphNames.size > MAX_GRAPH_NAMES) return undefined;
    const definitions = unparsed.filter((s) => s.definition);
    for (const name of this.graphNames) if (mentionedIn(this.source, name, definitions, nonCode)) return undefined;
    return read;
  }

  /**
   * Reads the top-level statements of `tree` in the module's order, with `unparsed` (read by
   * `readParsingSome` without a parse) between them; undefined when only part of the module was
   * parsed and that part has a syntax error, or a statement not parsed needs a parse.
   */
  private readTree(tree: Tree | undefined, unparsed: TopLevelStatement[]): PythonModuleRead | undefined {
    if (tree) {
      const cursor = tree.cursor();
      do {
        if (cursor.type.isError) return unparsed.length > 0 ? undefined : { unread: this.syntaxError(cursor.from), exports: [] };
        const refused = REFUSABLE.has(cursor.name) ? refusalOf(cursor.node) : undefined;
        if (refused !== undefined)
          return unparsed.length > 0 ? undefined : { unread: `${refused} at ${this.at(cursor.from)}: Python refuses to compile the module (a SyntaxError at import)`, exports: [] };
      } while (cursor.next());
    }
    let statement = tree ? scriptOf(tree).firstChild : null;
    let k = 0;
    while (statement || k < unparsed.length) {
      if (statement && (k >= unparsed.length || statement.from < unparsed[k].from)) {
        this.readStatement(statement);
        statement = statement.nextSibling;
        continue;
      }
      const { definition, nodeCall } = unparsed[k++];
      if (nodeCall) {
        if (!this.readNodeCall(nodeCall)) return undefined;
      } else if (definition) {
        const { name, kind } = definition;
        this.bindings.set(name, kind === 'function' ? { kind: 'function', name, at: this.at(unparsed[k - 1].from) } : { kind: 'other', why: `'${name}' is a class` });
      }
    }
    // A graph compiled under many names is read once: each name shares its read, so a module of
    // many `aN = graph.compile()` costs its nodes once, not once a name.
    const compiled = new Map<GraphState, PythonGraphRead>();
    return { exports: [...this.bindings].map(([variable, binding]) => [variable, this.readBinding(variable, binding, compiled)]) };
  }

  /**
   * What a syntax error the parse found at `offset` says. The parser breaks off a chain of calls
   * past about 130 links (to keep its tree shallow) and reports an error there that Python would
   * not: in a statement with such a chain, the chain is the reason.
   */
  private syntaxError(offset: number): string {
    const statement = this.layout && 'statements' in this.layout ? this.layout.statements.find((s) => s.from <= offset && offset < s.to) : undefined;
    if (statement && 'nonCode' in this.layout!) {
      const links = chainedCalls(this.source, statement.from, statement.to, this.layout.nonCode);
      if (links >= LONG_CHAIN)
        return `the statement at ${this.at(statement.from)} chains ${links} calls, more than this reader follows in one expression (about 130); add the nodes in statements of their own`;
    }
    return `syntax error at ${this.at(offset)}; Python cannot import the module either`;
  }

  private readBinding(variable: string, binding: Binding, compiled: Map<GraphState, PythonGraphRead>): PythonGraphRead {
    switch (binding.kind) {
      case 'compiled': {
        const graph = binding.graph;
        let read = compiled.get(graph);
        if (read === undefined) {
          read = graph.unread
            ? { ok: false, reason: graph.unread }
            : {
                ok: true,
                graphVariable: graph.variable,
                sites: graph.sites,
                graph: { origin: 'loaded', toolsKnown: false, nodes: [...graph.nodes].map(([name, kind]) => ({ name, kind })) },
              };
          compiled.set(graph, read);
        }
        return read;
      }
      case 'graph':
        return { ok: false, reason: `'${variable}' is a StateGraph that is not compiled: assign ${binding.graph.variable}.compile() to it` };
      case 'imported':
        return { ok: false, reason: `'${variable}' is imported from '${binding.from}' at ${binding.at}; the graph is built in another module` };
      case 'other':
        return { ok: false, reason: binding.why };
      case 'prebuilt':
        return {
          ok: false,
          reason: `'${variable}' is a ${binding.className} (made at ${this.at(binding.call.from)}) that is not compiled: the server takes a compiled graph, so assign its compile() instead`,
        };
      case 'function': {
        // The server calls a callable export, with no argument, and awaits what a coroutine function returns.
        const required = binding.definition ? parametersOf(binding.definition).filter((p) => p.required) : [];
        if (required.length > 0)
          return {
            ok: false,
            reason: `'${variable}' is a function (defined at ${binding.at}) that takes ${required.map((p) => `'${this.text(p.name)}'`).join(', ')}, but the server calls it with no argument`,
          };
        const called = this.callFactory(binding, true);
        if (called.kind === 'compiled') return this.readBinding(variable, called, compiled);
        const what = variable === binding.name ? `'${variable}'` : `'${variable}' is '${binding.name}', which`;
        const why =
          called.kind === 'unknown' && called.why
            ? called.why
            : called.kind === 'graph'
              ? `'${binding.name}' returns a StateGraph without compiling it: return its compile()`
              : called.kind === 'prebuilt'
                ? `'${binding.name}' returns a ${called.className} without compiling it: return its compile()`
                : `'${binding.name}' returns no compiled graph`;
        return { ok: false, reason: `${what} is a function${binding.at ? ` (defined at ${binding.at})` : ''} the server calls at start-up; ${why}` };
      }
      default:
        return { ok: false, reason: `'${variable}' is not the result of a StateGraph's compile()` };
    }
  }

  /**
   * What calling the function `f` returns, its body read as a module is (the module's names as
   * they are now around it, its parameters unknown): the value of its last top-level `return`.
   * `awaited` when the caller awaits a coroutine function's result (the server does, for `agent`).
   */
  private callFactory(f: FunctionBinding, awaited: boolean, args?: SyntaxNode): Value {
    if (!f.definition) return { kind: 'unknown', why: `its body names no StateGraph, add_node() or compile(), so it builds no graph the reader follows` };
    if (f.async && !awaited) return { kind: 'unknown', why: `'${f.name}' is an async function: calling it gives a coroutine, not a graph` };
    if (this.depth >= MAX_CALL_DEPTH) return { kind: 'unknown', why: `calls of factories nest deeper than ${MAX_CALL_DEPTH} at ${this.at(f.definition.from)}` };
    // The arguments are the caller's values: evaluated before the body's scope opens.
    const passed = args ? this.passedValues(f.definition, args) : new Map<string, Binding>();
    const saved = this.bindings;
    this.bindings = new Map(saved);
    this.depth++;
    try {
      return this.readBody(f, passed);
    } finally {
      this.depth--;
      this.bindings = saved;
    }
  }

  /** What a call passes to each parameter of `definition`, by name, where the value is one the reader follows (a node, a function, a list). */
  private passedValues(definition: SyntaxNode, args: SyntaxNode): Map<string, Binding> {
    const passed = new Map<string, Binding>();
    const { keywords, positional, unpacked } = this.argumentsOf(args);
    if (unpacked) return passed;
    const params = parametersOf(definition);
    const given: Array<[string, SyntaxNode]> = [...keywords];
    positional.forEach((node, i) => {
      if (params[i]?.required !== undefined && i < params.length) given.push([this.text(params[i].name), node]);
    });
    for (const [name, node] of given) {
      const value = this.evaluate(node, 'an argument');
      if (value.kind === 'tool_node' || value.kind === 'model_node' || value.kind === 'function' || value.kind === 'sequence' || value.kind === 'prebuilt') passed.set(name, value);
    }
    return passed;
  }

  private readBody(f: FunctionBinding, passed: Map<string, Binding>): Value {
    const definition = f.definition!;
    for (const { name } of parametersOf(definition)) {
      const param = this.text(name);
      this.bindings.set(param, passed.get(param) ?? { kind: 'other', why: `'${param}' is a parameter of '${f.name}'` });
    }
    const body = definition.getChild('Body');
    for (let statement = body?.firstChild ?? null; statement; statement = statement.nextSibling) {
      if (statement.name === ':' || statement.name === 'Comment') continue;
      if (statement.name === 'ReturnStatement') {
        const value = statement.lastChild && statement.lastChild.name !== 'return' ? statement.lastChild : null;
        if (!value) return { kind: 'unknown', why: `'${f.name}' returns None at ${this.at(statement.from)}` };
        const result = this.evaluate(value, 'a function body');
        if (result.kind !== 'unknown') return result;
        return result.why ? result : { kind: 'unknown', why: this.returnsWhat(f, value) };
      }
      if (statement.name === 'ScopeStatement')
        return { kind: 'unknown', why: `'${f.name}' declares ${this.snippet(statement)} at ${this.at(statement.from)}: what it binds is not followed` };
      // A function defined in the body returns for itself.
      const nested =
        statement.name === 'FunctionDefinition' || statement.name === 'ClassDefinition' || statement.name === 'DecoratedStatement' ? undefined : firstReturn(statement);
      if (nested) return { kind: 'unknown', why: `'${f.name}' returns at ${this.at(nested.from)} inside a block: which value it returns is not followed` };
      this.readStatement(statement);
    }
    return { kind: 'unknown', why: `'${f.name}' has no return statement at the end of its body, so it returns None` };
  }

  private returnsWhat(f: FunctionBinding, value: SyntaxNode): string {
    return `'${f.name}' returns ${this.snippet(value)} at ${this.at(value.from)}, which is not the result of a StateGraph's compile()`;
  }

  private at(offset: number): string {
    const p = this.lines.positionAt(offset);
    return `${p.line + 1}:${p.character + 1}`;
  }

  private text(node: SyntaxNode): string {
    return this.source.slice(node.from, node.to);
  }

  /** A node's text as a reason quotes it: on one line, white space folded, cut to a few dozen characters. */
  private excerpt(node: SyntaxNode): string {
    const text = this.source.slice(node.from, Math.min(node.to, node.from + 4 * EXCERPT_CHARS)).replace(/\s+/g, ' ');
    if (text.length <= EXCERPT_CHARS && node.to - node.from <= 4 * EXCERPT_CHARS) return `'${text}'`;
    // Cut between code points: never half of a surrogate pair.
    const cut = isHighSurrogate(text.charCodeAt(EXCERPT_CHARS - 1)) ? EXCERPT_CHARS - 1 : EXCERPT_CHARS;
    return `'${text.slice(0, cut).trimEnd()}…'`;
  }

  /** A node's text as a reason quotes it: on one line, at most 40 characters. */
  private snippet(node: SyntaxNode): string {
    return oneLine(this.source.slice(node.from, Math.min(node.to, node.from + 200)));
  }

  private readStatement(statement: SyntaxNode): void {
    switch (statement.name) {
      case 'StatementGroup':
        // `a = 1; b = 2`: each statement in turn, as Python runs them.
        for (let child = statement.firstChild; child; child = child.nextSibling) if (child.name !== ';') this.readStatement(child);
        return;
      case 'ImportStatement':
        return this.readImport(statement);
      case 'AssignStatement':
        this.readAssignment(statement);
        return this.bindWalrus(statement);
      case 'ExpressionStatement': {
        const expression = statement.firstChild;
        if (expression) this.evaluate(expression, 'an expression');
        return this.bindWalrus(statement);
      }
      case 'TypeDefinition': {
        const name = statement.getChild('VariableName');
        if (name) this.bindings.set(this.text(name), { kind: 'other', why: `'${this.text(name)}' is a type alias` });
        return;
      }
      case 'FunctionDefinition':
      case 'ClassDefinition':
      case 'DecoratedStatement': {
        const definition = statement.name === 'DecoratedStatement' ? (statement.getChild('FunctionDefinition') ?? statement.getChild('ClassDefinition')) : statement;
        const name = definition?.getChild('VariableName');
        this.scan(statement, definition?.name === 'ClassDefinition' ? 'a class body' : 'a function body', name ?? undefined);
        if (definition && name) this.bindings.set(this.text(name), this.definitionBinding(definition, this.text(name), statement.from));
        return;
      }
      case 'IfStatement':
        // `if __name__ == "__main__":` alone runs only when the module is run as a script, never on import.
        if (isMainGuard(statement, this.source)) return;
        this.scan(statement, 'a block');
        return this.bindInside(statement, 'an if statement');
      case 'ForStatement':
      case 'WhileStatement':
        this.scan(statement, 'a loop');
        return this.bindInside(statement, 'a loop');
      case 'TryStatement':
      case 'WithStatement':
      case 'MatchStatement':
        this.scan(statement, 'a block');
        return this.bindInside(statement, statement.name === 'TryStatement' ? 'a try statement' : statement.name === 'WithStatement' ? 'a with statement' : 'a match statement');
      default:
        return this.scan(statement, 'a block');
    }
  }

  /** The names `:=` binds in a simple statement (in the scope around it, even inside a comprehension; not inside a lambda). */
  private bindWalrus(statement: SyntaxNode): void {
    const walrus = this.source.indexOf(':=', statement.from);
    if (walrus < 0 || walrus >= statement.to) return;
    const at = this.at(statement.from);
    const stack: SyntaxNode[] = [statement];
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (node.name === 'LambdaExpression') continue;
      if (node.name === 'NamedExpression' && node.firstChild?.name === 'VariableName') {
        const name = this.text(node.firstChild);
        this.bindings.set(name, { kind: 'other', why: `'${name}' is bound by := in the statement at ${at}` });
        this.graphNames.delete(name);
      }
      for (let c = node.lastChild; c; c = c.prevSibling) stack.push(c);
    }
  }

  /** What a `def` or `class` binds its name to: a function (a factory when `isFactoryAt`), or a class. */
  private definitionBinding(definition: SyntaxNode, name: string, from: number): Binding {
    if (definition.name !== 'FunctionDefinition') return { kind: 'other', why: `'${name}' is a class` };
    const binding: FunctionBinding = { kind: 'function', name, at: this.at(from) };
    if (this.isFactoryAt(definition.from)) {
      binding.definition = definition;
      if (definition.firstChild?.name === 'async') binding.async = true;
    }
    return binding;
  }

  /**
   * The names a compound statement binds in the scope it stands in (assignments, loop targets,
   * `as` names, imports, definitions and `:=` in its blocks; not inside a nested function, class
   * or lambda): bound, but to a value not followed, since which branch runs is not known.
   */
  private bindInside(statement: SyntaxNode, where: string): void {
    const at = this.at(statement.from);
    const bind = (node: SyntaxNode) => {
      const name = this.text(node);
      this.bindings.set(name, { kind: 'other', why: `'${name}' is bound inside ${where} (at ${at}), and which value it has once the module is imported is not followed` });
      this.graphNames.delete(name);
    };
    const stack: SyntaxNode[] = [statement];
    while (stack.length > 0) {
      const node = stack.pop()!;
      switch (node.name) {
        case 'FunctionDefinition':
        case 'ClassDefinition': {
          const name = node.getChild('VariableName');
          if (name) bind(name);
          continue;
        }
        // A lambda's names are its own (a comprehension's `:=` binds in the scope around it).
        case 'LambdaExpression':
          continue;
        case 'AssignStatement':
        case 'UpdateStatement': {
          const children = childrenOf(node);
          let last = -1;
          children.forEach((c, i) => {
            if (c.name === 'AssignOp' || c.name === 'UpdateOp') last = i;
          });
          // `x: int` alone annotates, it binds nothing.
          for (const target of children.slice(0, Math.max(last, 0))) for (const name of targetNames(target)) bind(name);
          for (const c of children.slice(last + 1)) stack.push(c);
          continue;
        }
        case 'ForStatement': {
          const children = childrenOf(node);
          const inAt = children.findIndex((c) => c.name === 'in');
          for (const target of children.slice(0, Math.max(inAt, 0))) for (const name of targetNames(target)) bind(name);
          for (const c of children.slice(inAt + 1)) stack.push(c);
          continue;
        }
        case 'ImportStatement': {
          const children = childrenOf(node);
          const importAt = children.findIndex((c) => c.name === 'import');
          for (let i = importAt + 1; i < children.length; i++) {
            const c = children[i];
            if (c.name !== 'VariableName') continue;
            // `import a.b` binds `a`; `... as c` binds `c`.
            let local = c;
            while (children[i + 1]?.name === '.' && children[i + 2]?.name === 'VariableName') i += 2;
            if (children[i + 1]?.name === 'as' && children[i + 2]?.name === 'VariableName') {
              local = children[i + 2];
              i += 2;
            }
            bind(local);
          }
          continue;
        }
        case 'NamedExpression':
          if (node.firstChild?.name === 'VariableName') bind(node.firstChild);
          break;
        case 'CapturePattern':
        case 'AsPattern':
          for (let c = node.firstChild; c; c = c.nextSibling) if (c.name === 'VariableName') bind(c);
          break;
        case 'TryStatement':
        case 'WithStatement':
          for (let c = node.firstChild; c; c = c.nextSibling) if (c.name === 'as' && c.nextSibling) for (const name of targetNames(c.nextSibling)) bind(name);
          break;
      }
      for (let c = node.lastChild; c; c = c.prevSibling) stack.push(c);
    }
  }

  private readImport(statement: SyntaxNode): void {
    const children = childrenOf(statement);
    const importAt = children.findIndex((c) => c.name === 'import');
    const from =
      children[0]?.name === 'from'
        ? children
            .slice(1, importAt)
            .map((c) => this.text(c))
            .join('')
        : undefined;
    for (let i = importAt + 1; i < children.length; i++) {
      const c = children[i];
      if (c.name !== 'VariableName') continue;
      let local = c;
      let dotted = this.text(c);
      // `import a.b.c` binds `a`; `import a.b as c` and `from m import a as c` bind `c`.
      while (children[i + 1]?.name === '.' && children[i + 2]?.name === 'VariableName') {
        dotted += '.' + this.text(children[i + 2]);
        i += 2;
      }
      if (children[i + 1]?.name === 'as' && children[i + 2]?.name === 'VariableName') {
        local = children[i + 2];
        i += 2;
      }
      const name = this.text(local);
      if (from !== undefined) this.bindings.set(name, { kind: 'imported', name: dotted, from, at: this.at(c.from) });
      else this.bindings.set(name, { kind: 'other', why: `'${name}' is a module` });
    }
  }

  private readAssignment(statement: SyntaxNode): void {
    const children = childrenOf(statement);
    let lastOp = -1;
    children.forEach((c, i) => {
      if (c.name === 'AssignOp') lastOp = i;
    });
    const value = children[lastOp + 1];
    const targets = children.slice(0, lastOp).filter((c) => c.name !== 'AssignOp' && c.name !== 'TypeDef');
    const op = lastOp >= 0 ? this.text(children[lastOp]) : '';
    if (!value || op !== '=' || targets.some((t) => t.name !== 'VariableName')) {
      // An augmented assignment, a tuple or an attribute target: nothing is bound here that the reader follows.
      this.scan(statement, 'an expression');
      for (const target of targets)
        for (const t of targetNames(target))
          this.bindings.set(this.text(t), {
            kind: 'other',
            why: `'${this.text(t)}' is assigned at ${this.at(t.from)} by ${this.excerpt(statement)}, not from a StateGraph's compile()`,
          });
      return;
    }
    const result = this.evaluate(value, 'an expression');
    const names = targets.map((t) => this.text(t));
    if (result.kind === 'graph') {
      if (names.length > 1 || (!result.fresh && result.graph.variable !== names[0])) {
        this.unread(result.graph, `the graph is bound to '${names.join("', '")}' at ${this.at(targets[0].from)}`);
      } else if (result.fresh) result.graph.variable = names[0];
    }
    // `app = StateGraph().add_node(...).compile()`: the graph has no name of its own.
    if (result.kind === 'compiled' && result.graph.variable === '') result.graph.variable = names[0];
    for (const [i, name] of names.entries()) {
      if (result.kind === 'graph' || result.kind === 'compiled') {
        this.bindings.set(name, { kind: result.kind, graph: result.graph });
        // A factory's locals are no names of the module's.
        if (this.depth === 0) this.graphNames.add(name);
      } else if (result.kind === 'tool_node' || result.kind === 'model_node' || result.kind === 'function' || result.kind === 'prebuilt' || result.kind === 'sequence')
        this.bindings.set(name, result);
      else if (result.kind === 'unknown')
        this.bindings.set(name, {
          kind: 'other',
          why: result.why ?? `'${name}' is assigned at ${this.at(targets[i].from)} from ${this.excerpt(value)}, not from a StateGraph's compile()`,
        });
    }
  }

  private unread(graph: GraphState, why: string): void {
    graph.unread ??= `${why}; its nodes cannot be read exactly`;
  }

  /**
   * The value of a top-level expression: a chain of calls on `StateGraph(...)`, a graph or a
   * compiled graph is followed; the arguments (and any other expression) are scanned for uses of
   * a graph the reader cannot follow.
   */
  private evaluate(expression: SyntaxNode, where: string): Value {
    const calls: Array<{ method: string; args: SyntaxNode; call: SyntaxNode }> = [];
    let current: SyntaxNode | null = unparenthesized(expression);
    while (current?.name === 'CallExpression') {
      const callee: SyntaxNode | null = current.firstChild;
      const args = current.getChild('ArgList');
      if (!callee || !args || callee.name !== 'MemberExpression' || this.isConstructor(callee)) break;
      const property = callee.getChild('PropertyName');
      if (!property) break;
      calls.unshift({ method: this.text(property), args, call: current });
      current = unparenthesized(callee.firstChild);
    }
    if (!current) return { kind: 'unknown' };
    let state: Value = { kind: 'unknown' };
    if (current.name === 'CallExpression') {
      const args = current.getChild('ArgList');
      if (args) this.scan(args, where);
      const callee = current.firstChild!;
      const name = this.calleeName(callee);
      const bound = callee.name === 'VariableName' ? this.bindings.get(this.text(callee)) : undefined;
      if (bound?.kind === 'function') {
        state = this.callFactory(bound, false, current.getChild('ArgList') ?? undefined);
        // A graph the factory made is the caller's to name; one of the module's it returns is that one still.
        if (state.kind === 'graph') state = { ...state, fresh: state.graph.depth > this.depth };
      } else if (name === 'StateGraph') state = { kind: 'graph', graph: { variable: '', nodes: new Map(), sites: [], depth: this.depth }, fresh: true };
      else if (name === 'ToolNode') state = { kind: 'tool_node', name };
      else if (name === 'Agent') state = { kind: 'model_node', name, ...this.ownsToolNode(current) };
      else if (name !== undefined && name in PREBUILT_AGENTS && this.isPrebuiltClass(callee)) {
        const at = callee.name === 'MemberExpression' && callee.getChild('[') ? callee.firstChild! : callee;
        const last = at.name === 'MemberExpression' ? (at.lastChild ?? at) : at;
        state = { kind: 'prebuilt', className: name, agent: PREBUILT_AGENTS[name], call: current, nameFrom: last.from, nameTo: last.to };
      }
    } else if (
      current.name === 'ArrayExpression' ||
      current.name === 'TupleExpression' ||
      (current.name === 'ParenthesizedExpression' && current.getChild(')')?.from === current.from + 1)
    ) {
      this.scan(current, where);
      const items = childrenOf(current).filter((c) => !['[', ']', '(', ')', ','].includes(c.name));
      // A starred item may unpack an empty list.
      state = items.some((c) => c.name === '*') ? { kind: 'unknown' } : { kind: 'sequence', empty: items.length === 0 };
    } else if (current.name === 'VariableName') {
      const name = this.text(current);
      const bound = this.bindings.get(name);
      if (bound?.kind === 'graph') state = { kind: 'graph', graph: bound.graph, fresh: false };
      else if (bound?.kind === 'compiled' || bound?.kind === 'prebuilt') state = bound;
      else if ((bound?.kind === 'function' || bound?.kind === 'sequence' || bound?.kind === 'tool_node' || bound?.kind === 'model_node') && calls.length === 0) state = bound;
      else if (bound?.kind === 'imported' && calls.some((c) => c.method === 'compile'))
        state = { kind: 'unknown', why: `the graph '${name}' is imported from '${bound.from}' at ${bound.at}; the graph is built in another module` };
    } else this.scan(current, where);
    for (const [i, { method, args, call }] of calls.entries()) {
      if ((state.kind === 'graph' && NODE_METHODS.has(method)) || (state.kind === 'compiled' && method === 'override_node')) {
        this.addNode(state.graph, method as 'add_node' | 'override_node', args, call);
        continue;
      }
      this.scan(args, where);
      if (state.kind === 'graph' && method === 'compile') {
        state.graph.compiled = true;
        state = { kind: 'compiled', graph: state.graph };
      } else if (state.kind === 'prebuilt' && method === 'compile') {
        // Each compile() builds a new graph from the agent's arguments.
        state = { kind: 'compiled', graph: this.prebuiltGraph(state, args) };
      } else if (state.kind === 'graph' || state.kind === 'compiled') {
        // What other methods return is not known: a chain that goes on to add nodes cannot be followed.
        const next = calls.slice(i + 1).find((c) => NODE_METHODS.has(c.method) || c.method === 'compile');
        if (next) this.unread(state.graph, `${next.method}() at ${this.at(next.call.from)} is chained after ${method}(), whose result is not known`);
        state = { kind: 'unknown' };
      } else if (state.kind !== 'unknown') state = { kind: 'unknown' };
    }
    return state;
  }

  private addNode(graph: GraphState, method: 'add_node' | 'override_node', args: SyntaxNode, call: SyntaxNode): void {
    const where = this.at(call.from);
    const list = childrenOf(args).filter((c) => c.name !== '(' && c.name !== ')' && c.name !== ',');
    if (list.some((c) => c.name === '*' || c.name === '**' || c.name === 'AssignOp')) {
      for (const value of list) this.scan(value, 'an argument');
      return this.unread(graph, `${method}() at ${where} takes keyword or unpacked arguments`);
    }
    for (const value of list) this.scan(value, 'an argument');
    // The method's name marks the site: the calls of one chain all start where the chain does.
    const methodFrom = call.firstChild?.getChild('PropertyName')?.from ?? call.from;
    this.addNodeOf(
      graph,
      method,
      call.from,
      methodFrom,
      list.map((node) => ({
        from: node.from,
        to: node.to,
        text: this.text(node),
        variable: node.name === 'VariableName' ? this.text(node) : undefined,
        literal: this.stringValue(node),
        kind: this.kindOf(node),
      })),
    );
  }

  /**
   * A statement read without a parse (`NodeCall`): added as `addNode` adds it, when its receiver
   * is a graph and no argument is one; false otherwise (what a parse would make of it is not
   * followed here).
   */
  private readNodeCall(call: NodeCall): boolean {
    const bound = this.bindings.get(call.receiver);
    if (bound?.kind !== 'graph') return false;
    for (const link of call.links) {
      const args: NodeArgument[] = [];
      for (const a of link.args) {
        if (a.kind === 'string') {
          args.push({ from: a.from, to: a.to, text: a.text, literal: decodePythonString(a.text), kind: 'unknown' });
          continue;
        }
        const value = this.bindings.get(a.text);
        if (value?.kind === 'graph' || value?.kind === 'compiled') return false;
        args.push({ from: a.from, to: a.to, text: a.text, variable: a.text, kind: this.kindOfName(a.text) });
      }
      // Each call of a chain starts where its receiver does, as the parse has it.
      this.addNodeOf(bound.graph, link.method, call.receiverFrom, link.methodFrom, args);
    }
    return true;
  }

  /** Adds (or replaces) the node of one `add_node`/`override_node` call of `graph`, its arguments read (see `NodeArgument`). */
  private addNodeOf(graph: GraphState, method: 'add_node' | 'override_node', callFrom: number, methodFrom: number, list: NodeArgument[]): void {
    let name: string | undefined;
    let value: NodeArgument | undefined;
    const nameArgument = list[0];
    if (list.length === 1 && method === 'add_node') {
      // `add_node(func)` names the node after `func.__name__`.
      const only = list[0];
      const bound = only.variable !== undefined ? this.bindings.get(only.variable) : undefined;
      if (bound?.kind === 'function') name = bound.name;
      else if (bound?.kind === 'imported') name = bound.name.split('.').pop();
      if (name === undefined)
        return this.unread(graph, `add_node(${oneLine(only.text)}) at ${this.at(callFrom)} names the node after a value that is not a function defined or imported in the module`);
      value = only;
    } else if (list.length === 2) {
      name = list[0].literal;
      if (name === undefined) return this.unread(graph, `${method}() at ${this.at(callFrom)} has a name that is not a string literal (${oneLine(list[0].text)})`);
      value = list[1];
    } else return this.unread(graph, `${method}() at ${this.at(callFrom)} takes ${list.length} arguments`);
    if (method === 'override_node' && !graph.nodes.has(name))
      return this.unread(graph, `override_node() at ${this.at(callFrom)} replaces '${name}', which no add_node() before it added`);
    const kind = value.kind;
    graph.nodes.set(name, kind);
    const p = this.lines.positionAt(methodFrom);
    graph.sites.push({
      name,
      kind,
      method,
      line: p.line + 1,
      column: p.character + 1,
      offset: methodFrom,
      nameOffset: nameArgument.from,
      nameLength: nameArgument.to - nameArgument.from,
    });
  }

  /** The kind of node a value bound to `name` gives. */
  private kindOfName(name: string): NodeKind {
    const bound = this.bindings.get(name);
    if (bound?.kind === 'tool_node') return 'tool_node';
    if (bound?.kind === 'model_node') return 'model_node';
    if (bound?.kind === 'function') return 'function_node';
    return 'unknown';
  }

  private kindOf(value: SyntaxNode): NodeKind {
    if (value.name === 'LambdaExpression') return 'function_node';
    if (value.name === 'CallExpression') {
      const callee = this.calleeName(value.firstChild!);
      return callee === 'ToolNode' ? 'tool_node' : callee === 'Agent' ? 'model_node' : 'unknown';
    }
    return value.name === 'VariableName' ? this.kindOfName(this.text(value)) : 'unknown';
  }

  /** `a.b.c` as text, when `node` is only names and dots; undefined otherwise. */
  private dottedName(node: SyntaxNode): string | undefined {
    const parts: string[] = [];
    let current: SyntaxNode | null = node;
    while (current?.name === 'MemberExpression') {
      const property = current.lastChild;
      if (property?.name !== 'PropertyName') return undefined;
      parts.unshift(this.text(property));
      current = current.firstChild;
    }
    if (current?.name !== 'VariableName') return undefined;
    parts.unshift(this.text(current));
    return parts.join('.');
  }

  /**
   * The last name of a call's callee when it is a dotted name, type arguments aside
   * (`StateGraph[AgentState]` is `StateGraph`, as 10xGraph's generic form reads); undefined otherwise.
   */
  private calleeName(callee: SyntaxNode): string | undefined {
    let node = callee;
    if (node.name === 'MemberExpression' && node.getChild('[') && node.firstChild) node = node.firstChild;
    return this.dottedName(node)?.split('.').pop();
  }

  /**
   * Whether a call's callee names one of 10xGraph's prebuilt agent classes: imported from its
   * package (`from tenxgraph.prebuilt.agent import ReactAgent`), or that package's dotted path. A
   * class of the same name defined in the module or imported from elsewhere is not one.
   */
  private isPrebuiltClass(callee: SyntaxNode): boolean {
    const node = callee.name === 'MemberExpression' && callee.getChild('[') && callee.firstChild ? callee.firstChild : callee;
    const dotted = this.dottedName(node);
    if (dotted === undefined) return false;
    const parts = dotted.split('.');
    const bound = this.bindings.get(parts[0]);
    if (parts.length === 1) return bound?.kind === 'imported' && isPrebuiltModule(bound.from);
    // `tenxgraph.prebuilt.agent.ReactAgent` after `import tenxgraph`, or `prebuilt.ReactAgent` after `from tenxgraph import prebuilt`.
    const path = bound?.kind === 'imported' ? `${bound.from}.${bound.name}.${parts.slice(1, -1).join('.')}` : parts.slice(0, -1).join('.');
    return isPrebuiltModule(path.replace(/\.+$/, ''));
  }

  /**
   * Whether a callee is one of 10xGraph's observability helpers (`setup_logfire(graph, …)`,
   * `setup_langsmith`, `setup_observability`, `setup_tracing`), imported from its package: they attach a publisher
   * to the graph they are given and add no node, so passing the graph to them keeps it read.
   */
  private isObservabilityCall(callee: SyntaxNode): boolean {
    const dotted = this.dottedName(callee);
    if (dotted === undefined) return false;
    const parts = dotted.split('.');
    if (!OBSERVABILITY_CALLS.has(parts[parts.length - 1])) return false;
    const bound = this.bindings.get(parts[0]);
    const module = bound?.kind === 'imported' ? (parts.length === 1 ? bound.from : `${bound.from}.${bound.name}`) : parts.slice(0, -1).join('.');
    return /^(?:tenxgraph|agentflow)(?:\.|$)/.test(module);
  }

  /** The keyword arguments of a call (by name) and its positional ones; `unpacked` when it passes `*args` or `**kwargs`. */
  private argumentsOf(call: SyntaxNode): { keywords: Map<string, SyntaxNode>; positional: SyntaxNode[]; unpacked: boolean } {
    const keywords = new Map<string, SyntaxNode>();
    const positional: SyntaxNode[] = [];
    let unpacked = false;
    const args = call.name === 'ArgList' ? call : call.getChild('ArgList');
    const list = args ? childrenOf(args).filter((c) => c.name !== '(' && c.name !== ')') : [];
    for (let i = 0; i < list.length; i++) {
      const c = list[i];
      if (c.name === ',') continue;
      if (c.name === '*' || c.name === '**') {
        unpacked = true;
        i++;
      } else if (c.name === 'VariableName' && list[i + 1]?.name === 'AssignOp' && list[i + 2]) {
        keywords.set(this.text(c), list[i + 2]);
        i += 2;
      } else positional.push(c);
    }
    return { keywords, positional, unpacked };
  }

  /** Whether an `Agent(...)` call owns a ToolNode (its `tool_node` is one; a name or none is not), when the call says. */
  private ownsToolNode(call: SyntaxNode): { ownsToolNode?: boolean } {
    const { keywords, unpacked } = this.argumentsOf(call);
    // Memory and skills may make the agent a ToolNode of its own.
    if (unpacked || keywords.has('memory') || keywords.has('skills')) return {};
    const value = keywords.get('tool_node');
    if (!value || value.name === 'None' || value.name === 'String') return { ownsToolNode: false };
    const kind = this.kindOf(value);
    return kind === 'tool_node' ? { ownsToolNode: true } : {};
  }

  /**
   * The graph a prebuilt agent's `compile()` builds (`PREBUILT_AGENTS`), from its constructor's
   * arguments: each node of the table whose condition holds, under its name or the literal that
   * renames it, and the members of a team. Unread, with the argument, when an argument the nodes
   * depend on is not one the reader follows.
   */
  private prebuiltGraph(value: PrebuiltValue, compileArgs: SyntaxNode): GraphState {
    const graph: GraphState = { variable: '', nodes: new Map(), sites: [], depth: this.depth, compiled: true };
    const { agent, className } = value;
    const where = this.at(value.call.from);
    const { keywords, positional, unpacked } = this.argumentsOf(value.call);
    if (unpacked) {
      this.unread(graph, `${className}() at ${where} takes unpacked arguments, and its nodes depend on them`);
      return graph;
    }
    const argument = (name: string): SyntaxNode | undefined => {
      const i = agent.parameters.indexOf(name);
      return keywords.get(name) ?? (i >= 0 ? positional[i] : undefined);
    };
    const add = (name: string, kind: NodeKind, from: number, to: number) => {
      graph.nodes.set(name, kind);
      const p = this.lines.positionAt(from);
      graph.sites.push({ name, kind, method: 'prebuilt', line: p.line + 1, column: p.character + 1, offset: from, nameOffset: from, nameLength: to - from });
    };
    // The older API: `ReactAgent()` without a model, its nodes given to `compile(main_node, tool_node)`.
    if (className === 'ReactAgent' && positional.length === 0 && !keywords.has('model')) {
      const compiled = this.argumentsOf(compileArgs);
      for (const [i, node] of LEGACY_REACT_NODES.entries()) {
        const given = compiled.keywords.get(node.parameter) ?? compiled.positional[i];
        if (!given) continue;
        const named =
          given.name === 'TupleExpression' || given.name === 'ParenthesizedExpression'
            ? childrenOf(given).find((c) => c.name === 'String' || c.name === 'ContinuedString')
            : undefined;
        const literal = named ? this.stringValue(named) : undefined;
        if (named && literal === undefined) {
          this.unread(graph, `${className}().compile() at ${where} names its ${node.parameter} with ${this.snippet(named)}, which is not a plain string literal`);
          return graph;
        }
        const callable = named ? childrenOf(given).find((c) => c.name !== '(' && c.name !== ')' && c.name !== ',' && c !== named) : given;
        const kind = callable ? this.kindOf(callable) : 'unknown';
        add(literal ?? node.name, kind === 'unknown' ? node.kind : kind, named ? named.from : value.nameFrom, named ? named.to : value.nameTo);
      }
      return graph;
    }
    for (const node of agent.nodes) {
      const holds = node.when ? this.conditionHolds(node.when, argument) : true;
      if (typeof holds === 'string') {
        this.unread(graph, `whether ${className}() at ${where} adds its ${node.name} node depends on ${holds}, which the reader does not follow`);
        return graph;
      }
      if (!holds) continue;
      const renamed = node.renamedBy ? keywords.get(node.renamedBy) : undefined;
      const literal = renamed ? this.stringValue(renamed) : undefined;
      if (renamed && literal === undefined) {
        this.unread(graph, `${className}() at ${where} names its ${node.name} node with ${node.renamedBy}=${this.snippet(renamed)}, which is not a string literal`);
        return graph;
      }
      add(literal ?? node.name, node.kind, renamed ? renamed.from : value.nameFrom, renamed ? renamed.to : value.nameTo);
    }
    if (agent.members) {
      const members = argument(agent.members.argument);
      const why = members ? this.addMembers(members, agent.members.toolSuffix, add) : `${agent.members.argument}= is not given`;
      if (why) this.unread(graph, `${className}() at ${where} takes its members from ${agent.members.argument}=, and ${why}`);
    }
    return graph;
  }

  /** Whether a node's condition holds of a prebuilt agent's arguments; a string (the argument) when it cannot be told. */
  private conditionHolds(when: PrebuiltCondition, argument: (name: string) => SyntaxNode | undefined): boolean | string {
    for (const name of when.present ?? []) {
      const given = argument(name);
      if (given && given.name !== 'None') return true;
    }
    for (const name of when.nonEmpty ?? []) {
      const given = argument(name);
      if (!given || given.name === 'None') continue;
      const value = this.evaluate(given, 'an argument');
      if (value.kind !== 'sequence') return `${name}=${this.snippet(given)}`;
      if (!value.empty) return true;
    }
    return false;
  }

  /**
   * The members of a prebuilt team (a dict literal of string keys to `WorkerConfig(agent=...)` or
   * `SwarmMemberConfig(agent=...)`): each key a node, and `<KEY><suffix>` a ToolNode when its agent
   * owns one. Why not, when they cannot be read.
   */
  private addMembers(members: SyntaxNode, suffix: string, add: (name: string, kind: NodeKind, from: number, to: number) => void): string | undefined {
    if (members.name !== 'DictionaryExpression') return `${this.snippet(members)} is not a dict literal`;
    const entries = childrenOf(members).filter((c) => c.name !== '{' && c.name !== '}');
    for (let i = 0; i < entries.length; i++) {
      const key = entries[i];
      if (key.name === ',') continue;
      const literal = this.stringValue(key);
      if (literal === undefined || entries[i + 1]?.name !== ':' || !entries[i + 2]) return `the key ${this.snippet(key)} is not a string literal`;
      const config = entries[i + 2];
      i += 2;
      add(literal, 'model_node', key.from, key.to);
      let agentValue: SyntaxNode | undefined;
      if (config.name === 'CallExpression') {
        const { keywords, positional } = this.argumentsOf(config);
        agentValue = keywords.get('agent') ?? positional[0];
      }
      const member = agentValue ? this.evaluate(agentValue, 'an argument') : undefined;
      if (member?.kind !== 'model_node' || member.ownsToolNode === undefined) return `whether '${literal}' has a ${literal}${suffix} node (its agent's ToolNode) is not known`;
      if (member.ownsToolNode) add(`${literal}${suffix}`, 'tool_node', key.from, key.to);
    }
    return undefined;
  }

  /** Whether `callee` (a MemberExpression) is a dotted constructor name such as `tenxgraph.core.graph.StateGraph`. */
  private isConstructor(callee: SyntaxNode): boolean {
    const name = this.dottedName(callee.getChild('[') && callee.firstChild ? callee.firstChild : callee);
    if (name === undefined) return false;
    const last = name.split('.').pop();
    const head = this.bindings.get(name.split('.')[0]);
    return (
      (last === 'StateGraph' || last === 'ToolNode' || last === 'Agent' || (last !== undefined && last in PREBUILT_AGENTS)) && head?.kind !== 'graph' && head?.kind !== 'compiled'
    );
  }

  /** The value of a Python string literal (or implicitly joined literals); undefined for an f-string, bytes or a `\N{...}` escape. */
  private stringValue(node: SyntaxNode): string | undefined {
    if (node.name === 'ContinuedString') {
      let joined = '';
      for (const part of childrenOf(node)) {
        const value = this.stringValue(part);
        if (value === undefined) return undefined;
        joined += value;
      }
      return joined;
    }
    if (node.name !== 'String') return undefined;
    return decodePythonString(this.text(node));
  }

  /**
   * Looks, without recursion, for uses of a graph inside `node` that the reader cannot follow:
   * `add_node`/`override_node` on it (in `where`: a function body, a loop, an argument), or the
   * graph passed or assigned as a value. `skip` is a name node that is not a use (a definition's name).
   */
  private scan(node: SyntaxNode, where: string, skip?: SyntaxNode): void {
    const cursor = node.cursor();
    let depth = 0;
    for (;;) {
      if (cursor.name === 'VariableName' && !(skip && cursor.from === skip.from)) this.checkUse(cursor.node, where);
      if (cursor.firstChild()) {
        depth++;
        continue;
      }
      for (;;) {
        if (depth === 0) return;
        if (cursor.nextSibling()) break;
        cursor.parent();
        depth--;
      }
    }
  }

  private checkUse(use: SyntaxNode, where: string): void {
    const bound = this.bindings.get(this.text(use));
    if (bound?.kind !== 'graph' && bound?.kind !== 'compiled') return;
    const parent = use.parent;
    if (parent?.name === 'MemberExpression' && parent.firstChild?.from === use.from) {
      const method = parent.getChild('PropertyName');
      if (method && NODE_METHODS.has(this.text(method))) this.unread(bound.graph, `${this.text(method)}() at ${this.at(use.from)} is in ${where}`);
      return;
    }
    if (bound.kind === 'compiled' || parent?.name === 'ParamList') return;
    const local = where === 'a function body' || where === 'a class body';
    // `f(graph=...)` names a parameter; `graph = ...` in a function binds a local.
    if (use.nextSibling?.name === 'AssignOp' && (parent?.name === 'ArgList' || local)) return;
    const when = bound.graph.compiled ? 'after' : 'before';
    const call = parent?.name === 'ArgList' ? parent.parent : null;
    const callee = call?.name === 'CallExpression' && call.firstChild ? this.snippet(call.firstChild) : undefined;
    if (call?.firstChild && this.isObservabilityCall(call.firstChild)) return;
    if (callee !== undefined)
      this.unread(bound.graph, `the graph '${this.text(use)}' is passed to ${callee}() at ${this.at(call!.from)} ${when} compile(), and what that call does to it is not known`);
    else this.unread(bound.graph, `the graph '${this.text(use)}' is used as a value at ${this.at(use.from)} (passed or assigned in ${where})`);
  }
}

/** The parameters of a function definition: each name, and whether a call must pass it (no default, not `*args` or `**kwargs`). */
function parametersOf(definition: SyntaxNode): Array<{ name: SyntaxNode; required: boolean }> {
  const params = definition.getChild('ParamList');
  const found: Array<{ name: SyntaxNode; required: boolean }> = [];
  if (!params) return found;
  for (let c = params.firstChild; c; c = c.nextSibling) {
    if (c.name !== 'VariableName') continue;
    const before = c.prevSibling?.name;
    if (before !== '(' && before !== ',' && before !== '*' && before !== '**') continue;
    let after = c.nextSibling;
    if (after?.name === 'TypeDef') after = after.nextSibling;
    found.push({ name: c, required: before !== '*' && before !== '**' && after?.name !== 'AssignOp' });
  }
  return found;
}

/** Source text as a reason quotes it: on one line, at most 40 characters. */
function oneLine(text: string): string {
  return text.slice(0, 200).replace(/\s+/g, ' ').slice(0, 40);
}

/** The names an assignment target binds: a name, or the names of a tuple or list of targets (`a, (b, *c) = …`); none for an attribute or a subscript. */
function targetNames(target: SyntaxNode): SyntaxNode[] {
  const names: SyntaxNode[] = [];
  const stack = [target];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.name === 'VariableName') names.push(node);
    else if (node.name === 'TupleExpression' || node.name === 'ArrayExpression' || node.name === 'ParenthesizedExpression' || node.name === 'StarExpression')
      for (let c = node.firstChild; c; c = c.nextSibling) stack.push(c);
  }
  return names;
}

/** The first `return` inside a compound statement (not inside a function or class it defines), if any. */
function firstReturn(statement: SyntaxNode): SyntaxNode | undefined {
  if (!statement.getChild('Body') && statement.name !== 'MatchStatement') return undefined;
  const stack = [statement];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.name === 'ReturnStatement') return node;
    if (node !== statement && (node.name === 'FunctionDefinition' || node.name === 'ClassDefinition' || node.name === 'LambdaExpression')) continue;
    for (let c = node.lastChild; c; c = c.prevSibling) stack.push(c);
  }
  return undefined;
}

/** Whether an `if` statement is `if __name__ == "__main__":` (either side, either quote) with no `elif` or `else`. */
function isMainGuard(statement: SyntaxNode, source: string): boolean {
  if (statement.getChild('elif') || statement.getChild('else')) return false;
  const condition = statement.firstChild?.nextSibling;
  if (!condition) return false;
  const text = source.slice(condition.from, condition.to).replace(/\s+/g, '').replace(/'/g, '"');
  return text === '__name__=="__main__"' || text === '"__main__"==__name__';
}

/** The nodes a parse accepts that Python's compiler may refuse, by where they stand (see `refusalOf`). */
const REFUSABLE = new Set([
  'AwaitExpression',
  'YieldExpression',
  'YieldStatement',
  'ReturnStatement',
  'BreakStatement',
  'ContinueStatement',
  'PrintStatement',
  'ScopeStatement',
  'async',
]);

/** The scope a node stands in: an `async def`'s body, another function's (or a lambda's), a class body, or the module's. */
function scopeOf(node: SyntaxNode): 'async' | 'function' | 'class' | 'module' {
  let child = node;
  for (let p = node.parent; p; child = p, p = p.parent) {
    if (p.name === 'LambdaExpression' && child.name !== 'ParamList') return 'function';
    if (child.name !== 'Body') continue;
    // A def's defaults and decorators, and a class's bases, stand in the scope around it: only the body counts.
    if (p.name === 'FunctionDefinition') return p.firstChild?.name === 'async' ? 'async' : 'function';
    if (p.name === 'ClassDefinition') return 'class';
  }
  return 'module';
}

/** Whether a `break` or `continue` stands in a loop's body (not its `else`), inside the function or class it is in. */
function inLoop(node: SyntaxNode): boolean {
  let child = node;
  for (let p = node.parent; p; child = p, p = p.parent) {
    if (child.name !== 'Body') continue;
    if (p.name === 'ForStatement' || p.name === 'WhileStatement') {
      if (p.getChild('Body')?.from === child.from) return true;
    } else if (p.name === 'FunctionDefinition' || p.name === 'ClassDefinition') return false;
  }
  return false;
}

/**
 * What Python's compiler says of `node` (one of `REFUSABLE`) where it stands, when it refuses the
 * module for it (the parse accepts these anywhere): `await` outside an `async def`, `yield` or
 * `return` outside a function, `break` outside a loop, Python 2's `print` statement. Undefined
 * when Python accepts it. Asynchronous generator expressions are left alone (their rules vary by version).
 */
function refusalOf(node: SyntaxNode): string | undefined {
  switch (node.name) {
    case 'PrintStatement':
      return "Missing parentheses in call to 'print'";
    case 'AwaitExpression': {
      const scope = scopeOf(node);
      return scope === 'async' ? undefined : scope === 'function' ? "'await' outside async function" : "'await' outside function";
    }
    case 'YieldExpression':
    case 'YieldStatement': {
      const scope = scopeOf(node);
      return scope === 'module' || scope === 'class' ? "'yield' outside function" : undefined;
    }
    case 'ReturnStatement': {
      const scope = scopeOf(node);
      return scope === 'module' || scope === 'class' ? "'return' outside function" : undefined;
    }
    case 'BreakStatement':
      return inLoop(node) ? undefined : "'break' outside loop";
    case 'ContinueStatement':
      return inLoop(node) ? undefined : "'continue' not properly in loop";
    case 'ScopeStatement':
      return node.firstChild?.name === 'nonlocal' && scopeOf(node) === 'module' ? 'nonlocal declaration not allowed at module level' : undefined;
    case 'async': {
      const parent = node.parent;
      if (!parent || scopeOf(parent) === 'async') return undefined;
      if (parent.name === 'ForStatement') return "'async for' outside async function";
      if (parent.name === 'WithStatement') return "'async with' outside async function";
      if (parent.name === 'ArrayComprehensionExpression' || parent.name === 'SetComprehensionExpression' || parent.name === 'DictionaryComprehensionExpression')
        return 'asynchronous comprehension outside of an asynchronous function';
      return undefined;
    }
  }
  return undefined;
}

/**
 * A tree parsed over ranges that start at `from` counts its positions from there: the same tree
 * inside one that starts at the module's start, so that every position is an offset in the module.
 */
function atOffset(tree: Tree, from: number): Tree {
  if (from === 0) return tree;
  // The classes of the parser's own copy of @lezer/common, taken from the tree itself: an install or
  // a bundle may hold a second copy, and a tree reads only children of its own class as trees.
  const TreeClass = tree.constructor as typeof Tree;
  const NodeTypeClass = tree.type.constructor as typeof NodeType;
  return new TreeClass(NodeTypeClass.none, [tree], [from], from + tree.length);
}

/** The parse's Script node (inside the wrapper `atOffset` may have put around it). */
function scriptOf(tree: Tree): SyntaxNode {
  const top = tree.topNode;
  return top.name === 'Script' ? top : top.firstChild!;
}

/** The expression inside parentheses (`(a.b())` is `a.b()`), however many; a tuple or anything else as it is. */
function unparenthesized(node: SyntaxNode | null): SyntaxNode | null {
  let current = node;
  while (current?.name === 'ParenthesizedExpression') {
    const inner = childrenOf(current).filter((c) => c.name !== '(' && c.name !== ')');
    if (inner.length !== 1) break;
    current = inner[0];
  }
  return current;
}

function childrenOf(node: SyntaxNode): SyntaxNode[] {
  const children: SyntaxNode[] = [];
  for (let c = node.firstChild; c; c = c.nextSibling) children.push(c);
  return children;
}

const SIMPLE_ESCAPES: Record<string, string> = { '\\': '\\', "'": "'", '"': '"', a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\n': '' };

/**
 * The value of one Python string literal (`'x'`, `"x"`, triple-quoted, with `r`/`u` prefixes);
 * undefined for bytes, f-strings and `\N{...}` escapes, whose value is not read here.
 */
export function decodePythonString(literal: string): string | undefined {
  // The common literal: no prefix, no escape.
  const first = literal.charCodeAt(0);
  if ((first === 34 || first === 39) && literal.length >= 2 && literal.charCodeAt(literal.length - 1) === first && literal.indexOf('\\') < 0) {
    const triple = literal.length >= 6 && literal.charCodeAt(1) === first && literal.charCodeAt(2) === first;
    return triple ? literal.slice(3, -3) : literal.slice(1, -1);
  }
  const quoteAt = literal.search(/['"]/);
  if (quoteAt < 0) return undefined;
  const prefix = literal.slice(0, quoteAt).toLowerCase();
  if (/[bf]/.test(prefix)) return undefined;
  const quote = literal.startsWith(literal[quoteAt].repeat(3), quoteAt) ? literal[quoteAt].repeat(3) : literal[quoteAt];
  const body = literal.slice(quoteAt + quote.length, literal.length - quote.length);
  if (prefix.includes('r')) return body;
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c !== '\\') {
      out += c;
      continue;
    }
    const next = body[i + 1];
    if (next === undefined) return undefined;
    if (next in SIMPLE_ESCAPES) {
      out += SIMPLE_ESCAPES[next];
      i++;
    } else if (next >= '0' && next <= '7') {
      const digits = /^[0-7]{1,3}/.exec(body.slice(i + 1))![0];
      out += String.fromCodePoint(parseInt(digits, 8));
      i += digits.length;
    } else if (next === 'x' || next === 'u' || next === 'U') {
      const width = next === 'x' ? 2 : next === 'u' ? 4 : 8;
      const hex = body.slice(i + 2, i + 2 + width);
      if (!new RegExp(`^[0-9a-fA-F]{${width}}$`).test(hex) || parseInt(hex, 16) > 0x10ffff) return undefined;
      out += String.fromCodePoint(parseInt(hex, 16));
      i += 1 + width;
    } else if (next === 'N') return undefined;
    else out += c;
  }
  return out;
}
