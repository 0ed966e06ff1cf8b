import { type Rule, shown } from '../context';

/** The message of `name-conflicts-with-server-tool`, also thrown by `CompiledGraph.attachRemoteTools`. */
export function nameConflictMessage(node: string, name: string): string {
  return `Node '${shown(node)}' already has a server tool named '${shown(name)}': the model could not tell them apart. Rename the remote tool.`;
}

/** `name-conflicts-with-server-tool`: a remote tool does not shadow a server tool of its node. */
export const nameConflictsWithServerTool: Rule = {
  code: 'name-conflicts-with-server-tool',
  check({ tools, graph, graphNodes, report }) {
    if (!graph?.toolsKnown || !graphNodes) return;
    for (const tool of tools) {
      const name = tool.valid.name;
      const node = tool.valid.node === undefined ? undefined : graphNodes.get(tool.valid.node);
      if (name === undefined || node?.kind !== 'tool_node') continue;
      if (!node.tools?.some((t) => t.source === 'local' && t.name === name)) continue;
      report({
        code: 'name-conflicts-with-server-tool',
        message: nameConflictMessage(node.name, name),
        node: tool.field.name,
      });
    }
  },
};
