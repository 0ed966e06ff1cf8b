/**
 * Hover: what a field means (docs/spec.md §1: for a setting, its type, default, allowed values and
 * help from the rule set's table; links to its rules); on a `node` value, what the
 * live graph says of that node; on a `name`, the rule set's verdict on the tool's attachment,
 * worded for the hover; on `agent`, the file it resolves to.
 */
import type { Hover } from 'vscode-languageserver';
import { MarkupKind } from 'vscode-languageserver-types';
import { type Graph, type GraphNode, type JsonNode, nodeAtOffset, pathOfNode, type Problem, type ProblemCode, splitAgentSpec } from '10xgraph/rules';
import type { Positions } from '../positions';
import type { AgentModule } from '../agentModules';
import type { StatusParams } from '../../../common/protocol';
import { type FieldDoc, fieldMarkdown, PARAMETERS_KEYWORDS, SCHEMA_KEYWORDS, settingDocAt, TOOL_FIELDS, toolListMarkdown } from './fieldDocs';
import { type JsonPath, nodeAtPath, schemaPlaceOf, toolIndexOf } from '../jsonPaths';
import { rangeOf } from '../diagnostics';
import { describeAge } from './age';

/** Everything hover looks at. */
export interface HoverInput {
  offset: number;
  lines: Positions;
  tree: JsonNode | undefined;
  /** The rule set's problems in the document: hover words its verdicts, it never judges itself. */
  problems: readonly Problem[];
  graph: Graph | undefined;
  /** The live graph's status, when the document is checked against one. */
  status: StatusParams | undefined;
  agentModules: readonly AgentModule[];
  now: number;
  /** Set when `graph` was read from the agent module's source (no live graph): its file name. */
  sourceFile?: string;
}

function fieldDocOf(path: JsonPath): { name: string; doc: FieldDoc } | undefined {
  const key = path[path.length - 1];
  if (typeof key !== 'string') return undefined;
  if (toolIndexOf(path) !== undefined && path.length === 3) return Object.hasOwn(TOOL_FIELDS, key) ? { name: key, doc: TOOL_FIELDS[key] } : undefined;
  const place = schemaPlaceOf(path.slice(0, -1));
  if (place?.place === 'schema') {
    const table = place.depth === 0 ? PARAMETERS_KEYWORDS : SCHEMA_KEYWORDS;
    return Object.hasOwn(table, key) ? { name: key, doc: table[key] } : undefined;
  }
  // Every other key the file may hold, at any depth, is a setting of the rule set's table.
  return settingDocAt(path);
}

function graphSource(input: HoverInput): string {
  const graph = input.graph!;
  if (input.sourceFile !== undefined) return `the graph read from ${input.sourceFile} (its source, not run; no server graph is in use)`;
  const when = graph.fetchedAt !== undefined ? `fetched ${describeAge(graph.fetchedAt, input.now)} ago` : 'fetched earlier';
  const url = input.status?.url ? ` at ${input.status.url}` : '';
  return graph.stale ? `the cached graph of the server${url} (${when}; the server is offline now)` : `the live graph of the server${url} (${when})`;
}

function notKnown(input: HoverInput): string {
  return input.status?.error ? `The live graph is not known: ${input.status.error}.` : 'The live graph is not known: node names are not checked.';
}

const KIND_NAMES: Record<GraphNode['kind'], string> = {
  tool_node: 'a ToolNode',
  model_node: 'a model node',
  function_node: 'a function node',
  unknown: 'a node of unknown type',
};

function nodeMarkdown(name: string, input: HoverInput): string {
  if (!input.graph) return notKnown(input);
  const graph = input.graph;
  const node = graph.nodes.find((n) => n.name === name);
  if (!node) {
    const names = graph.nodes.map((n) => `\`${n.name}\``).join(', ');
    return `No node \`${name}\` in ${graphSource(input)}. Its nodes: ${names || 'none'}.`;
  }
  const parts = [`\`${name}\` is ${KIND_NAMES[node.kind]} in ${graphSource(input)}.`];
  const edges = graph.edges ?? [];
  const incoming = edges.filter((e) => e.target === name).map((e) => `\`${e.source}\``);
  const outgoing = edges.filter((e) => e.source === name).map((e) => `\`${e.target}\``);
  if (incoming.length || outgoing.length) {
    parts.push(`Edges: from ${incoming.join(', ') || 'none'}; to ${outgoing.join(', ') || 'none'}.`);
  }
  if (graph.toolsKnown && node.tools) {
    if (node.tools.length === 0) parts.push('It carries no tools.');
    else parts.push(`Tools attached:\n\n${toolListMarkdown(node.tools)}`);
  }
  return parts.join('\n\n');
}

/** The codes of the problems the rule set reports on exactly `node`. */
function codesAt(problems: readonly Problem[], node: JsonNode | undefined): Set<ProblemCode> {
  const codes = new Set<ProblemCode>();
  if (node) for (const p of problems) if (p.offset === node.offset && p.length === node.length) codes.add(p.code);
  return codes;
}

/**
 * The attachment of the tool whose `name` value is `nameNode`. Verdicts are the rule set's
 * problems on that `name` and its `node`; where the rules found nothing, hover says what the
 * graph lists without judging it.
 */
function nameMarkdown(nameNode: JsonNode, toolPath: JsonPath, input: HoverInput): string {
  if (!input.graph) return notKnown(input);
  // A repeated `name` key: the rules judge only the last one.
  if (nodeAtPath(input.tree, [...toolPath, 'name']) !== nameNode) return '';
  const name = nameNode.value as string;
  const nodeValue = nodeAtPath(input.tree, [...toolPath, 'node']);
  const nodeName = nodeValue?.value;
  if (typeof nodeName !== 'string') return '';
  const onNode = codesAt(input.problems, nodeValue);
  const onName = codesAt(input.problems, nameNode);
  const node = input.graph.nodes.find((n) => n.name === nodeName);
  if (onNode.has('node-not-found')) return `\`${nodeName}\` is not a node of ${graphSource(input)}.`;
  if (onNode.has('node-not-tool-node'))
    return `\`${nodeName}\` is ${node ? KIND_NAMES[node.kind] : 'a node'}, not a ToolNode, in ${graphSource(input)}: remote tools attach to a ToolNode.`;
  if (onName.has('name-conflicts-with-server-tool')) return `\`${nodeName}\` already carries a server tool \`${name}\` in ${graphSource(input)}.`;
  if (onName.has('tool-not-attached'))
    return `\`${name}\` is not attached to \`${nodeName}\` in ${graphSource(input)}: the server was started with another config; restart it to attach this tool.`;
  // A blank `node` or `name` is judged by `blank-field` alone; a node missing from the graph, in the `node` hover.
  if (!node || onName.has('blank-field')) return '';
  if (!input.graph.toolsKnown) return `The tools of ${graphSource(input)} are not known.`;
  const tool = node.tools?.find((t) => t.name === name);
  if (tool?.source === 'remote') return `\`${name}\` is attached to \`${nodeName}\` as a remote tool in ${graphSource(input)}.`;
  if (tool) return `\`${nodeName}\` carries a server tool \`${name}\` in ${graphSource(input)}.`;
  if (node.kind !== 'tool_node') return `\`${nodeName}\` is ${KIND_NAMES[node.kind]} in ${graphSource(input)}; whether it carries \`${name}\` is not checked.`;
  const listed = `${capitalized(graphSource(input))} does not list \`${name}\` on \`${nodeName}\``;
  // `tool-not-attached` is judged only against a fresh live graph (and only once the file parses).
  return input.graph.stale || input.graph.origin !== 'live' ? `${listed}; whether it is attached is checked only while the server is reachable.` : `${listed}.`;
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function agentMarkdown(spec: string, input: HoverInput): string {
  const parts = splitAgentSpec(spec);
  if (!parts) return '';
  const found = input.agentModules.find((m) => m.module === parts.module);
  if (!found) return `No \`${parts.module}.ts\`, \`.mts\`, \`.js\` or \`.mjs\` beside this file (modules in other folders are not looked for here).`;
  const has = found.exports.includes(parts.exportName);
  return `\`${parts.module}\` is \`${found.file}\`${has ? `, which exports \`${parts.exportName}\`` : `; no export \`${parts.exportName}\` was found in it (it may still be built at run time)`}.`;
}

/** The hover at `input.offset`, or null when there is nothing to say. */
export function hoverAt(input: HoverInput): Hover | null {
  if (!input.tree) return null;
  const node = nodeAtOffset(input.tree, input.offset);
  if (!node) return null;
  const parent = node.parent;
  const isKey = parent?.type === 'property' && parent.children?.[0] === node;
  if (isKey) {
    const objectPath = parent.parent ? pathOfNode(parent.parent) : [];
    const path = [...objectPath, node.value as string];
    const field = fieldDocOf(path);
    if (!field) return null;
    return { contents: { kind: MarkupKind.Markdown, value: fieldMarkdown(field.name, field.doc) }, range: rangeOf(input.lines, node.offset, node.length) };
  }
  if (node.type !== 'string' || parent?.type !== 'property') return null;
  const path = pathOfNode(node);
  const tool = toolIndexOf(path);
  let value = '';
  if (tool !== undefined && path.length === 3 && path[2] === 'node') value = nodeMarkdown(node.value as string, input);
  else if (tool !== undefined && path.length === 3 && path[2] === 'name') value = nameMarkdown(node, path.slice(0, 2), input);
  else if (path.length === 1 && path[0] === 'agent') value = agentMarkdown(node.value as string, input);
  if (!value) return null;
  return { contents: { kind: MarkupKind.Markdown, value }, range: rangeOf(input.lines, node.offset, node.length) };
}
