import { type Rule, shown } from '../context';

/** `tool-not-attached`: the running server lists this tool as a remote tool of its node. */
export const toolNotAttached: Rule = {
  code: 'tool-not-attached',
  check({ tools, graph, graphNodes, report }) {
    // Judged only while the server is reachable: a graph from an earlier fetch may be out of date.
    if (graph?.origin !== 'live' || graph.stale || !graph.toolsKnown || !graphNodes) return;
    for (const tool of tools) {
      const name = tool.valid.name;
      const node = tool.valid.node === undefined ? undefined : graphNodes.get(tool.valid.node);
      if (name === undefined || node?.kind !== 'tool_node') continue;
      if (node.tools?.some((t) => t.name === name)) continue;
      report({
        code: 'tool-not-attached',
        message: `The running server does not list '${shown(name)}' as a remote tool of '${shown(node.name)}': it was started with another config. Restart it to attach this tool.`,
        node: tool.field.name,
      });
    }
  },
};
