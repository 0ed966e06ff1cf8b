/**
 * The prebuilt agents of 10xGraph (`tenxgraph.prebuilt.agent`, earlier `agentflow.prebuilt.agent`)
 * as one table: for each class, the nodes its `compile()` adds to the graph it builds (their
 * names, what each is, and what makes an optional one appear or renames it), its edges and its
 * ToolNode. A prebuilt agent builds its graph inside `compile()` from what its constructor was
 * given, so the Python reader knows the nodes of `ReactAgent(...).compile()` from this table and
 * the constructor's arguments, never running anything. The names are the agents' own (README,
 * "Python projects"; docs/rules.md, `graph-not-read`).
 */
import type { NodeKind } from '../rules/types';

/** What makes an optional node appear: any of these constructor arguments given (`present`) or given non-empty (`nonEmpty`, a list). */
export interface PrebuiltCondition {
  nonEmpty?: string[];
  present?: string[];
}

/** One node a prebuilt agent's `compile()` adds. */
export interface PrebuiltNode {
  /** Its name, unless the keyword argument `renamedBy` gives another (a string literal). */
  name: string;
  kind: NodeKind;
  renamedBy?: string;
  /** Present only when this holds of the constructor's arguments. */
  when?: PrebuiltCondition;
}

/**
 * A prebuilt agent class. `nodes` and `edges` as `compile()` adds them (edges between the default
 * names; `__start__` and `__end__` are the graph's own). `members`: the agents whose nodes are the
 * keys of a dict argument (`workers=`, `members=`), each key a node, and `<KEY>_TOOL` a ToolNode
 * beside it when that key's agent owns a ToolNode.
 */
export interface PrebuiltAgent {
  nodes: PrebuiltNode[];
  edges: Array<[string, string]>;
  /** The node that is the agent's ToolNode, when it has one. */
  toolNode?: string;
  members?: { argument: string; toolSuffix: string };
  /** The positional parameters of the constructor, in order (so a positional argument is known by its name). */
  parameters: string[];
}

const START = '__start__';
const END = '__end__';

/** Every prebuilt agent class, by name (10xGraph's `tenxgraph/prebuilt/__init__.py`). */
export const PREBUILT_AGENTS: Readonly<Record<string, PrebuiltAgent>> = {
  ReactAgent: {
    parameters: ['model', 'state', 'context_manager', 'publisher', 'id_generator', 'container'],
    nodes: [
      { name: 'MAIN', kind: 'model_node', renamedBy: 'main_node_name' },
      { name: 'TOOL', kind: 'tool_node', renamedBy: 'tool_node_name', when: { nonEmpty: ['tools'], present: ['client'] } },
    ],
    edges: [
      [START, 'MAIN'],
      ['MAIN', 'TOOL'],
      ['MAIN', END],
      ['TOOL', 'MAIN'],
    ],
    toolNode: 'TOOL',
  },
  RAGAgent: {
    parameters: ['store', 'agent', 'reranker'],
    nodes: [
      { name: 'RETRIEVE', kind: 'function_node' },
      { name: 'SYNTHESIZE', kind: 'unknown' },
      { name: 'RERANK', kind: 'function_node', when: { present: ['reranker'] } },
    ],
    edges: [
      [START, 'RETRIEVE'],
      ['RETRIEVE', 'RERANK'],
      ['RERANK', 'SYNTHESIZE'],
      ['RETRIEVE', 'SYNTHESIZE'],
      ['SYNTHESIZE', END],
    ],
  },
  PlanActReflectAgent: {
    parameters: ['model', 'tools'],
    nodes: [
      { name: 'PLAN', kind: 'model_node' },
      { name: 'ACT', kind: 'tool_node', when: { nonEmpty: ['tools'], present: ['client'] } },
      { name: 'REFLECT', kind: 'function_node' },
      { name: 'INCREMENT_ITERATIONS', kind: 'function_node' },
    ],
    edges: [
      [START, 'PLAN'],
      ['PLAN', 'ACT'],
      ['PLAN', 'REFLECT'],
      ['ACT', 'REFLECT'],
      ['REFLECT', 'INCREMENT_ITERATIONS'],
      ['REFLECT', END],
      ['INCREMENT_ITERATIONS', 'PLAN'],
    ],
    toolNode: 'ACT',
  },
  StructuredOutputAgent: {
    parameters: ['model', 'output_schema', 'tools'],
    nodes: [
      { name: 'GENERATE', kind: 'model_node' },
      { name: 'TOOL', kind: 'tool_node', when: { nonEmpty: ['tools'], present: ['client'] } },
      { name: 'REPAIR', kind: 'unknown' },
    ],
    edges: [
      [START, 'GENERATE'],
      ['GENERATE', 'TOOL'],
      ['GENERATE', 'REPAIR'],
      ['GENERATE', END],
      ['TOOL', 'GENERATE'],
      ['REPAIR', 'GENERATE'],
    ],
    toolNode: 'TOOL',
  },
  SupervisorTeamAgent: {
    parameters: ['supervisor_model', 'workers'],
    nodes: [
      { name: 'SUPERVISOR', kind: 'function_node' },
      { name: 'PRE_SUPERVISOR', kind: 'function_node' },
    ],
    edges: [
      [START, 'SUPERVISOR'],
      ['PRE_SUPERVISOR', 'SUPERVISOR'],
    ],
    members: { argument: 'workers', toolSuffix: '_TOOL' },
  },
  SwarmAgent: {
    parameters: ['members', 'entry'],
    nodes: [],
    edges: [],
    members: { argument: 'members', toolSuffix: '_TOOL' },
  },
  AudioAgent: {
    parameters: ['model', 'state', 'context_manager', 'publisher', 'id_generator', 'container'],
    nodes: [{ name: 'LIVE', kind: 'model_node', renamedBy: 'live_node_name' }],
    edges: [
      [START, 'LIVE'],
      ['LIVE', END],
    ],
  },
};

/**
 * The older prebuilt API (2025–May 2026): `ReactAgent()` built without a model, its nodes given to
 * `compile(main_node, tool_node)`, each a callable (the default name) or a `(callable, "NAME")` tuple.
 */
export const LEGACY_REACT_NODES: ReadonlyArray<{ parameter: string; name: string; kind: NodeKind }> = [
  { parameter: 'main_node', name: 'MAIN', kind: 'unknown' },
  { parameter: 'tool_node', name: 'TOOL', kind: 'tool_node' },
];

/** The packages a prebuilt agent is imported from (a class of the same name from elsewhere is not one). */
export function isPrebuiltModule(module: string): boolean {
  return /^(?:tenxgraph|agentflow|pyagenity)\.prebuilt(?:\.|$)/.test(module);
}
