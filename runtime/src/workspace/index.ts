/**
 * The agent modules of a user's workspace (`10xgraph/workspace`): the candidates next to a
 * `10xgraph.json` and what each exports, found the same way by audit and the language server.
 */
export { agentSpecs, findAgentCandidates, readAgentModules } from './agentCandidates';
export type { AgentModule } from './agentCandidates';
