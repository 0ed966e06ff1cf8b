/**
 * `ToolNode`: the node that answers the model's tool calls. Server tools run here; remote
 * tools (attached from `10xgraph.json`) are handed to the client as `remote_tool_call` blocks
 * and the run stops until the client sends their results.
 */
import type { JsonSchema } from '../models/types';
import { GraphDefinitionError, errorMessageOf } from './errors';
import { completedResult, failedResult, newMessageId, toolResultMessage, type Message, type RemoteCall, type ToolCallBlock, type ToolResultBlock } from './messages';
import type { GraphState, NodeContext, ToolInfo } from './types';

/** Marks ToolNodes, so graphs recognise them whichever copy of the library made them. */
export const TOOL_NODE_MARK = Symbol.for('10xgraph.ToolNode');

/** What a server tool's handler is told. */
export interface ToolContext {
  callId: string;
  node: string;
  threadId?: string;
  signal?: AbortSignal;
}

/** A server tool: a schema for the model and a handler the server runs. */
export interface ServerTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments; default an object with no properties. */
  parameters?: JsonSchema;
  /** Runs the tool. Its return value is the result's `output`; a throw becomes a failed result. */
  handler(args: Record<string, unknown>, context: ToolContext): unknown;
}

/** A remote tool's schema, as `10xgraph.json` declares it. */
export interface RemoteToolDefinition {
  name: string;
  description: string;
  parameters?: unknown;
}

/** What a ToolNode produced in one step. */
export interface ToolNodeOutcome {
  messages: Message[];
  /** Calls handed to the client; when any, the run stops and waits. */
  remoteCalls: RemoteCall[];
}

const DEFAULT_PARAMETERS: JsonSchema = { type: 'object', properties: {}, required: [] };

/** Tells whether a value is a ToolNode (of any copy of the library). */
export function isToolNode(value: unknown): value is ToolNode {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[TOOL_NODE_MARK] === true;
}

/** A node that runs server tools and hands remote tools to the client. */
export class ToolNode {
  readonly kind = 'tool_node' as const;
  readonly [TOOL_NODE_MARK] = true;
  private readonly local = new Map<string, ServerTool>();
  private readonly remote = new Map<string, RemoteToolDefinition>();

  /** Makes a ToolNode carrying `tools` as its server tools. */
  constructor(tools: readonly ServerTool[] = []) {
    for (const tool of tools) {
      if (typeof tool?.name !== 'string' || tool.name.trim() === '') throw new GraphDefinitionError('A server tool of a ToolNode has no name; give each tool a non-blank name.');
      if (typeof tool.handler !== 'function') throw new GraphDefinitionError(`Server tool '${tool.name}' has no handler; give it an async handler(args).`);
      if (this.local.has(tool.name)) throw new GraphDefinitionError(`Server tool '${tool.name}' is given twice to one ToolNode; give each tool a unique name.`);
      this.local.set(tool.name, tool);
    }
  }

  /** Tells whether the node carries a server tool of that name. */
  hasServerTool(name: string): boolean {
    return this.local.has(name);
  }

  /**
   * Adds remote tool schemas (replacing any of the same name). Called through
   * `CompiledGraph.attachRemoteTools`, which checks the node first.
   */
  addRemoteTools(schemas: readonly RemoteToolDefinition[]): void {
    for (const schema of schemas) this.remote.set(schema.name, { name: schema.name, description: schema.description, parameters: schema.parameters });
  }

  /** Lists the node's tools, server tools first, as `nodeName` carries them. */
  toolInfos(nodeName: string): ToolInfo[] {
    const out: ToolInfo[] = [];
    for (const tool of this.local.values()) {
      out.push({ name: tool.name, description: tool.description ?? '', parameters: tool.parameters ?? DEFAULT_PARAMETERS, source: 'local', node: nodeName });
    }
    for (const tool of this.remote.values()) {
      const parameters = isPlainObject(tool.parameters) ? tool.parameters : DEFAULT_PARAMETERS;
      out.push({ name: tool.name, description: tool.description, parameters, source: 'remote', node: nodeName });
    }
    return out;
  }

  /**
   * Answers the unanswered tool calls of the last assistant message that belong to this node:
   * server tools run (concurrently), remote tools become `remote_tool_call` blocks.
   */
  async run(state: GraphState, context: NodeContext): Promise<ToolNodeOutcome> {
    const calls = unansweredCalls(state.messages);
    const remoteCalls: RemoteCall[] = [];
    const results = await Promise.all(
      calls.map(async (call): Promise<ToolResultBlock | undefined> => {
        const owner = context.toolNodeOf(call.name);
        if (owner === undefined) return failed(call.id, `Tool '${call.name}' not found`);
        if (owner !== context.node) return failed(call.id, `Tool '${call.name}' is carried by node '${owner}', not '${context.node}'`);
        if (!isPlainObject(call.args)) return failed(call.id, `Arguments of tool '${call.name}' must be a JSON object`);
        const server = this.local.get(call.name);
        if (!server) {
          remoteCalls.push({ id: call.id, name: call.name, args: call.args, node: context.node });
          return undefined;
        }
        try {
          const output = await server.handler(call.args, { callId: call.id, node: context.node, threadId: context.threadId, signal: context.signal });
          return completedResult(call.id, output);
        } catch (error) {
          return failed(call.id, errorMessageOf(error));
        }
      }),
    );
    const messages: Message[] = [];
    const answered = results.filter((result): result is ToolResultBlock => result !== undefined);
    if (answered.length > 0) messages.push(toolResultMessage(answered));
    if (remoteCalls.length > 0) {
      messages.push({
        message_id: newMessageId(),
        role: 'tool',
        content: remoteCalls.map((call) => ({ type: 'remote_tool_call', id: call.id, name: call.name, args: call.args, tool_type: 'remote' })),
        metadata: { is_remote: true, node_name: context.node },
      });
    }
    return { messages, remoteCalls };
  }
}

function failed(callId: string, error: string): ToolResultBlock {
  return failedResult(callId, error);
}

/** The tool calls of the last assistant message that no later message answers. */
export function unansweredCalls(messages: readonly Message[]): ToolCallBlock[] {
  let index = messages.length - 1;
  while (index >= 0 && messages[index]!.role !== 'assistant') index--;
  if (index < 0) return [];
  const answered = new Set<string>();
  for (const message of messages.slice(index + 1)) {
    for (const block of message.content) if (block.type === 'tool_result') answered.add(block.call_id);
  }
  return messages[index]!.content.filter((block): block is ToolCallBlock => block.type === 'tool_call' && !answered.has(block.id));
}

/** Tells whether a value is a plain JSON object (not null, not an array). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
