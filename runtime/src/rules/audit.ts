import { VERSION } from '../version';
import type { AuditOptions, GraphNode, Problem, ProblemCode } from './types';
import { RULES } from './catalog';
import { type RuleContext, type ToolView, buildToolViews } from './context';
import type { JsonNode } from './parse';
import { Kind, NONE, parseTree, reuseTree, type Tree } from './tree';
import { collectSyntaxProblems } from './rules/invalid-json';
import { ALL_RULES } from './rules/index';

/** The rule set's version: the 10xgraph version whose server start-up it reproduces. */
export const RULESET_VERSION = VERSION;

/** A remote tool as the server attaches it. */
export interface RemoteToolSchema {
  node: string;
  name: string;
  description: string;
  parameters: { type: 'object'; properties?: Record<string, unknown>; required?: string[]; [keyword: string]: unknown };
}

/** The config as the server uses it (present only when the text has no error). */
export interface ParsedConfig {
  agent: string;
  remoteTools: RemoteToolSchema[];
  /** The whole root object, other server settings included. */
  raw: Record<string, unknown>;
}

/** Everything one audit found. */
export interface Analysis {
  problems: Problem[];
  /** The tree as `jsonc-parser`-shaped nodes, when the text is strict JSON (built on first use). */
  readonly tree?: JsonNode;
  /** The flat tree the rules read, when the text is strict JSON. */
  flatTree?: Tree;
  /** The config, when there is no error. */
  config?: ParsedConfig;
}

const CODE_ORDER = new Map(Object.keys(RULES).map((code, i) => [code as ProblemCode, i]));

/** Audits `text` and returns every problem, ordered by position. Never throws. */
export function auditConfig(text: string, options: AuditOptions = {}): Problem[] {
  return analyzeConfig(text, options).problems;
}

/**
 * Audits `text` and also returns its tree and, when there is no error, the config the
 * server would run. Never throws: a rule that fails is reported as `internal-error`.
 */
export function analyzeConfig(text: string, options: AuditOptions = {}): Analysis {
  const reused = options.previous?.flatTree ? reuseTree(options.previous.flatTree, text) : undefined;
  const parsed = reused ? { ok: true as const, tree: reused } : parseTree(text);
  if (!parsed.ok) {
    return { problems: collectSyntaxProblems(text, parsed.error, options.maxSyntaxErrors ?? 100) };
  }
  const tree = parsed.tree;
  const root = tree.root;
  const problems: Problem[] = [];
  const { toolList, tools } = tree.kind[root] === Kind.Object ? buildToolViews(tree) : { toolList: NONE, tools: [] };
  let graph = options.graph;
  let graphNodes: Map<string, GraphNode> | undefined;
  if (graph) {
    try {
      graphNodes = new Map();
      for (const node of graph.nodes) graphNodes.set(node.name, node);
    } catch (error) {
      // A graph that cannot be read is judged as no graph; the text rules still run.
      problems.push(internalError('graph', error, tree.start[root]));
      graph = undefined;
      graphNodes = undefined;
    }
  }
  const context: RuleContext = {
    text,
    tree,
    root,
    options,
    graph,
    graphNodes,
    toolList,
    tools,
    report(input) {
      const { code, message, node, related, fixes } = input;
      const offset = typeof node === 'number' ? tree.start[node] : node.offset;
      const length = typeof node === 'number' ? tree.end[node] - tree.start[node] : node.length;
      const problem: Problem = { code, severity: RULES[code].severity, message, offset, length };
      if (related) problem.related = related;
      if (fixes && fixes.length) problem.fixes = fixes;
      problems.push(problem);
    },
  };
  for (const rule of ALL_RULES) {
    try {
      rule.check(context);
    } catch (error) {
      problems.push(internalError(`rule '${rule.code}'`, error, tree.start[root]));
    }
  }
  problems.sort(compareProblems);
  const analysis: Analysis = {
    problems,
    flatTree: tree,
    get tree() {
      return tree.toJsonNode();
    },
  };
  if (!problems.some((p) => p.severity === 'error')) analysis.config = extractConfig(tree, tools);
  return analysis;
}

function internalError(what: string, error: unknown, offset: number): Problem {
  return {
    code: 'internal-error',
    severity: RULES['internal-error'].severity,
    message: `The ${what} failed while checking this file: ${error instanceof Error ? error.message : String(error)}. Please report it; the other rules still ran.`,
    offset,
    length: 0,
  };
}

/** Orders problems by position, then by the catalog's order of codes, then by message. */
function compareProblems(a: Problem, b: Problem): number {
  return a.offset - b.offset || a.length - b.length || CODE_ORDER.get(a.code)! - CODE_ORDER.get(b.code)! || (a.message < b.message ? -1 : a.message > b.message ? 1 : 0);
}

function extractConfig(tree: Tree, tools: readonly ToolView[]): ParsedConfig {
  const raw = tree.value(tree.root) as Record<string, unknown>;
  const remoteTools: RemoteToolSchema[] = [];
  // As the server uses them: `node` (or `node_name`), `name` and `description` trimmed, and the
  // missing parts of `parameters` filled in.
  for (const tool of tools) {
    const given = tool.parameters !== NONE ? (tree.value(tool.parameters) as Record<string, unknown>) : {};
    remoteTools.push({
      node: tool.valid.node!,
      name: tool.valid.name!,
      description: tool.valid.description!,
      parameters: { ...given, type: 'object', properties: (given.properties as Record<string, unknown>) ?? {}, required: (given.required as string[]) ?? [] },
    });
  }
  return { agent: raw.agent as string, remoteTools, raw };
}
