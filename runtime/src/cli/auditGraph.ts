import { analyzeConfig } from '../rules/index';
import { agentOf } from '../workspace/configFile';
import { loadAgentGraph } from '../api/loadAgent';
import { errorMessageOf } from '../graph/errors';
import type { GraphSource } from './audit';

/**
 * The graph for an audit without `--graph-url` or `--no-graph`: loaded from the agent module,
 * as `10xgraph api` does at start-up. When the module cannot load, a config that has errors
 * of its own is still reported (without the graph rules), as start-up reports it; a config
 * with none cannot be judged, and the reason is returned as `error` (exit 2, as `api` exits).
 */
export async function loadGraphForAudit(configPath: string, text: string): Promise<GraphSource | { error: string }> {
  const analysis = analyzeConfig(text);
  const agent = agentOf(analysis);
  if (agent === undefined) {
    return { mode: 'skipped', note: '(no agent module to load): node names not checked' };
  }
  try {
    const graph = await loadAgentGraph(configPath, agent);
    return { mode: 'loaded', graph: graph.toRuleGraph(), note: `from the agent module '${agent}'` };
  } catch (error) {
    const reason = errorMessageOf(error);
    if (analysis.problems.some((p) => p.severity === 'error')) return { mode: 'skipped', note: `(the agent module did not load: ${reason}): node names not checked` };
    return { error: reason };
  }
}
