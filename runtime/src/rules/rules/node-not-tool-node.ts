import type { Rule } from '../context';
import { listToolNodes, toolNodes, shown } from '../context';
import { graphNoteOf } from '../project';
import { byCloseness } from '../similarity';
import { MAX_NODE_FIXES } from './node-not-found';

const KIND: Record<string, string> = { model_node: 'a model node', function_node: 'a function node' };

/** The message of `node-not-tool-node`, also thrown by `CompiledGraph.attachRemoteTools`. */
export function nodeNotToolNodeMessage(node: string, label: string, kind: string, toolNodeNames: readonly string[]): string {
  return `'${shown(node)}' (node of ${label}) is ${KIND[kind] ?? 'not a ToolNode'}, not a ToolNode: remote tools attach to a ToolNode.${listToolNodes(toolNodeNames, false)}`;
}

/** `node-not-tool-node`: `node` names a ToolNode, the only kind that carries tools. */
export const nodeNotToolNode: Rule = {
  code: 'node-not-tool-node',
  check({ tree, tools, graph, graphNodes, options, report }) {
    if (!graph || !graphNodes) return;
    const names = toolNodes(graph).map((n) => n.name);
    for (const tool of tools) {
      const name = tool.valid.node;
      const found = name === undefined ? undefined : graphNodes.get(name);
      if (!found || found.kind === 'tool_node' || found.kind === 'unknown') continue;
      const value = tool.field.node;
      report({
        code: 'node-not-tool-node',
        message: nodeNotToolNodeMessage(name!, tool.label, found.kind, names) + graphNoteOf(options.graphReadFrom),
        node: value,
        fixes: byCloseness(name!, names)
          .slice(0, MAX_NODE_FIXES)
          .map((n, i) => ({
            title: `Change to '${n}'`,
            edits: [{ ...tree.span(value), newText: JSON.stringify(n) }],
            isPreferred: i === 0,
          })),
      });
    }
  },
};
