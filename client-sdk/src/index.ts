/**
 * `10xgraph-client` (also `10xgraph/client`): the TypeScript client of a 10xgraph server. Browser-compatible (fetch,
 * WebSocket and AbortController only, no Node built-ins); in Node 20, pass `ws`'s WebSocket.
 */
export { TenxGraphClient, DEFAULT_BASE_URL } from './client';
export { DEFAULT_RECURSION_LIMIT, MAX_THREAD_ID_LENGTH, isThreadId, completedResult, failedResult, failureReasonOf, isFailedResult, pendingRemoteCalls } from './wire';
export { WS_BEARER_PROTOCOL, WS_LEGACY_BEARER_PROTOCOL } from './wire';
export type { TenxGraphClientOptions, RunOptions, StreamOptions, InvokeResult, FetchLike, PageOptions, ToolRegistration } from './client';
export { ToolExecutor, describeThrown, toJsonValue } from './toolExecutor';
export type { AnyToolArgs, ToolHandler, ToolHandlerOptions, ToolCallContext, ToolExecutorOptions, ExecuteContext } from './toolExecutor';
export { TenxGraphError, CLIENT_ERROR_CODES } from './errors';
export { Message } from './message';
export type { WebSocketLike, WebSocketConstructor } from './wsConnection';
export type {
  Role,
  Block,
  TextBlock,
  ToolCallBlock,
  RemoteToolCallBlock,
  ToolResultBlock,
  RemoteToolCall,
  ResponseMetadata,
  InvokeData,
  StreamChunk,
  GraphDescription,
  GraphTools,
  GraphToolInfo,
  StreamEvent,
  ResponseGranularity,
  RunMeta,
  AgentState,
  ExecutionMeta,
  ErrorDetail,
  OpenAIToolCall,
  StopData,
  FixData,
  ThreadInfo,
  ThreadsData,
  ThreadDetailsData,
  ThreadStateData,
  ThreadMessagesData,
  ActionData,
  WsRunFrame,
} from './wire';
