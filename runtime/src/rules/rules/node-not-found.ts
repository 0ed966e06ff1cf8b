import type { Rule } from '../context';
import { listToolNodes, toolNodes, shown } from '../context';
import { graphNoteOf } from '../project';
import { byCloseness } from '../similarity';

/** At most this many replacement names are offered: a huge graph must not flood the editor. */
export const MAX_NODE_FIXES = 20;
import type { Fix } from '../types';

/** The message of `node-not-found`, also thrown by `CompiledGraph.attachRemoteTools`. */
export function nodeNotFoundMessage(node: string, label: string, toolNodeNames: readonly string[]): string {
  return `The graph has no node named '${shown(node)}' (node of ${label}).${listToolNodes(toolNodeNames, true)}`;
}

/** `node-not-found`: `node` names a node of the graph. */
export const nodeNotFound: Rule = {
  code: 'node-not-found',
  check({ tree, tools, graph, graphNodes, options, report }) {
    if (!graph || !graphNodes) return;
    const names = toolNodes(graph).map((n) => n.name);
    for (const tool of tools) {
      const node = tool.valid.node;
      if (node === undefined || graphNodes.has(node)) continue;
      const value = tool.field.node;
      const ordered = byCloseness(node, names).slice(0, MAX_NODE_FIXES);
      const fixes: Fix[] = ordered.map((name, i) => ({
        title: `Change to '${name}'`,
        edits: [{ ...tree.span(value), newText: JSON.stringify(name) }],
        isPreferred: i === 0,
      }));
      if (graph.origin === 'live') fixes.push({ title: 'Refetch the graph (the server may have changed)', edits: [], command: 'refetch-graph' });
      report({
        code: 'node-not-found',
        message: nodeNotFoundMessage(node, tool.label, names) + graphNoteOf(options.graphReadFrom),
        node: value,
        fixes,
      });
    }
  },
};
