/**
 * The shapes a graph runs on: its state, what nodes return, and what they are told.
 */
import type { Message, RemoteCall } from './messages';
import type { JsonSchema } from '../models/types';

/** The name a conditional edge returns to end the run. */
export const END = '__end__';
/** The name an edge starts from to say where the run begins (the same as `setEntryPoint`). */
export const START = '__start__';

/**
 * The state of a thread: its conversation, and any other values nodes keep. Other values are
 * replaced by updates; `messages` is appended to.
 */
export interface GraphState {
  messages: Message[];
  [key: string]: unknown;
}

/** What a node returns: messages to append and values to replace. */
export interface StateUpdate {
  messages?: Message[];
  [key: string]: unknown;
}

/** A tool as a ToolNode carries it, with where its handler runs. */
export interface ToolInfo {
  name: string;
  description: string;
  parameters: JsonSchema;
  /** `local`: a server tool the ToolNode runs; `remote`: the client runs it. */
  source: 'local' | 'remote';
  /** The ToolNode carrying it. */
  node: string;
}

/** What a node is told when it runs. */
export interface NodeContext {
  /** The name of the running node. */
  node: string;
  /** Every tool of every ToolNode of the graph, server and remote alike. */
  tools: readonly ToolInfo[];
  /** The names of the graph's ToolNodes. */
  toolNodes: readonly string[];
  /** The ToolNode that carries a tool, or undefined. */
  toolNodeOf(toolName: string): string | undefined;
  /** The thread the run belongs to, when the caller said. */
  threadId?: string;
  signal?: AbortSignal;
  /** Takes the pieces of a message still being written (`delta: true`), when the caller streams them. */
  onDelta?: (message: Message) => void;
}

/** A plain function node. Returning messages alone is short for `{messages}`. */
export type NodeFunction = (state: GraphState, context: NodeContext) => StateUpdate | Message[] | void | Promise<StateUpdate | Message[] | void>;

/** Picks the next node after `source`: a node name, `END`, or a key of the edge's path map. */
export type RouteFunction = (state: GraphState, context: NodeContext) => string | Promise<string>;

/** A saved thread: where a run stopped, so the next request can resume it. */
export interface Checkpoint {
  state: GraphState;
  /** The ToolNode that stopped the run to wait for remote results. */
  interruptedAt?: string;
  /** The remote calls still waiting for a result. */
  pending: RemoteCall[];
}

/** The node kinds the API reports. */
export type NodeKindName = 'tool_node' | 'model_node' | 'function_node';
