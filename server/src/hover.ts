/**
 * Hover: what a field means (SPEC §1, with links to its rules); on a `node` value, what the
 * live graph says of that node; on a `name`, whether the live server has the tool attached;
 * on `agent`, the file it resolves to.
 */
import { type Hover, MarkupKind } from 'vscode-languageserver';
import type { Graph, GraphNode } from '../../runtime/src/rules/types';
import { type JsonNode, nodeAtOffset, pathOfNode } from '../../runtime/src/rules/index';
import type { Positions } from './positions';
import type { AgentModule } from './agentModules';
import type { StatusParams } from './protocol';
import { type FieldDoc, PARAMETERS_KEYWORDS, ROOT_FIELDS, SCHEMA_KEYWORDS, TOOL_FIELDS } from './fieldDocs';
import { type JsonPath, nodeAtPath, schemaPlaceOf, toolIndexOf } from './jsonPaths';
import { rangeOf, ruleDocsHref } from './diagnostics';
import { describeAge } from './liveGraph';

/** Everything hover looks at. */
export interface HoverInput {
  offset: number;
  lines: Positions;
  tree: JsonNode | undefined;
  graph: Graph | undefined;
  /** The live graph's status, when the document is checked against one. */
  status: StatusParams | undefined;
  agentModules: readonly AgentModule[];
  now: number;
}

function fieldDocOf(path: JsonPath): { name: string; doc: FieldDoc } | undefined {
  const key = path[path.length - 1];
  if (typeof key !== 'string') return undefined;
  if (path.length === 1) return ROOT_FIELDS[key] ? { name: key, doc: ROOT_FIELDS[key] } : undefined;
  if (toolIndexOf(path) !== undefined && path.length === 3) return TOOL_FIELDS[key] ? { name: key, doc: TOOL_FIELDS[key] } : undefined;
  const place = schemaPlaceOf(path.slice(0, -1));
  if (place?.place === 'schema') {
    const table = place.depth === 0 ? PARAMETERS_KEYWORDS : SCHEMA_KEYWORDS;
    return table[key] ? { name: key, doc: table[key] } : undefined;
  }
  return undefined;
}

function fieldMarkdown(name: string, doc: FieldDoc): string {
  const rules = doc.rules.length ? `\n\nRules: ${doc.rules.map((c) => `[\`${c}\`](${ruleDocsHref(c)})`).join(', ')}` : '';
  return `**${name}** — ${doc.summary}\n\n${doc.body}${rules}`;
}

function graphSource(input: HoverInput): string {
  const graph = input.graph!;
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
    else
      parts.push(
        `Tools attached:\n\n${node.tools
          .map((t) => `- \`${t.name}\` (${t.source === 'local' ? 'server tool' : 'remote tool'})${t.description ? `: ${t.description}` : ''}`)
          .join('\n')}`,
      );
  }
  return parts.join('\n\n');
}

function nameMarkdown(name: string, toolPath: JsonPath, input: HoverInput): string {
  if (!input.graph) return notKnown(input);
  if (!input.graph.toolsKnown) return `The tools of ${graphSource(input)} are not known.`;
  const nodeName = nodeAtPath(input.tree, [...toolPath, 'node'])?.value;
  if (typeof nodeName !== 'string') return '';
  const node = input.graph.nodes.find((n) => n.name === nodeName);
  if (!node) return `\`${nodeName}\` is not a node of ${graphSource(input)}.`;
  const tool = node.tools?.find((t) => t.name === name);
  if (!tool) return `\`${name}\` is not attached to \`${nodeName}\` in ${graphSource(input)}: the server was started with another config; restart it to attach this tool.`;
  if (tool.source === 'local') return `\`${nodeName}\` already carries a server tool \`${name}\` in ${graphSource(input)}.`;
  return `\`${name}\` is attached to \`${nodeName}\` as a remote tool in ${graphSource(input)}.`;
}

function agentMarkdown(spec: string, input: HoverInput): string {
  const colon = spec.lastIndexOf(':');
  if (colon <= 0) return '';
  const module = spec.slice(0, colon);
  const exported = spec.slice(colon + 1);
  const found = input.agentModules.find((m) => m.module === module);
  if (!found) return `No \`${module}.ts\`, \`.mts\`, \`.js\` or \`.mjs\` beside this file (modules in other folders are not looked for here).`;
  const has = found.exports.includes(exported);
  return `\`${module}\` is \`${found.file}\`${has ? `, which exports \`${exported}\`` : `; no export \`${exported}\` was found in it (it may still be built at run time)`}.`;
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
  else if (tool !== undefined && path.length === 3 && path[2] === 'name') value = nameMarkdown(node.value as string, path.slice(0, 2), input);
  else if (path.length === 1 && path[0] === 'agent') value = agentMarkdown(node.value as string, input);
  if (!value) return null;
  return { contents: { kind: MarkupKind.Markdown, value }, range: rangeOf(input.lines, node.offset, node.length) };
}
