import { analyzeConfig, type Graph } from '../rules/index';
import { loadConfigAgent } from '../agent/loadAgent';

/** How the graph was known for one audit. */
export interface GraphSource {
  mode: 'loaded' | 'url' | 'skipped';
  graph?: Graph;
  /** Why the graph rules were skipped, or where the graph came from. */
  note: string;
}

/**
 * The graph for an audit without `--graph-url` or `--no-graph`: loaded from the agent module,
 * as `10xgraph api` does at start-up. When the module cannot load, a config that has errors
 * of its own is still reported (without the graph rules), as start-up reports it; a config
 * with none cannot be judged, and the reason is returned as `error` (exit 2, as `api` exits).
 */
export async function loadGraphForAudit(configPath: string, text: string): Promise<GraphSource | { error: string }> {
  const loaded = await loadConfigAgent(configPath, text);
  if (loaded.ok) return { mode: 'loaded', graph: loaded.graph.toRuleGraph(), note: `from the agent module '${loaded.agent}'` };
  if (loaded.error === undefined) return { mode: 'skipped', note: '(no agent module to load): node names not checked' };
  if (analyzeConfig(text).problems.some((p) => p.severity === 'error'))
    return { mode: 'skipped', note: `(the agent module did not load: ${loaded.error}): node names not checked` };
  return { error: loaded.error };
}
