import { type Rule, Kind, NONE, describeType, shown } from '../context';

/** An `agent` spec split into its parts, or why it cannot name a module to load. */
export type AgentSpecCheck = { ok: true; module: string; exportName: string } | { ok: false; why: 'form' | 'absolute' | 'parent' };

/**
 * Splits `module:export` at its last colon and checks that both parts are non-blank and that
 * the module is a relative path that stays in the config's folder: no absolute path (`/x`,
 * `\\x`, `C:/x`, `C:x`) and no `..` segment, with `/` and `\` both taken as separators so a
 * config means the same on every system. A config travels with its repository, and running
 * it (`10xgraph api`, and `10xgraph audit` by default) runs its module: it may name only code
 * shipped beside it, never some other file of the machine.
 */
export function checkAgentSpec(spec: string): AgentSpecCheck {
  const colon = spec.lastIndexOf(':');
  if (colon < 0) return { ok: false, why: 'form' };
  const module = spec.slice(0, colon).trim();
  const exportName = spec.slice(colon + 1).trim();
  if (!module || !exportName) return { ok: false, why: 'form' };
  if (/^[\\/]/.test(module) || /^[A-Za-z]:/.test(module)) return { ok: false, why: 'absolute' };
  if (module.split(/[\\/]/).includes('..')) return { ok: false, why: 'parent' };
  return { ok: true, module, exportName };
}

/** The parts of a valid `agent` spec (see `checkAgentSpec`); undefined for any other. */
export function splitAgentSpec(spec: string): { module: string; exportName: string } | undefined {
  const check = checkAgentSpec(spec);
  return check.ok ? { module: check.module, exportName: check.exportName } : undefined;
}

/** What is wrong with an `agent` string `spec` that `checkAgentSpec` refuses, and what to do. */
export function agentSpecMessage(spec: string, why: 'form' | 'absolute' | 'parent'): string {
  const quoted = JSON.stringify(shown(spec));
  if (why === 'absolute')
    return `"agent" must name its module by a path relative to the folder of 10xgraph.json, not an absolute path (${quoted}): a config may run only code shipped beside it; move the module there and write e.g. "graph:app".`;
  if (why === 'parent')
    return `"agent" must name a module inside the folder of 10xgraph.json, without ".." (${quoted}): a config may run only code shipped beside it; move the module (or the config) so the module is in the config's folder or below it.`;
  return `"agent" must be "module:export" with both parts non-blank (e.g. "graph:app"), not ${quoted}.`;
}

/** `agent-invalid`: `agent` must be a string `module:export` naming a module inside the config's folder. */
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
    const check = checkAgentSpec(spec);
    if (!check.ok) report({ code: 'agent-invalid', message: agentSpecMessage(spec, check.why), node: agent });
  },
};
