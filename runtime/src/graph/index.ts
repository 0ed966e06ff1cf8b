/**
 * The graph library: build a graph with `StateGraph`, compile it, attach remote tools, run it.
 */
export * from './messages';
export * from './types';
export * from './errors';
export { ToolNode, isToolNode, TOOL_NODE_MARK, unansweredCalls } from './toolNode';
export type { ServerTool, ToolContext, RemoteToolDefinition, ToolNodeOutcome } from './toolNode';
export { ModelNode, isModelNode, MODEL_NODE_MARK } from './modelNode';
export { StateGraph, isStateGraph, STATE_GRAPH_MARK } from './stateGraph';
export { CompiledGraph, isCompiledGraph, kindOf, COMPILED_GRAPH_MARK, DEFAULT_RECURSION_LIMIT } from './compiledGraph';
export type { GraphDescription, NodeDescription, EdgeDescription, GraphEvent, RunInput, RunOptions, RunResult, NodeSpec } from './compiledGraph';
export { validateResume } from './resume';
export { toolsCondition } from './routes';
