import type { AuditOptions, Fix, Graph, GraphNode, ProblemCode, RelatedLocation } from './types';
import { type JsonNode, type RepeatedKey, propertyOf, valueOf } from './parse';

/** The three string fields every remote tool needs. */
export const STRING_FIELDS = ['node', 'name', 'description'] as const;
export type StringField = (typeof STRING_FIELDS)[number];

/** The fields a remote tool may have. */
export const TOOL_FIELDS = ['node', 'name', 'description', 'parameters'] as const;

/** One item of `remote_tools`, with what the rules need to know about it precomputed. */
export interface ToolView {
  index: number;
  /** The item; an object for every ToolView the tool rules see. */
  object: JsonNode;
  /** The value node of each string field, as a strict parser keeps it. */
  field: Record<StringField, JsonNode | undefined>;
  /**
   * The field's text when it is a non-blank string, else undefined. A field that fails
   * `not-a-string` or `blank-field` is judged by no other rule.
   */
  valid: Record<StringField, string | undefined>;
  parameters: JsonNode | undefined;
  /** How messages name the tool: by its name, or by its index when it has none. */
  label: string;
}

/** Everything one audit knows, shared by the rules. */
export interface RuleContext {
  text: string;
  root: JsonNode;
  repeatedKeys: RepeatedKey[];
  options: AuditOptions;
  graph: Graph | undefined;
  /** Graph nodes by name, when the graph is known. */
  graphNodes: Map<string, GraphNode> | undefined;
  /** The value of `remote_tools` when it is an array. */
  toolList: JsonNode | undefined;
  /** The items of `remote_tools` that are objects. */
  tools: ToolView[];
  report(problem: ProblemInput): void;
}

/** What a rule reports; the severity comes from the catalog. */
export interface ProblemInput {
  code: ProblemCode;
  message: string;
  node: { offset: number; length: number };
  related?: RelatedLocation[];
  fixes?: Fix[];
}

/** One rule: a code and a check that reports through the context. */
export interface Rule {
  code: ProblemCode;
  check(context: RuleContext): void;
}

/** Builds the views of the tools of `root` (an object). */
export function buildToolViews(root: JsonNode): { toolList: JsonNode | undefined; tools: ToolView[] } {
  const list = valueOf(root, 'remote_tools');
  if (list?.type !== 'array') return { toolList: undefined, tools: [] };
  const tools: ToolView[] = [];
  const items = list.children!;
  for (let index = 0; index < items.length; index++) {
    const object = items[index];
    if (object.type !== 'object') continue;
    const node = valueOf(object, 'node');
    const name = valueOf(object, 'name');
    const description = valueOf(object, 'description');
    const valid = {
      node: validString(node),
      name: validString(name),
      description: validString(description),
    };
    tools.push({
      index,
      object,
      field: { node, name, description },
      valid,
      parameters: valueOf(object, 'parameters'),
      label: valid.name !== undefined ? `tool '${valid.name}'` : `remote_tools[${index}]`,
    });
  }
  return { toolList: list, tools };
}

function validString(node: JsonNode | undefined): string | undefined {
  if (node?.type !== 'string') return undefined;
  const value = node.value as string;
  return value.trim() === '' ? undefined : value;
}

/** The `{` of an object: where a missing field's problem stands. */
export function openBrace(object: JsonNode): { offset: number; length: number } {
  return { offset: object.offset, length: 1 };
}

/** A ToolNode of the graph, by name, or undefined. */
export function toolNodes(graph: Graph): GraphNode[] {
  return graph.nodes.filter((n) => n.kind === 'tool_node');
}

export { propertyOf, valueOf };
