import type { Rule } from '../context';
import { toolNodes, shown } from '../context';
import { byCloseness } from '../similarity';
import { MAX_NODE_FIXES } from './node-not-found';

const KIND: Record<string, string> = { model_node: 'a model node', function_node: 'a function node' };

/** `node-not-tool-node`: `node` names a ToolNode, the only kind that carries tools. */
export const nodeNotToolNode: Rule = {
  code: 'node-not-tool-node',
  check({ tree, tools, graph, graphNodes, report }) {
    if (!graph || !graphNodes) return;
    const names = toolNodes(graph).map((n) => n.name);
    for (const tool of tools) {
      const name = tool.valid.node;
      const found = name === undefined ? undefined : graphNodes.get(name);
      if (!found || found.kind === 'tool_node' || found.kind === 'unknown') continue;
      const value = tool.field.node;
      report({
        code: 'node-not-tool-node',
        message: `'${shown(name!)}' (node of ${tool.label}) is ${KIND[found.kind] ?? 'not a ToolNode'}, not a ToolNode: remote tools attach to a ToolNode.${names.length ? ` ToolNodes: ${names.slice(0, 10).map((n) => `'${shown(n)}'`).join(', ')}.` : ' The graph has no ToolNode.'}`,
        node: value,
        fixes: byCloseness(name!, names).slice(0, MAX_NODE_FIXES).map((n, i) => ({
          title: `Change to '${n}'`,
          edits: [{ ...tree.span(value), newText: JSON.stringify(n) }],
          isPreferred: i === 0,
        })),
      });
    }
  },
};
