/**
 * Messages and content blocks of the graph: the wire's own (`10xgraph-client/wire`), so the
 * graph keeps its conversation in exactly the shape the API speaks and the server stores and
 * sends it without translation. Re-exported here as part of the graph library's public API.
 */
export type { Role, TextBlock, ToolCallBlock, RemoteToolCallBlock, ToolResultBlock, Block, Message, OpenAIToolCall, RemoteToolCall as RemoteCall } from '10xgraph-client/wire';
export { newMessageId, newCallId, textMessage, toolResultMessage, completedResult, failedResult, failureReasonOf, isFailedResult, textOf, blocksOf } from '10xgraph-client/wire';
