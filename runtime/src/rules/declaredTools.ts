import type { AuditOptions, ProblemCode } from './types';
import { type Analysis, analyzeConfig } from './audit';
import { buildToolViews } from './context';
import { Kind } from './tree';

/** A remote tool the file declares, as the rule set reads it. */
export interface DeclaredTool {
  node: string;
  name: string;
  /**
   * Whether the graph lists it as attached to its node: false when a graph rule reports it
   * (`tool-not-attached`, `node-not-found`, `node-not-tool-node`, `name-conflicts-with-server-tool`),
   * undefined without a graph.
   */
  attached?: boolean;
}

const GRAPH_CODES: ReadonlySet<ProblemCode> = new Set(['tool-not-attached', 'node-not-found', 'node-not-tool-node', 'name-conflicts-with-server-tool']);

/**
 * The remote tools of `text` with a non-blank `node` and `name` (a repeated key judged by its last
 * value, as everywhere), each with the graph rules' verdict on it: views of the file (the graph
 * view of the extension) say what the diagnostics say. Undefined when the text is not strict JSON.
 */
export function declaredTools(text: string, options: AuditOptions = {}): DeclaredTool[] | undefined {
  return declaredToolsOf(analyzeConfig(text, options), options.graph !== undefined);
}

/**
 * The same, from an analysis already made (the language server keeps one per document
 * version); `judged` says whether it was made with a graph, so that `attached` is meaningful.
 */
export function declaredToolsOf(analysis: Analysis, judged: boolean): DeclaredTool[] | undefined {
  const tree = analysis.flatTree;
  if (!tree) return undefined;
  if (tree.kind[tree.root] !== Kind.Object) return [];
  const flagged = new Set(analysis.problems.filter((p) => GRAPH_CODES.has(p.code)).map((p) => p.offset));
  const tools: DeclaredTool[] = [];
  for (const tool of buildToolViews(tree).tools) {
    const { node, name } = tool.valid;
    if (node === undefined || name === undefined) continue;
    const declared: DeclaredTool = { node, name };
    if (judged) declared.attached = !flagged.has(tree.start[tool.field.name]) && !flagged.has(tree.start[tool.field.node]);
    tools.push(declared);
  }
  return tools;
}
