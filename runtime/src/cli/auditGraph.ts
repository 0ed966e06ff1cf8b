import type { GraphSource } from './audit';

/**
 * The graph for an audit without `--graph-url` or `--no-graph`: loaded from the agent
 * module, as `10xgraph api` does at start-up.
 */
export async function loadGraphForAudit(_configPath: string, _text: string): Promise<GraphSource> {
  return { mode: 'skipped', note: 'skipped: node names not checked (pass --graph-url URL to check them against a running server)' };
}
