/**
 * The API server of `10xgraph api`, usable as a library.
 */
export { createApiServer, DEFAULT_MAX_BODY_BYTES } from './server';
export type { ApiServer, ApiServerOptions, ApiLogger, ServableGraph, RunChunk } from './server';
export { createLogger } from './log';
export type { LogFields, LogFormat, LogLevel, LoggerOptions } from './log';
export { DEFAULT_SOCKET_LIMITS } from './sockets';
export type { SocketLimits } from './sockets';
export { startApiServer, prepareAgent, ApiStartupError } from './start';
export type { StartApiOptions, RunningApiServer, PreparedAgent } from './start';
export { loadAgentGraph, resolveAgentModule, parseAgentSpec, AgentLoadError, AGENT_EXTENSIONS } from './loadAgent';
export type { AgentLoadErrorCode } from './loadAgent';
export { ThreadStore } from './store';
export type { ThreadRecord, ThreadStatus } from './store';
export { ApiError, statusForRunError } from './errors';
export { parseRunRequest } from './validate';
export type { RunRequest } from './validate';
