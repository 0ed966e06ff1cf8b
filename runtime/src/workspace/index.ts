/**
 * The agent modules of a user's workspace (`10xgraph/workspace`): the candidates next to a
 * `10xgraph.json` and what each exports, found the same way by audit and the language server;
 * the one reader of JS/TS sources both use; and the check both make before they believe a file
 * their caches read back.
 */
export { agentSpecs, findAgentCandidates, readAgentModules } from './agentCandidates';
export type { AgentModule } from './agentCandidates';
export { AGENT_EXTENSIONS, AGENT_FILE_EXTENSIONS, SOURCE_EXTENSIONS, analyzeSource, isSourcePath } from './sourceAnalysis';
export type { SourceAnalysis, SourceName, SourceNode } from './sourceAnalysis';
export { checkOwnership } from './ownership';
export type { Ownership } from './ownership';
export { dotenvValues, envNamesOf, parseDotenv } from './dotenv';
export type { DotenvBinding } from './dotenv';
export { GitIgnore, MAX_PATTERNS, type IgnoreProblem } from './gitignore';
export { GlobError, MAX_GLOBS, globProblem, matchAny, matchGlob } from './glob';
export { formatBytes, readRegularFile, type FileRead } from './regularFile';
export {
  DEFAULT_INDEX_LIMITS,
  ProjectIndex,
  isPythonPath,
  pythonModuleNotRead,
  type IndexLimits,
  type IndexRoot,
  type IndexedFile,
  type IndexedKind,
  type ProjectIndexOptions,
} from './projectIndex';
export {
  compiledGraphNames,
  MAX_PYTHON_MODULE_BYTES,
  MAX_PYTHON_MODULE_CHARS,
  PYTHON_MODULE_TOO_LARGE,
  pythonGraphOf,
  readPythonGraph,
  readPythonModule,
  unboundRead,
} from './pythonGraph';
export type { PythonGraphRead, PythonModuleRead, PythonNodeSite, PythonUnread } from './pythonGraph';
export { resolveAgentFile } from './agentFile';
export { configFilesOf, MAX_ENV_FILE_BYTES, readEnvFile, type ConfigFilesOptions, type EnvFileRead } from './configFiles';
export { moduleNamesOf, packageEntries, pythonModuleFiles } from './pythonModules';
