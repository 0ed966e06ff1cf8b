import { type Rule, Kind, NONE } from '../context';
import { checkAgentSpec } from './agent-invalid';

/**
 * `agent-not-found`: `agent` is a valid `module:export`, but the front end that looked for it (`10xgraph audit`
 * loading the agent module) found no such module file beside the config, or no such export in it. The rule set
 * loads nothing: it reports, on the value, the sentence the front end passed in `agentUnresolved`.
 */
export const agentNotFound: Rule = {
  code: 'agent-not-found',
  check({ tree, root, options, report }) {
    if (options.agentUnresolved === undefined) return;
    const agent = tree.get(root, 'agent');
    if (agent === NONE || tree.kind[agent] !== Kind.String || !checkAgentSpec(tree.string(agent)).ok) return;
    report({ code: 'agent-not-found', message: options.agentUnresolved, node: agent });
  },
};
