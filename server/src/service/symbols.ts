/**
 * Document symbols: `agent`, then each tool under the node that carries it (nodes in the
 * order they first appear), each tool's arguments under it.
 */
import type { DocumentSymbol, SymbolInformation } from 'vscode-languageserver';
import { SymbolKind } from 'vscode-languageserver-types';
import type { JsonNode } from '10xgraph/rules';
import type { Positions } from '../positions';
import { rangeOf } from '../diagnostics';
import { nodeAtPath } from '../jsonPaths';

function rangeOfNode(lines: Positions, node: JsonNode) {
  return rangeOf(lines, node.offset, node.length);
}

/** The symbol tree of a config, or an empty list when it has no recognisable shape. */
export function documentSymbols(tree: JsonNode | undefined, lines: Positions): DocumentSymbol[] {
  if (tree?.type !== 'object') return [];
  const symbols: DocumentSymbol[] = [];
  const agent = nodeAtPath(tree, ['agent']);
  if (agent?.parent) {
    symbols.push({
      name: 'agent',
      detail: typeof agent.value === 'string' ? agent.value : undefined,
      kind: SymbolKind.Module,
      range: rangeOfNode(lines, agent.parent),
      selectionRange: rangeOfNode(lines, agent.parent.children![0]),
    });
  }
  const list = nodeAtPath(tree, ['remote_tools']);
  if (list?.type !== 'array') return symbols;
  const byNode = new Map<string, { tools: DocumentSymbol[]; first: JsonNode; last: JsonNode; nameNode?: JsonNode }>();
  list.children?.forEach((item, index) => {
    if (item.type !== 'object') return;
    const nodeValue = nodeAtPath(item, ['node']);
    const nameValue = nodeAtPath(item, ['name']);
    const nodeName = typeof nodeValue?.value === 'string' && nodeValue.value.trim() !== '' ? nodeValue.value : '(no node)';
    const toolName = typeof nameValue?.value === 'string' && nameValue.value.trim() !== '' ? nameValue.value : `(tool ${index})`;
    const description = nodeAtPath(item, ['description'])?.value;
    const properties = nodeAtPath(item, ['parameters', 'properties']);
    const children: DocumentSymbol[] = [];
    for (const property of properties?.type === 'object' ? (properties.children ?? []) : []) {
      const key = property.children?.[0];
      if (!key || typeof key.value !== 'string') continue;
      const type = property.children?.[1] ? nodeAtPath(property.children[1], ['type'])?.value : undefined;
      children.push({
        name: key.value,
        detail: typeof type === 'string' ? type : undefined,
        kind: SymbolKind.Property,
        range: rangeOfNode(lines, property),
        selectionRange: rangeOfNode(lines, key),
      });
    }
    const symbol: DocumentSymbol = {
      name: toolName,
      detail: typeof description === 'string' ? description.slice(0, 80) : undefined,
      kind: SymbolKind.Function,
      range: rangeOfNode(lines, item),
      selectionRange: rangeOfNode(lines, nameValue ?? item),
      children,
    };
    const group = byNode.get(nodeName);
    if (group) {
      group.tools.push(symbol);
      group.last = item;
    } else {
      byNode.set(nodeName, { tools: [symbol], first: item, last: item, nameNode: nodeValue });
    }
  });
  for (const [name, group] of byNode) {
    const range = rangeOf(lines, group.first.offset, group.last.offset + group.last.length - group.first.offset);
    symbols.push({
      name,
      detail: `ToolNode · ${group.tools.length} remote tool${group.tools.length === 1 ? '' : 's'}`,
      kind: SymbolKind.Class,
      range,
      selectionRange: group.nameNode ? rangeOfNode(lines, group.nameNode) : rangeOfNode(lines, group.first),
      children: group.tools,
    });
  }
  return symbols;
}

/** Flattens a symbol tree for clients without hierarchical symbol support. */
export function flattenSymbols(symbols: readonly DocumentSymbol[], uri: string, container?: string): SymbolInformation[] {
  const out: SymbolInformation[] = [];
  for (const s of symbols) {
    out.push({ name: s.name, kind: s.kind, location: { uri, range: s.range }, containerName: container });
    if (s.children) out.push(...flattenSymbols(s.children, uri, s.name));
  }
  return out;
}
