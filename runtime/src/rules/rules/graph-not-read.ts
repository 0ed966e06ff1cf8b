import type { ConfigProjectRule } from '../project';

/**
 * `graph-not-read`: without a server graph, node names are judged on the graph read from the
 * agent module's source; when that source cannot be read exactly (it does not parse, or adds a
 * node under a computed name), `agent` says so, since no node name is checked.
 */
export const graphNotRead: ConfigProjectRule = {
  code: 'graph-not-read',
  on: 'config',
  check({ config, agent }, report) {
    // A module that binds no such name is `agent-not-found`, not an unread graph.
    if (!config.agent || !agent?.tell || !agent.reason || agent.missing) return;
    report({ code: 'graph-not-read', message: agent.reason, offset: config.agent.offset, length: config.agent.length });
  },
};
