/**
 * The project rules: what a config and the project's JS/TS sources say together (the handlers a
 * client registers, the graph an agent module's source describes). Like every rule they are pure:
 * they take the project's facts as plain data (read by the front end, never by the rule set) and
 * return problems with offsets, in the config's text or in a source's. The language server and
 * `10xgraph audit --project` both run them, so both report the same problems at the same places.
 */
import type { ProblemCode } from './catalog';
import type { ConfigSummary } from './configSummary';
import type { Fix, Graph, GraphNode, NodeKind, RelatedLocation } from './types';

/** A set of names, as a `Set` or the keys of a `Map` give it. */
export interface NameSet {
  has(name: string): boolean;
  readonly size: number;
  keys(): Iterable<string>;
}

/** What the front end found in the project's sources and configs. */
export interface ProjectFacts {
  /** Every source and config of the project was read (the scan is done and no bound was reached): only then is an absence judged. */
  complete: boolean;
  /** The literal names sources register handlers under (`registerToolHandler('name', …)`, `registerTool({ name: 'name', … })`). */
  handled: NameSet;
  /** How many registrations have a computed name (which could be any tool). */
  computedHandlers: number;
  /** The remote tool names the project's configs declare. */
  declared: NameSet;
}

/** A name argument read from a source (`registerToolHandler(name, …)`, `addNode(name, …)`), with offsets in that source's text. */
export interface SourceNameFact {
  /** The literal's value; undefined when the name is computed. */
  name: string | undefined;
  offset: number;
  length: number;
  /** The text between the quotes (literals only). */
  inner?: { offset: number; length: number };
  /** True when the text between the quotes is exactly the value (no escapes). */
  exact: boolean;
}

/** An `addNode(name, node)` call of an agent module's source. */
export interface SourceNodeFact extends SourceNameFact {
  kind: NodeKind;
  /** The zero-based line of the call's name. */
  line: number;
}

/** The graph an agent module's source describes, or why it describes none exactly. */
export interface AgentGraph {
  /** The module's file. */
  file: string;
  /** The module as messages name it, when not by its base name (a Python module by its path from the config's folder: `graph/react.py`). */
  shown?: string;
  /** The graph read from the source, when every `addNode` there has a literal name and the file parses. */
  graph?: Graph;
  /** Why no graph was read from it (one sentence), when `graph` is undefined. */
  reason?: string;
  /** The reason is worth telling (a computed name or a syntax error), not merely a module that adds no node itself. */
  tell?: boolean;
  /**
   * The module, read whole, binds no top-level name `agent` names: the server cannot import it
   * (`agent-not-found`, with this sentence), which is no unread graph.
   */
  missing?: string;
}

/**
 * The top-level names a Python module beside the config binds, as the workspace's Python reader
 * read it whole (never run): the names a `module:attribute` may give. Front ends give it only for a
 * module whose names are all known (it parses, and nothing in it binds names no statement shows).
 */
export interface PythonModuleNames {
  /** The module's file from the config's folder, as messages name it (`graph/agent.py`). */
  shown: string;
  names: readonly string[];
  /** For a package (`__init__.py`), its submodules: an attribute once something imports them. */
  submodules?: readonly string[];
}

/** The last part of a path, whichever separator it uses. */
function baseName(path: string): string {
  return path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
}

/** The graph an agent module's source describes (its `addNode` calls and the first syntax error, if any), or why it describes none exactly. */
export function agentGraphOf(file: string, source: { nodes: readonly Pick<SourceNodeFact, 'name' | 'kind' | 'line'>[]; syntaxError?: string }): AgentGraph {
  const name = baseName(file);
  if (source.syntaxError) return { file, tell: true, reason: `${name} does not parse (${source.syntaxError}), so node names are not checked without a running server.` };
  const computed = source.nodes.find((n) => n.name === undefined);
  if (computed)
    return { file, tell: true, reason: `${name} adds a node whose name is not a literal (line ${computed.line + 1}), so node names are not checked without a running server.` };
  if (source.nodes.length === 0) return { file, reason: `${name} adds no node with addNode, so its nodes are not known.` };
  const nodes: GraphNode[] = [];
  const seen = new Set<string>();
  for (const node of source.nodes) {
    if (seen.has(node.name!)) continue;
    seen.add(node.name!);
    nodes.push({ name: node.name!, kind: node.kind });
  }
  return { file, graph: { origin: 'loaded', nodes, toolsKnown: false } };
}

/**
 * The graph a Python agent module's source describes, as the workspace's Python reader read it
 * (`readPythonGraph`: a graph, or why none can be read exactly, with its place), for the
 * module shown as `shown` (its path from the config's folder, `graph/react.py`).
 */
export function pythonAgentGraphOf(
  file: string,
  shown: string,
  read: { ok: true; graph: Graph } | { ok: false; reason: string; missing?: true },
  missing?: { spec: string; graphs: readonly string[] },
): AgentGraph {
  if (read.ok) return { file, shown, graph: read.graph };
  if (read.missing && missing) {
    const colon = missing.spec.indexOf(':');
    return { file, shown, missing: missingAttributeSentence(shown, missing.spec.slice(0, colon), missing.spec.slice(colon + 1), missing.graphs) };
  }
  return { file, shown, tell: true, reason: `${shown} not read (${read.reason}), so node names are not checked without a running server.` };
}

/**
 * What the server says of a `module:attribute` whose module binds no such name: importing it
 * fails at start-up. `graphs` are the module's compiled graphs (for `agent`), named as the likely choice.
 */
export function missingAttributeSentence(shown: string, module: string, attribute: string, graphs: readonly string[] = []): string {
  const choice = graphs.length
    ? ` (its compiled graph${graphs.length === 1 ? ' is' : 's are'} ${graphs
        .slice(0, 5)
        .map((g) => `'${g}'`)
        .join(', ')})`
    : '';
  return `${shown} binds no top-level '${attribute}'${choice}: the server stops at start-up (module '${module}' has no attribute '${attribute}').`;
}

/** The sentence added to a graph rule's message when the graph was read from the agent module's source (named `shown`, else by its base name). */
export function readFromSourceNote(file: string, shown?: string): string {
  return ` (Judged on the graph read from ${shown ?? baseName(file)}; no server graph is in use.)`;
}

/** What a graph rule adds to its message: the note of `readFromSourceNote` when the graph was read from a source (`AuditOptions.graphReadFrom`), else nothing. */
export function graphNoteOf(readFrom: { file: string; shown?: string } | undefined): string {
  return readFrom ? readFromSourceNote(readFrom.file, readFrom.shown) : '';
}

/** What a project rule on a config is given. */
export interface ProjectConfigInput {
  config: ConfigSummary;
  project: ProjectFacts;
  /** The config lies in the part of the project whose sources were read. */
  covered: boolean;
  /** The agent module's source, read without a server graph in use; undefined when a server graph judges the nodes, or the module was not found. */
  agent?: AgentGraph;
  /** The names of the Python module beside the config that a `module:attribute` names; undefined where the front end did not read it whole. */
  modules?: (module: string) => PythonModuleNames | undefined;
}

/** What a project rule on a source is given. */
export interface ProjectSourceInput {
  /** The source's registrations (`registerToolHandler`, `registerTool`), with offsets in its text. */
  handlers: readonly SourceNameFact[];
  project: ProjectFacts;
}

/** What a project rule reports; the severity comes from the catalog. */
export interface ProjectProblemInput {
  code: ProblemCode;
  message: string;
  offset: number;
  length: number;
  related?: RelatedLocation[];
  fixes?: Fix[];
}

/** A project rule on a config (`handler-missing`, `graph-not-read`). */
export interface ConfigProjectRule {
  code: ProblemCode;
  on: 'config';
  check(input: ProjectConfigInput, report: (problem: ProjectProblemInput) => void): void;
}

/** A project rule on a source (`handler-undeclared`). */
export interface SourceProjectRule {
  code: ProblemCode;
  on: 'source';
  check(input: ProjectSourceInput, report: (problem: ProjectProblemInput) => void): void;
}

/** One project rule. */
export type ProjectRule = ConfigProjectRule | SourceProjectRule;
