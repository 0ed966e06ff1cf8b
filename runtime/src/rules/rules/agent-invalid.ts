import { type Rule, Kind, NONE, describeType, shown } from '../context';

/** Splits `module:export` at its last colon; undefined unless both parts are non-blank. */
export function splitAgentSpec(spec: string): { module: string; exportName: string } | undefined {
  const colon = spec.lastIndexOf(':');
  if (colon < 0) return undefined;
  const module = spec.slice(0, colon).trim();
  const exportName = spec.slice(colon + 1).trim();
  return module && exportName ? { module, exportName } : undefined;
}

/** `agent-invalid`: `agent` must be a string `module:export`. */
export const agentInvalid: Rule = {
  code: 'agent-invalid',
  check({ tree, root, report }) {
    const agent = tree.get(root, 'agent');
    if (agent === NONE) return;
    if (tree.kind[agent] !== Kind.String) {
      report({ code: 'agent-invalid', message: `"agent" must be a string "module:export" (e.g. "graph:app"), not ${describeType(tree, agent)}.`, node: agent });
      return;
    }
    const spec = tree.string(agent);
    if (!splitAgentSpec(spec)) {
      report({ code: 'agent-invalid', message: `"agent" must be "module:export" with both parts non-blank (e.g. "graph:app"), not ${JSON.stringify(shown(spec))}.`, node: agent });
    }
  },
};
