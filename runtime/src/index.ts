/**
 * The 10xgraph runtime as a library: the graph library and chat models for agent modules, the
 * API server, and the rule set for `10xgraph.json`.
 */
export * from './graph/index';
export * from './models/index';
export * from './api/index';
export * from './rules/index';
