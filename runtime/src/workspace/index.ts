/**
 * The agent modules of a user's workspace (`10xgraph/workspace`): the candidates next to a
 * `10xgraph.json` and what each exports, found the same way by audit and the language server;
 * and the check both make before they believe a file their caches read back.
 */
export { AGENT_EXTENSIONS, agentSpecs, findAgentCandidates, readAgentModules } from './agentCandidates';
export type { AgentModule } from './agentCandidates';
export { checkOwnership } from './ownership';
export type { Ownership } from './ownership';
export { dotenvValues, envNamesOf, parseDotenv } from './dotenv';
export type { DotenvBinding } from './dotenv';
