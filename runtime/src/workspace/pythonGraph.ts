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
import type { SyntaxNode, Tree } from '@lezer/common';
import { LineIndex } from '../rules/lineIndex';
import type { Graph, NodeKind } from '../rules/types';
import { chainedCalls, insideSpan, isPythonNameChar, MAX_BRACKET_DEPTH, type ModuleLayout, type NodeCall, topLevelStatements, type TopLevelStatement } from './pythonStatements';

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
  method: 'add_node' | 'override_node';
  line: number;
  column: number;
  /** Offset of the method's name (`add_node`) in the module's text. */
  offset: number;
  /** Where the name argument lies (the string literal with its quotes, or the function of `add_node(func)`). */
  nameOffset: number;
  nameLength: number;
}

/** What was read of a module: the graph exported as `variable`, or why it could not be read exactly. */
export type PythonGraphRead = { ok: true; graph: Graph; graphVariable: string; sites: PythonNodeSite[] } | { ok: false; reason: string };

interface GraphState {
  variable: string;
  nodes: Map<string, NodeKind>;
  sites: PythonNodeSite[];
  /** The first thing that made the graph unreadable. */
  unread?: string;
}

type Binding =
  | { kind: 'graph'; graph: GraphState }
  | { kind: 'compiled'; graph: GraphState }
  | { kind: 'tool_node' | 'model_node' | 'function'; name: string }
  | { kind: 'imported'; name: string; from: string; at: string }
  | { kind: 'other'; why: string };

/** What a top-level expression evaluates to, as far as the reader follows it. */
type Value =
  | { kind: 'graph'; graph: GraphState; fresh: boolean }
  | { kind: 'compiled'; graph: GraphState }
  | { kind: 'tool_node' | 'model_node'; name: string }
  | { kind: 'unknown'; why?: string };

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
  try {
    return new ModuleReader(source).readAll(whole);
  } catch (error) {
    // The parser's tree building recurses: nesting it meets that the layout did not bound (in an
    // f-string's fields, say) can exhaust the stack, which is a module too deep to read, not a crash.
    if (error instanceof RangeError) return { unread: 'the module nests too deeply to be parsed', exports: [] };
    throw error;
  }
}

/** The graph of `variable` in a module read by `readPythonModule`: what `readPythonGraph` answers. */
export function pythonGraphOf(module: PythonModuleRead, variable: string): PythonGraphRead {
  if (module.unread !== undefined) return { ok: false, reason: module.unread };
  const found = module.exports.find(([name]) => name === variable);
  return found ? found[1] : { ok: false, reason: `no top-level '${variable}' is assigned in the module` };
}

class ModuleReader {
  private readonly lines: LineIndex;
  private readonly bindings = new Map<string, Binding>();
  private layout: ModuleLayout | undefined;
  /** Every name bound to a graph or a compiled graph so far. */
  private readonly graphNames = new Set<string>();

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
    if (!whole && 'statements' in layout && layout.statements.some((s) => s.definition || s.nodeCall)) {
      const read = this.readParsingSome(parser, layout.statements, layout.nonCode);
      if (read) return read;
      this.bindings.clear();
      this.graphNames.clear();
    }
    // With nothing left unparsed, readTree always answers (a syntax error is an answer then).
    return this.readTree(parser.parse(this.source), [])!;
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
      if (s.definition || s.nodeCall) {
        unparsed.push(s);
        continue;
      }
      const last = ranges.at(-1);
      if (last && last.to === s.from) last.to = s.to;
      else ranges.push({ from: s.from, to: s.to });
    }
    const read = this.readTree(ranges.length > 0 ? parser.parse(this.source, [], ranges) : undefined, unparsed);
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
      } while (cursor.next());
    }
    let statement = tree?.topNode.firstChild ?? null;
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
        this.bindings.set(name, kind === 'function' ? { kind: 'function', name } : { kind: 'other', why: `'${name}' is a class` });
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
      default:
        return { ok: false, reason: `'${variable}' is not the result of a StateGraph's compile()` };
    }
  }

  private at(offset: number): string {
    const p = this.lines.positionAt(offset);
    return `${p.line + 1}:${p.character + 1}`;
  }

  private text(node: SyntaxNode): string {
    return this.source.slice(node.from, node.to);
  }

  private readStatement(statement: SyntaxNode): void {
    switch (statement.name) {
      case 'ImportStatement':
        return this.readImport(statement);
      case 'AssignStatement':
        return this.readAssignment(statement);
      case 'ExpressionStatement': {
        const expression = statement.firstChild;
        if (expression) this.evaluate(expression, 'an expression');
        return;
      }
      case 'FunctionDefinition':
      case 'ClassDefinition':
      case 'DecoratedStatement': {
        const definition = statement.name === 'DecoratedStatement' ? (statement.getChild('FunctionDefinition') ?? statement.getChild('ClassDefinition')) : statement;
        const name = definition?.getChild('VariableName');
        this.scan(statement, definition?.name === 'ClassDefinition' ? 'a class body' : 'a function body', name ?? undefined);
        if (definition && name) {
          this.bindings.set(
            this.text(name),
            definition.name === 'FunctionDefinition' ? { kind: 'function', name: this.text(name) } : { kind: 'other', why: `'${this.text(name)}' is a class` },
          );
        }
        return;
      }
      case 'ForStatement':
      case 'WhileStatement':
        return this.scan(statement, 'a loop');
      default:
        return this.scan(statement, 'a block');
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
      for (const t of targets)
        if (t.name === 'VariableName')
          this.bindings.set(this.text(t), { kind: 'other', why: `'${this.text(t)}' is assigned at ${this.at(t.from)} from something other than a StateGraph's compile()` });
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
        this.graphNames.add(name);
      } else if (result.kind === 'tool_node' || result.kind === 'model_node') this.bindings.set(name, result);
      else if (result.kind === 'unknown')
        this.bindings.set(name, { kind: 'other', why: result.why ?? `'${name}' is assigned at ${this.at(targets[i].from)} from something other than a StateGraph's compile()` });
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
      const name = this.dottedName(current.firstChild!)?.split('.').pop();
      if (name === 'StateGraph') state = { kind: 'graph', graph: { variable: '', nodes: new Map(), sites: [] }, fresh: true };
      else if (name === 'ToolNode') state = { kind: 'tool_node', name };
      else if (name === 'Agent') state = { kind: 'model_node', name };
    } else if (current.name === 'VariableName') {
      const name = this.text(current);
      const bound = this.bindings.get(name);
      if (bound?.kind === 'graph') state = { kind: 'graph', graph: bound.graph, fresh: false };
      else if (bound?.kind === 'compiled') state = bound;
      else if (bound?.kind === 'imported' && calls.some((c) => c.method === 'compile'))
        state = { kind: 'unknown', why: `the graph '${name}' is imported from '${bound.from}' at ${bound.at}; the graph is built in another module` };
    } else this.scan(current, where);
    for (const [i, { method, args, call }] of calls.entries()) {
      if ((state.kind === 'graph' && NODE_METHODS.has(method)) || (state.kind === 'compiled' && method === 'override_node')) {
        this.addNode(state.graph, method as 'add_node' | 'override_node', args, call);
        continue;
      }
      this.scan(args, where);
      if (state.kind === 'graph' && method === 'compile') state = { kind: 'compiled', graph: state.graph };
      else if (state.kind === 'graph' || state.kind === 'compiled') {
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
        return this.unread(
          graph,
          `add_node(${only.text.slice(0, 40)}) at ${this.at(callFrom)} names the node after a value that is not a function defined or imported in the module`,
        );
      value = only;
    } else if (list.length === 2) {
      name = list[0].literal;
      if (name === undefined) return this.unread(graph, `${method}() at ${this.at(callFrom)} has a name that is not a string literal (${list[0].text.slice(0, 40)})`);
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
      const callee = this.dottedName(value.firstChild!)?.split('.').pop();
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

  /** Whether `callee` (a MemberExpression) is a dotted constructor name such as `tenxgraph.core.graph.StateGraph`. */
  private isConstructor(callee: SyntaxNode): boolean {
    const name = this.dottedName(callee);
    if (name === undefined) return false;
    const last = name.split('.').pop();
    const head = this.bindings.get(name.split('.')[0]);
    return (last === 'StateGraph' || last === 'ToolNode' || last === 'Agent') && head?.kind !== 'graph' && head?.kind !== 'compiled';
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
    this.unread(bound.graph, `the graph '${this.text(use)}' is used as a value at ${this.at(use.from)} (passed or assigned in ${where})`);
  }
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
