import { type Rule, Kind, NONE, shown } from '../context';
import { isImportPath } from '../python';
import { checkAgentSpec } from './agent-invalid';

/**
 * `agent-not-importable`: `agent` names a module `10xgraph api` can load but the Python 10xGraph
 * server cannot import: it takes a dotted module path (`graph.react:app`), split at its one ":",
 * without trimming.
 */
export const agentNotImportable: Rule = {
  code: 'agent-not-importable',
  check({ tree, root, report }) {
    const agent = tree.get(root, 'agent');
    if (agent === NONE || tree.kind[agent] !== Kind.String) return;
    const spec = tree.string(agent);
    if (!checkAgentSpec(spec).ok || isImportPath(spec)) return;
    report({
      code: 'agent-not-importable',
      message: `The Python 10xGraph server imports "agent" as a dotted module path "module.path:attribute" (e.g. "graph.react:app") and cannot load "${shown(spec)}"; 10xgraph api (TypeScript) can.`,
      node: agent,
    });
  },
};
