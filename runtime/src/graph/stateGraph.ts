/**
 * `StateGraph`: the builder. Nodes are model nodes, ToolNodes or plain functions; edges are
 * fixed or chosen by a route function. `compile()` checks the wiring and returns a runnable graph.
 */
import { CompiledGraph, type GraphDefinition, type NodeSpec, type Branch } from './compiledGraph';
import { GraphDefinitionError } from './errors';
import { isModelNode } from './modelNode';
import { isToolNode } from './toolNode';
import { END, START, type RouteFunction } from './types';

/** Marks StateGraph builders, so a loader can say "call compile()" when given one. */
export const STATE_GRAPH_MARK = Symbol.for('10xgraph.StateGraph');

/** Tells whether a value is an uncompiled StateGraph (of any copy of the library). */
export function isStateGraph(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[STATE_GRAPH_MARK] === true;
}

/** Builds a graph of nodes and edges, then `compile()`s it. */
export class StateGraph {
  readonly [STATE_GRAPH_MARK] = true;
  private readonly nodes = new Map<string, NodeSpec>();
  private readonly edges: Array<{ source: string; target: string }> = [];
  private readonly branches = new Map<string, Branch>();
  private entryPoint: string | undefined;

  /** Adds a node: a `ModelNode`, a `ToolNode` or a function of the state. */
  addNode(name: string, node: NodeSpec): this {
    if (typeof name !== 'string' || name.trim() === '') throw new GraphDefinitionError('A node needs a non-blank name.');
    if (name === START || name === END) throw new GraphDefinitionError(`'${name}' is reserved; give the node another name.`);
    if (this.nodes.has(name)) throw new GraphDefinitionError(`Node '${name}' is added twice; give each node a unique name.`);
    if (typeof node !== 'function' && !isToolNode(node) && !isModelNode(node)) {
      throw new GraphDefinitionError(`Node '${name}' is not a ModelNode, a ToolNode or a function; pass one of those to addNode.`);
    }
    this.nodes.set(name, node);
    return this;
  }

  /** Adds a fixed edge. An edge from `START` sets the entry point. */
  addEdge(source: string, target: string): this {
    if (source === START) return this.setEntryPoint(target);
    this.edges.push({ source, target });
    return this;
  }

  /**
   * Lets `route` pick the node after `source`. The route returns a node name or `END`, or a key
   * of `pathMap` (an object), whose value is then the node. `pathMap` as a list only names the
   * possible targets, for the graph's description.
   */
  addConditionalEdges(source: string, route: RouteFunction, pathMap?: readonly string[] | Readonly<Record<string, string>>): this {
    if (typeof route !== 'function') throw new GraphDefinitionError(`The route of the conditional edges from '${source}' is not a function.`);
    if (this.branches.has(source)) throw new GraphDefinitionError(`Node '${source}' already has conditional edges; give each node one route.`);
    const map = pathMap === undefined ? undefined : Array.isArray(pathMap) ? Object.fromEntries(pathMap.map((name) => [name, name])) : { ...(pathMap as Record<string, string>) };
    this.branches.set(source, { route, pathMap: map });
    return this;
  }

  /** Says which node the run begins with. */
  setEntryPoint(name: string): this {
    this.entryPoint = name;
    return this;
  }

  /** Checks the wiring and returns the runnable graph. */
  compile(options: { name?: string } = {}): CompiledGraph {
    const known = (name: string) => this.nodes.has(name);
    if (this.entryPoint === undefined) throw new GraphDefinitionError('The graph has no entry point; call setEntryPoint(node) or addEdge(START, node).');
    if (!known(this.entryPoint)) throw new GraphDefinitionError(`The entry point '${this.entryPoint}' is not a node of the graph; add it with addNode first.`);
    const next = new Map<string, string>();
    for (const { source, target } of this.edges) {
      if (!known(source)) throw new GraphDefinitionError(`An edge starts at '${source}', which is not a node of the graph.`);
      if (target !== END && !known(target)) throw new GraphDefinitionError(`The edge '${source}' → '${target}' ends at a node that does not exist.`);
      if (next.has(source)) throw new GraphDefinitionError(`Node '${source}' has two fixed edges; use addConditionalEdges to choose between targets.`);
      if (this.branches.has(source)) throw new GraphDefinitionError(`Node '${source}' has a fixed edge and conditional edges; keep one of them.`);
      next.set(source, target);
    }
    for (const [source, branch] of this.branches) {
      if (!known(source)) throw new GraphDefinitionError(`Conditional edges start at '${source}', which is not a node of the graph.`);
      for (const target of Object.values(branch.pathMap ?? {})) {
        if (target !== END && !known(target)) throw new GraphDefinitionError(`The conditional edges from '${source}' name '${target}', which is not a node of the graph.`);
      }
    }
    const definition: GraphDefinition = {
      name: options.name ?? 'graph',
      nodes: new Map(this.nodes),
      next,
      branches: new Map(this.branches),
      entryPoint: this.entryPoint,
    };
    return new CompiledGraph(definition);
  }
}
