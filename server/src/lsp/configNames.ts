/**
 * What the project index needs of a strict-JSON config's tree without its positions: the names
 * key (`agent`, each tool's `name` and `node`) that tells whether a version changed the project,
 * and the tool names that tell whether any handler is missing.
 */
import { Kind, NONE, type Tree } from '10xgraph/rules';
import { summarizeTree } from '../configFacts';
import { configNamesKey } from '../projectIndex';

/** The `name` of each tool of a strict-JSON config (undefined where it is not a string), without positions. */
export function flatToolNames(tree: Tree): Array<string | undefined> {
  return summarizeTree(tree).tools.map((tool) => tool.name?.value);
}

/** The names key of each tree computed, while the tree lives. */
const namesKeys = new WeakMap<Tree, string>();
/** The keys whose string values make up the names key. */
const NAME_KEYS = new Set(['name', 'node', 'agent']);

/**
 * The names key of a config's tree. A tree the rule set built from `previous` by an edit inside
 * one string (a keystroke in a description) has the previous key, unless that string is a name.
 */
export function flatNamesKey(tree: Tree, previous?: Tree): string {
  let key = namesKeys.get(tree);
  if (key !== undefined) return key;
  const edited = tree.editedString;
  const before = previous && edited !== NONE ? namesKeys.get(previous) : undefined;
  const owner = edited === NONE ? NONE : tree.parent[edited];
  if (before !== undefined && owner !== NONE && tree.kind[owner] === Kind.Property && !NAME_KEYS.has(tree.string(tree.keyOf(owner)))) key = before;
  else key = computeNamesKey(tree);
  namesKeys.set(tree, key);
  return key;
}

/** The names key of a strict-JSON config (`agent`, each tool's `name` and `node`), from the rule set's summary. */
function computeNamesKey(tree: Tree): string {
  const summary = summarizeTree(tree);
  return configNamesKey(
    summary.agent?.value,
    summary.tools.map((tool) => [tool.name?.value, tool.node?.value] as const),
  );
}
