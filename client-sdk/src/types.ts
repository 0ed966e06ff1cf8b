/**
 * The shapes the 10xgraph API speaks on the wire (docs/spec.md §3 and §4), as the client sees them.
 * Field names stay snake_case, exactly as they travel, so a message read from the server can
 * be sent back unchanged.
 */

export type { Role, TextBlock, ToolCallBlock, RemoteToolCallBlock, ToolResultBlock, Block, Message } from './wire';
import type { Message } from './wire';

/** A remote tool call the thread is waiting on. */
export interface RemoteToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
  /** The ToolNode that carries the tool. */
  node: string;
}

/** The `metadata` of every answer's envelope. */
export interface ResponseMetadata {
  request_id: string;
  timestamp: string;
  message: string;
}

/** The `data` of `POST /v1/graph/invoke`: one run of the graph, up to its end or its remote calls. */
export interface InvokeData {
  thread_id: string;
  status: 'completed' | 'waiting';
  /** The messages this run added. */
  messages: Message[];
  pending_remote_calls: RemoteToolCall[];
}

/** A chunk of `POST /v1/graph/stream` or of `WS /v1/graph/ws` (the latter adds `request_id`). */
export type StreamChunk =
  | { event: 'metadata'; data: { thread_id: string; run_id: string }; request_id?: string }
  | { event: 'message'; data: Message; request_id?: string }
  | { event: 'remote_tool_calls'; data: { thread_id: string; calls: RemoteToolCall[] }; request_id?: string }
  | { event: 'error'; data: { code: string; message: string }; request_id?: string }
  | { event: 'end'; data: { thread_id: string | null; status: 'completed' | 'waiting' | 'error' }; request_id?: string };

/** The `data` of `GET /v1/graph`. */
export interface GraphDescription {
  info: { node_count: number; edge_count: number; version?: string; [key: string]: unknown };
  nodes: Array<{ id: string; name: string; type?: 'tool_node' | 'model_node' | 'function_node' }>;
  edges: Array<{ id: string; source: string; target: string; [key: string]: unknown }>;
}

/** A tool as `GET /v1/graph/tools` lists it. */
export interface GraphToolInfo {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  source: 'local' | 'remote';
}

/** The `data` of `GET /v1/graph/tools`. */
export interface GraphTools {
  node_count: number;
  tool_count: number;
  nodes: Array<{ node_name: string; tool_count: number; tools: GraphToolInfo[] }>;
}
