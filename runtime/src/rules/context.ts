import type { AuditOptions, Fix, Graph, GraphNode, ProblemCode, RelatedLocation } from './types';
import { Kind, NONE, type Tree } from './tree';
import { pythonStrip } from './python';

/** The three string fields every remote tool needs. */
export const STRING_FIELDS = ['node', 'name', 'description'] as const;
export type StringField = (typeof STRING_FIELDS)[number];

/** The fields a remote tool may have. */
export const TOOL_FIELDS = ['node', 'name', 'description', 'parameters'] as const;

/** One item of `remote_tools` that is an object, with what the rules need precomputed. */
export class ToolView {
  /** The value node of each string field as a strict parser keeps it, or NONE. */
  readonly field: Record<StringField, number>;
  /**
   * The field's text as the server uses it, trimmed (Python's `str.strip()`), when it is a
   * string that is not blank; else undefined. A field that fails `not-a-string` or
   * `blank-field` is judged by no other rule.
   */
  readonly valid: Record<StringField, string | undefined>;
  /** Whether `node` is spelt `node_name`, the server's other name for it. */
  readonly nodeNamed: boolean;

  constructor(
    readonly index: number,
    /** The item (an object node). */
    readonly object: number,
    node: number,
    name: number,
    description: number,
    /** The value of `parameters`, or NONE. */
    readonly parameters: number,
    /** When `parameters` is an object: its `type`, `properties` and `required` values (or NONE). */
    readonly schema: { type: number; properties: number; required: number } | undefined,
    /** Properties whose key is not an allowed field, in document order. */
    readonly unknownFields: number[] | undefined,
    tree: Tree,
    nodeNamed = false,
  ) {
    this.field = { node, name, description };
    this.valid = { node: validString(tree, node), name: validString(tree, name), description: validString(tree, description) };
    this.nodeNamed = nodeNamed;
  }

  /** The key a field is written with in the file (`node` may be `node_name`). */
  fieldKey(field: StringField): string {
    return field === 'node' && this.nodeNamed ? 'node_name' : field;
  }

  /** How messages name the tool: by its name, or by its index when it has none. */
  get label(): string {
    return this.valid.name !== undefined ? `tool '${shown(this.valid.name)}'` : `remote_tools[${this.index}]`;
  }
}

/** Everything one audit knows, shared by the rules. */
export interface RuleContext {
  text: string;
  tree: Tree;
  /** The root node (0). */
  root: number;
  options: AuditOptions;
  graph: Graph | undefined;
  /** Graph nodes by name, when the graph is known. */
  graphNodes: Map<string, GraphNode> | undefined;
  /** The value of `remote_tools` when it is an array, else NONE. */
  toolList: number;
  /** The items of `remote_tools` that are objects. */
  tools: ToolView[];
  report(problem: ProblemInput): void;
}

/** What a rule reports; the severity comes from the catalog. */
export interface ProblemInput {
  code: ProblemCode;
  message: string;
  /** The range: a node id, or an explicit span. */
  node: number | { offset: number; length: number };
  related?: RelatedLocation[];
  fixes?: Fix[];
}

/** One rule: a code and a check that reports through the context. */
export interface Rule {
  code: ProblemCode;
  check(context: RuleContext): void;
}

/** Builds the views of the tools of the root object. */
export function buildToolViews(tree: Tree): { toolList: number; tools: ToolView[] } {
  const list = tree.get(tree.root, 'remote_tools');
  if (list === NONE || tree.kind[list] !== Kind.Array) return { toolList: NONE, tools: [] };
  const tools: ToolView[] = [];
  let index = 0;
  for (let object = tree.first[list]; object !== NONE; object = tree.next[object], index++) {
    if (tree.kind[object] !== Kind.Object) continue;
    let node = NONE;
    let nodeName = NONE;
    let name = NONE;
    let description = NONE;
    let parameters = NONE;
    let unknownFields: number[] | undefined;
    // One pass over the fields; a later repeat wins, as in a strict parser.
    for (let p = tree.first[object]; p !== NONE; p = tree.next[p]) {
      const key = tree.first[p];
      const value = tree.next[key];
      if (tree.stringEquals(key, 'node')) node = value;
      else if (tree.stringEquals(key, 'node_name')) nodeName = p;
      else if (tree.stringEquals(key, 'name')) name = value;
      else if (tree.stringEquals(key, 'description')) description = value;
      else if (tree.stringEquals(key, 'parameters')) parameters = value;
      else (unknownFields ??= []).push(p);
    }
    // `node_name` is the server's own name of `node`: alone it is `node`; beside `node` the
    // server refuses it as a field it does not know.
    let nodeNamed = false;
    if (nodeName !== NONE) {
      if (node === NONE) {
        node = tree.valueOfProperty(nodeName);
        nodeNamed = true;
      } else {
        for (let p = tree.first[object]; p !== NONE; p = tree.next[p]) if (tree.stringEquals(tree.first[p], 'node_name')) (unknownFields ??= []).push(p);
        unknownFields!.sort((a, b) => tree.start[a] - tree.start[b]);
      }
    }
    let schema: ToolView['schema'] = undefined;
    if (parameters !== NONE && tree.kind[parameters] === Kind.Object) {
      schema = { type: NONE, properties: NONE, required: NONE };
      for (let p = tree.first[parameters]; p !== NONE; p = tree.next[p]) {
        const key = tree.first[p];
        if (tree.stringEquals(key, 'type')) schema.type = tree.next[key];
        else if (tree.stringEquals(key, 'properties')) schema.properties = tree.next[key];
        else if (tree.stringEquals(key, 'required')) schema.required = tree.next[key];
      }
    }
    tools.push(new ToolView(index, object, node, name, description, parameters, schema, unknownFields, tree, nodeNamed));
  }
  return { toolList: list, tools };
}

function validString(tree: Tree, node: number): string | undefined {
  if (node === NONE || tree.kind[node] !== Kind.String) return undefined;
  const value = pythonStrip(tree.string(node));
  return value === '' ? undefined : value;
}

/** The `{` of an object: where a missing field's problem stands. */
export function openBrace(tree: Tree, object: number): { offset: number; length: number } {
  return { offset: tree.start[object], length: 1 };
}

/** The ToolNodes of the graph. */
export function toolNodes(graph: Graph): GraphNode[] {
  return graph.nodes.filter((n) => n.kind === 'tool_node');
}

/** Text from the file as a message quotes it: long text is cut, so a 1 MB key makes a short line. */
export function shown(text: string, max = 80): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** " ToolNodes: 'A', 'B'." for a message (the first ten, "…" after them when `ellipsis`), or that there is none. */
export function listToolNodes(names: readonly string[], ellipsis: boolean): string {
  if (names.length === 0) return ' The graph has no ToolNode.';
  return ` ToolNodes: ${names
    .slice(0, 10)
    .map((n) => `'${shown(n)}'`)
    .join(', ')}${ellipsis && names.length > 10 ? ', …' : ''}.`;
}

/** How a message names the type of a value: "an array", "a number", "null". */
export function describeType(tree: Tree, node: number): string {
  switch (tree.kind[node]) {
    case Kind.Object:
      return 'an object';
    case Kind.Array:
      return 'an array';
    case Kind.String:
      return 'a string';
    case Kind.Number:
      return 'a number';
    case Kind.True:
    case Kind.False:
      return 'a boolean';
    default:
      return 'null';
  }
}

export { Kind, NONE };
