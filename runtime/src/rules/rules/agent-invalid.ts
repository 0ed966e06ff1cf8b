import type { Rule } from '../context';
import { valueOf } from '../context';

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
  check({ root, report }) {
    const agent = valueOf(root, 'agent');
    if (!agent || root.type !== 'object') return;
    if (agent.type !== 'string') {
      report({ code: 'agent-invalid', message: `"agent" must be a string "module:export" (e.g. "graph:app"), not ${agent.type === 'null' ? 'null' : `a${agent.type === 'array' || agent.type === 'object' ? 'n' : ''} ${agent.type}`}.`, node: agent });
      return;
    }
    if (!splitAgentSpec(agent.value as string)) {
      report({
        code: 'agent-invalid',
        message: `"agent" must be "module:export" with both parts non-blank (e.g. "graph:app"), not ${JSON.stringify(agent.value)}.`,
        node: agent,
      });
    }
  },
};
