/**
 * `10xgraph/api`: the API server of `10xgraph api`, usable as a library, with the agent loader and
 * the thread stores. Threads in SQLite need the optional peer better-sqlite3, in PostgreSQL pg, and
 * a TypeScript agent module esbuild (runtime/src/peers.ts).
 */
export { createApiServer, DEFAULT_MAX_BODY_BYTES } from './server';
export type { ApiServer, ApiServerOptions, ApiLogger, RouteSummary, ServableGraph } from './server';
export type { StreamChunk } from '10xgraph-client/wire';
export { createLogger } from './log';
export type { LogFields, LogFormat, LogLevel, LoggerOptions } from './log';
export { DEFAULT_SOCKET_LIMITS } from './sockets';
export type { SocketLimits } from './sockets';
export { startApiServer, prepareAgent, ApiStartupError } from './start';
export type { StartApiOptions, RunningApiServer, PreparedAgent } from './start';
export { loadAgentGraph, resolveAgentModule, parseAgentSpec, AgentLoadError, AGENT_EXTENSIONS } from '../agent/loadAgent';
export type { AgentLoadErrorCode } from '../agent/loadAgent';
export {
  openThreadStore,
  parseStoreTarget,
  SqliteThreadStore,
  PostgresThreadStore,
  StoreUnavailableError,
  StoreOpenError,
  LockLostError,
  DEFAULT_LEASE_MS,
  SCHEMA_VERSION,
} from './store/index';
export type { ThreadStore, ThreadRecord, ThreadStatus, ThreadPage, RunCommit, DeleteOutcome, StoreTarget, OpenStoreOptions } from './store/index';
export { CANCELLED_RESULT, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './threadRoutes';
export { ApiError, statusForRunError } from './errors';
export { parseRunRequest } from './validate';
export type { RunRequest } from './validate';
export { MissingPeerError } from '../peers';
export type { Peer } from '../peers';
