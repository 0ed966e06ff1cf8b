/**
 * `10xgraph`: the graph library agent modules import (`StateGraph`, `ToolNode`, model nodes,
 * messages) and the chat models. It loads no other package: the API server, the thread stores and
 * the agent loader are `10xgraph/api`, the rule set for `10xgraph.json` is `10xgraph/rules`.
 */
export * from './graph/index';
export * from './models/index';
