/**
 * What a config says about the project: its `agent` and the `node` and `name` of each remote
 * tool, with where each string lies. Read from the (tolerant) tree the features share, so a
 * config being typed still takes part; a repeated key counts by its last value, as everywhere.
 */
import type { Range } from 'vscode-languageserver';
import type { JsonNode } from '10xgraph/rules';
import { Kind, LineIndex, NONE, type Tree } from '10xgraph/rules';
import { featureTree, nodeAtPath } from './jsonPaths';
import type { Positions } from './positions';

/** A JSON string value and where it lies. */
export interface StringSite {
  value: string;
  /** The string with its quotes. */
  range: Range;
  /** The text between the quotes. */
  inner: Range;
  /** True when the text between the quotes is exactly the value (no escapes): a rename can replace it. */
  exact: boolean;
}

/** One remote tool of a config. */
export interface ToolFacts {
  index: number;
  name?: StringSite;
  node?: StringSite;
  /** The whole tool object. */
  range: Range;
}

/** The facts of one config. */
export interface ConfigFacts {
  agent?: StringSite;
  tools: ToolFacts[];
}

function stringSite(node: JsonNode | undefined, text: string, lines: Positions): StringSite | undefined {
  if (node?.type !== 'string' || typeof node.value !== 'string') return undefined;
  const start = node.offset;
  const end = node.offset + node.length;
  return {
    value: node.value,
    range: { start: lines.positionAt(start), end: lines.positionAt(end) },
    inner: { start: lines.positionAt(start + 1), end: lines.positionAt(end - 1) },
    exact: text.slice(start + 1, end - 1) === node.value,
  };
}

/** The facts of a config from its tree (the one the features of an open document share). */
export function configFactsOf(tree: JsonNode | undefined, text: string, lines: Positions): ConfigFacts {
  if (tree?.type !== 'object') return { tools: [] };
  const tools: ToolFacts[] = [];
  const list = nodeAtPath(tree, ['remote_tools']);
  if (list?.type === 'array') {
    list.children?.forEach((tool, index) => {
      if (tool.type !== 'object') return;
      tools.push({
        index,
        name: stringSite(nodeAtPath(tool, ['name']), text, lines),
        node: stringSite(nodeAtPath(tool, ['node']), text, lines),
        range: { start: lines.positionAt(tool.offset), end: lines.positionAt(tool.offset + tool.length) },
      });
    });
  }
  return { agent: stringSite(nodeAtPath(tree, ['agent']), text, lines), tools };
}

/** The facts of a config's text read from disk. */
export function readConfigFacts(text: string): ConfigFacts {
  return configFactsOf(featureTree(text, undefined), text, new LineIndex(text));
}

function flatSite(tree: Tree, node: number, lines: Positions): StringSite | undefined {
  if (node === NONE || tree.kind[node] !== Kind.String) return undefined;
  const start = tree.start[node];
  const end = tree.end[node];
  return {
    value: tree.string(node),
    range: { start: lines.positionAt(start), end: lines.positionAt(end) },
    inner: { start: lines.positionAt(start + 1), end: lines.positionAt(end - 1) },
    exact: tree.escaped[node] === 0,
  };
}

/**
 * The facts of a config from the rule set's flat tree (a strict JSON text): no second parse.
 * With `only`, just the tools whose name passes it (a keystroke in a large config needs the
 * positions of the few tools it reports, not of all).
 */
export function configFactsOfFlat(tree: Tree, lines: Positions, only?: (name: string) => boolean): ConfigFacts {
  const root = tree.root;
  if (tree.kind[root] !== Kind.Object) return { tools: [] };
  const tools: ToolFacts[] = [];
  const list = tree.get(root, 'remote_tools');
  if (list !== NONE && tree.kind[list] === Kind.Array) {
    tree.children(list).forEach((tool, index) => {
      if (tree.kind[tool] !== Kind.Object) return;
      if (only) {
        const name = tree.get(tool, 'name');
        if (name === NONE || tree.kind[name] !== Kind.String || !only(tree.string(name))) return;
      }
      tools.push({
        index,
        name: flatSite(tree, tree.get(tool, 'name'), lines),
        node: flatSite(tree, tree.get(tool, 'node'), lines),
        range: { start: lines.positionAt(tree.start[tool]), end: lines.positionAt(tree.end[tool]) },
      });
    });
  }
  return { agent: flatSite(tree, tree.get(root, 'agent'), lines), tools };
}
