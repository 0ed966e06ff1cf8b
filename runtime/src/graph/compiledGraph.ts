/**
 * `CompiledGraph`: a checked graph that runs. A run starts at the entry point (or, for a thread
 * waiting on remote calls, after the ToolNode that stopped it), runs node after node, and ends
 * at `END` or when a ToolNode hands calls to the client. The graph keeps no thread state itself:
 * the caller passes the thread's checkpoint in and stores the one that comes out.
 */
import { nodeNotFoundMessage } from '../rules/rules/node-not-found';
import { nodeNotToolNodeMessage } from '../rules/rules/node-not-tool-node';
import { nameConflictMessage } from '../rules/rules/name-conflicts-with-server-tool';
import type { Graph } from '../rules/types';
import { AttachRemoteToolsError, GraphRunError, errorCodeOf, errorMessageOf } from './errors';
import { newMessageId, type Message, type RemoteCall } from './messages';
import { DEFAULT_RECURSION_LIMIT, isUnassignedMessageId } from '10xgraph-client/wire';
import { isModelNode, type ModelNode } from './modelNode';
import { validateResume } from './resume';
import { isPlainObject, isToolNode, type RemoteToolDefinition, type ToolNode } from './toolNode';
import { END, type Checkpoint, type GraphState, type NodeContext, type NodeFunction, type NodeKindName, type RouteFunction, type StateUpdate, type ToolInfo } from './types';

/** Marks compiled graphs. Loaders recognise a graph by this mark, not by class, because an agent
 * module may load its own copy of the library. */
export const COMPILED_GRAPH_MARK = Symbol.for('10xgraph.CompiledGraph');

/** Marks a route function that goes to the ToolNode of the called tool (see `toolsCondition`). */
export const ROUTES_TO_TOOL_NODES = Symbol.for('10xgraph.routesToToolNodes');

/** What `addNode` takes. */
export type NodeSpec = NodeFunction | ToolNode | ModelNode;

/** Conditional edges from one node. */
export interface Branch {
  route: RouteFunction;
  pathMap?: Record<string, string>;
}

/** The checked wiring `StateGraph.compile` hands over. */
export interface GraphDefinition {
  name: string;
  nodes: Map<string, NodeSpec>;
  next: Map<string, string>;
  branches: Map<string, Branch>;
  entryPoint: string;
}

/** A node as `describe()` reports it. */
export interface NodeDescription {
  name: string;
  kind: NodeKindName;
  /** The node's tools (ToolNodes only). */
  tools?: ToolInfo[];
}

/** An edge as `describe()` reports it. Edges to `END` are left out. */
export interface EdgeDescription {
  source: string;
  target: string;
  conditional: boolean;
}

/** The graph's nodes, edges and tools, for the API and the rule set. */
export interface GraphDescription {
  name: string;
  entryPoint: string;
  nodes: NodeDescription[];
  edges: EdgeDescription[];
}

/** What a run is given: messages to append, and values to set on the state before it starts. */
export interface RunInput {
  messages: Message[];
  values?: Record<string, unknown>;
}

/** How a run goes. */
export interface RunOptions {
  /** The thread's checkpoint from the previous run; none for a new thread. */
  checkpoint?: Checkpoint;
  /** Most node steps this run may take (default 25). */
  recursionLimit?: number;
  threadId?: string;
  signal?: AbortSignal;
  /** Yield `delta` events: the pieces of text a model streams, before its whole message. */
  deltas?: boolean;
}

/** One event of a run, in order: messages (their deltas first), then remote calls or an error, then `end`. */
export type GraphEvent =
  | { type: 'delta'; node: string; message: Message }
  | { type: 'message'; message: Message; node: string }
  | { type: 'remote_tool_calls'; calls: RemoteCall[] }
  | { type: 'error'; code: string; message: string }
  | { type: 'end'; status: 'completed' | 'waiting' | 'error'; checkpoint: Checkpoint };

/** What `invoke` resolves to. */
export interface RunResult {
  status: 'completed' | 'waiting';
  /** The messages this run produced (not the input). */
  messages: Message[];
  pendingRemoteCalls: RemoteCall[];
  /** Pass it as `checkpoint` to the next run on the same thread. */
  checkpoint: Checkpoint;
}

export { DEFAULT_RECURSION_LIMIT };

/** Tells whether a value is a compiled graph (of any copy of the library). */
export function isCompiledGraph(value: unknown): value is CompiledGraph {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[COMPILED_GRAPH_MARK] === true;
}

/** A runnable graph. */
export class CompiledGraph {
  readonly [COMPILED_GRAPH_MARK] = true;
  readonly name: string;
  private readonly definition: GraphDefinition;

  /** Made by `StateGraph.compile()`. */
  constructor(definition: GraphDefinition) {
    this.definition = definition;
    this.name = definition.name;
  }

  /**
   * Attaches remote tool schemas to the ToolNode `nodeName`. Refuses a node that does not exist
   * (`node-not-found`), one that is not a ToolNode (`node-not-tool-node`) and a name its server
   * tools already use (`name-conflicts-with-server-tool`), with the rule set's codes. Returns how
   * many tools were attached.
   */
  attachRemoteTools(schemas: readonly RemoteToolDefinition[], nodeName: string): number {
    // The messages are the rule set's own, so the log and the editor read alike.
    const node = this.definition.nodes.get(nodeName);
    const toolNodes = this.toolNodeNames();
    const label = schemas.length > 0 ? `tool '${schemas[0]!.name}'` : 'the remote tools';
    if (node === undefined) throw new AttachRemoteToolsError('node-not-found', nodeNotFoundMessage(nodeName, label, toolNodes));
    if (!isToolNode(node)) throw new AttachRemoteToolsError('node-not-tool-node', nodeNotToolNodeMessage(nodeName, label, kindOf(node), toolNodes));
    for (const schema of schemas) {
      if (node.hasServerTool(schema.name)) throw new AttachRemoteToolsError('name-conflicts-with-server-tool', nameConflictMessage(nodeName, schema.name));
    }
    node.addRemoteTools(schemas);
    return schemas.length;
  }

  /** Lists every tool of every ToolNode, server tools and remote tools alike. */
  tools(): ToolInfo[] {
    const out: ToolInfo[] = [];
    for (const [name, node] of this.definition.nodes) if (isToolNode(node)) out.push(...node.toolInfos(name));
    return out;
  }

  /** Describes the nodes (with kinds and tools) and edges, for `GET /v1/graph`. */
  describe(): GraphDescription {
    const nodes: NodeDescription[] = [];
    for (const [name, node] of this.definition.nodes) {
      const kind = kindOf(node);
      nodes.push(isToolNode(node) ? { name, kind, tools: node.toolInfos(name) } : { name, kind });
    }
    const edges: EdgeDescription[] = [];
    for (const [source, target] of this.definition.next) if (target !== END) edges.push({ source, target, conditional: false });
    for (const [source, branch] of this.definition.branches) {
      const targets = branch.pathMap
        ? Object.values(branch.pathMap)
        : (branch.route as unknown as Record<symbol, unknown>)[ROUTES_TO_TOOL_NODES] === true
          ? this.toolNodeNames()
          : [];
      for (const target of new Set(targets)) if (target !== END) edges.push({ source, target, conditional: true });
    }
    return { name: this.name, entryPoint: this.definition.entryPoint, nodes, edges };
  }

  /** The graph as the rule set takes it: loaded in-process, tools known. */
  toRuleGraph(): Graph {
    const description = this.describe();
    return {
      origin: 'loaded',
      toolsKnown: true,
      nodes: description.nodes.map((node) => ({
        name: node.name,
        kind: node.kind,
        ...(node.tools ? { tools: node.tools.map(({ name, description: text, parameters, source }) => ({ name, description: text, parameters, source })) } : {}),
      })),
      edges: description.edges.map(({ source, target }) => ({ source, target })),
    };
  }

  /**
   * Runs the graph and yields each message as it is produced, then `remote_tool_calls` when a
   * ToolNode hands calls to the client, or `error`, and always `end` with the checkpoint to keep.
   * Throws a `GraphRunError` before anything runs when the input does not answer the
   * checkpoint's pending calls exactly.
   */
  async *stream(input: RunInput, options: RunOptions = {}): AsyncGenerator<GraphEvent, void, undefined> {
    const checkpoint = options.checkpoint;
    const messages = (input.messages ?? []).map(withMessageId);
    validateResume(checkpoint, messages);
    let state: GraphState = { ...(checkpoint?.state ?? {}), ...(input.values ?? {}), messages: [...(checkpoint?.state.messages ?? []), ...messages] };
    const limit = options.recursionLimit ?? DEFAULT_RECURSION_LIMIT;
    const tools = this.tools();
    const owners = new Map(tools.map((tool) => [tool.name, tool.node]));
    const toolNodes = this.toolNodeNames();
    const contextFor = (node: string): NodeContext => ({ node, tools, toolNodes, toolNodeOf: (name) => owners.get(name), threadId: options.threadId, signal: options.signal });
    let steps = 0;
    let current: string;
    try {
      current =
        checkpoint?.interruptedAt !== undefined && checkpoint.pending.length > 0 ? await this.nextAfter(checkpoint.interruptedAt, state, contextFor) : this.definition.entryPoint;
      while (current !== END) {
        if (options.signal?.aborted) throw new GraphRunError('aborted', 'The run was aborted.');
        if (++steps > limit) {
          throw new GraphRunError(
            'recursion_limit_exceeded',
            `The run took more than ${limit} step${limit === 1 ? '' : 's'} without ending (recursion_limit ${limit}); raise recursion_limit or check the graph's edges for a loop.`,
          );
        }
        const node = this.definition.nodes.get(current)!;
        const context = contextFor(current);
        let update: StateUpdate;
        let remoteCalls: RemoteCall[] = [];
        if (isToolNode(node)) {
          const outcome = await node.run(state, context);
          update = { messages: outcome.messages.map(withMessageId) };
          remoteCalls = outcome.remoteCalls;
        } else if (isModelNode(node)) {
          const turn = options.deltas ? streamTurn(node, state, context) : undefined;
          try {
            if (turn) {
              for await (const delta of turn.deltas) yield { type: 'delta', node: current, message: delta };
            }
            update = { messages: [await (turn ? turn.message : node.run(state, context))] };
          } catch (error) {
            throw new GraphRunError('model_error', `The model of node '${current}' failed: ${errorMessageOf(error)}`);
          }
        } else {
          try {
            update = normaliseUpdate(await node(state, context));
          } catch (error) {
            throw new GraphRunError('node_failed', `Node '${current}' failed: ${errorMessageOf(error)}`);
          }
        }
        state = applyUpdate(state, update);
        for (const message of update.messages ?? []) yield { type: 'message', message, node: current };
        if (remoteCalls.length > 0) {
          yield { type: 'remote_tool_calls', calls: remoteCalls };
          yield { type: 'end', status: 'waiting', checkpoint: { state, interruptedAt: current, pending: remoteCalls } };
          return;
        }
        current = await this.nextAfter(current, state, contextFor);
      }
    } catch (error) {
      yield { type: 'error', code: errorCodeOf(error) ?? 'node_failed', message: errorMessageOf(error) };
      yield { type: 'end', status: 'error', checkpoint: { state, pending: [] } };
      return;
    }
    yield { type: 'end', status: 'completed', checkpoint: { state, pending: [] } };
  }

  /**
   * Runs the graph to its end or to its remote calls. Throws a `GraphRunError` when the run
   * fails; its `checkpoint` property holds the thread as it was left.
   */
  async invoke(input: RunInput, options: RunOptions = {}): Promise<RunResult> {
    const messages: Message[] = [];
    let pending: RemoteCall[] = [];
    let failure: { code: string; message: string } | undefined;
    for await (const event of this.stream(input, options)) {
      if (event.type === 'message') messages.push(event.message);
      else if (event.type === 'remote_tool_calls') pending = event.calls;
      else if (event.type === 'error') failure = event;
      else if (event.type === 'end') {
        if (event.status === 'error' || failure) {
          const error = new GraphRunError(failure?.code ?? 'node_failed', failure?.message ?? 'The run failed.');
          Object.assign(error, { checkpoint: event.checkpoint, messages });
          throw error;
        }
        return { status: event.status, messages, pendingRemoteCalls: pending, checkpoint: event.checkpoint };
      }
    }
    throw new GraphRunError('node_failed', 'The run ended without an end event.');
  }

  private toolNodeNames(): string[] {
    return [...this.definition.nodes].filter(([, node]) => isToolNode(node)).map(([name]) => name);
  }

  private async nextAfter(source: string, state: GraphState, contextFor: (node: string) => NodeContext): Promise<string> {
    const branch = this.definition.branches.get(source);
    if (!branch) return this.definition.next.get(source) ?? END;
    let key: string;
    try {
      key = await branch.route(state, contextFor(source));
    } catch (error) {
      throw new GraphRunError('node_failed', `The route after node '${source}' failed: ${errorMessageOf(error)}`);
    }
    const target = branch.pathMap && Object.prototype.hasOwnProperty.call(branch.pathMap, key) ? branch.pathMap[key]! : key;
    if (target !== END && !this.definition.nodes.has(target)) {
      throw new GraphRunError('invalid_edge_target', `The route after node '${source}' chose '${String(key)}', which is not a node of the graph.`);
    }
    return target;
  }
}

/** Says what kind a node is, in the API's words. */
export function kindOf(node: NodeSpec): NodeKindName {
  if (isToolNode(node)) return 'tool_node';
  if (isModelNode(node)) return 'model_node';
  return 'function_node';
}

function normaliseUpdate(result: StateUpdate | Message[] | void): StateUpdate {
  if (result === undefined || result === null) return {};
  if (Array.isArray(result)) return { messages: result };
  if (!isPlainObject(result)) throw new TypeError('a node must return messages, a state update object, or nothing');
  if (result.messages !== undefined && !Array.isArray(result.messages)) throw new TypeError('the messages of a state update must be a list');
  // Function nodes may build messages by hand; every stored message needs an id all the same.
  if (result.messages === undefined) return result;
  return { ...result, messages: result.messages.map(withMessageId) };
}

function applyUpdate(state: GraphState, update: StateUpdate): GraphState {
  const { messages, ...values } = update;
  return { ...state, ...values, messages: messages && messages.length > 0 ? [...state.messages, ...messages] : state.messages };
}

/**
 * Runs a model node's turn with its deltas as an async iteration that ends when the turn does:
 * a delta arrives while the generator waits, so it is passed on at once, not after the turn.
 */
function streamTurn(node: ModelNode, state: GraphState, context: NodeContext): { deltas: AsyncIterable<Message>; message: Promise<Message> } {
  const queue: Message[] = [];
  let wake: (() => void) | undefined;
  let finished = false;
  const message = node.run(state, {
    ...context,
    onDelta: (delta) => {
      queue.push(delta);
      wake?.();
    },
  });
  message.then(
    () => ((finished = true), wake?.()),
    () => ((finished = true), wake?.()),
  );
  async function* deltas(): AsyncGenerator<Message> {
    for (;;) {
      while (queue.length > 0) yield queue.shift()!;
      if (finished) return;
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
  }
  return { deltas: deltas(), message };
}

/** The message with a fresh id when it has none. */
function withMessageId(message: Message): Message {
  const named = typeof message.message_id === 'string' && !isUnassignedMessageId(message.message_id);
  if (named && typeof message.timestamp === 'number') return message;
  return { ...message, message_id: named ? message.message_id : newMessageId(), timestamp: typeof message.timestamp === 'number' ? message.timestamp : Date.now() / 1000 };
}
