/**
 * What the project index needs of a strict-JSON config's tree without its positions: the names
 * key (`agent`, each tool's `name` and `node`) that tells whether a version changed the project,
 * and the tool names that tell whether any handler is missing.
 */
import { Kind, NONE, type Tree } from '10xgraph/rules';
import { configNamesKey } from '../projectIndex';

/** The `name` of each tool of a strict-JSON config (undefined where it is not a string), without positions. */
export function flatToolNames(tree: Tree): Array<string | undefined> {
  const root = tree.root;
  if (tree.kind[root] !== Kind.Object) return [];
  const list = tree.get(root, 'remote_tools');
  if (list === NONE || tree.kind[list] !== Kind.Array) return [];
  return tree
    .children(list)
    .filter((t) => tree.kind[t] === Kind.Object)
    .map((t) => {
      const name = tree.get(t, 'name');
      return name !== NONE && tree.kind[name] === Kind.String ? tree.string(name) : undefined;
    });
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

/** The names key of a strict-JSON config (`agent`, each tool's `name` and `node`), without positions. */
function computeNamesKey(tree: Tree): string {
  const root = tree.root;
  const text = (node: number) => (node !== NONE && tree.kind[node] === Kind.String ? tree.string(node) : undefined);
  if (tree.kind[root] !== Kind.Object) return configNamesKey(undefined, []);
  const list = tree.get(root, 'remote_tools');
  const tools =
    list !== NONE && tree.kind[list] === Kind.Array
      ? tree
          .children(list)
          .filter((t) => tree.kind[t] === Kind.Object)
          .map((t) => [text(tree.get(t, 'name')), text(tree.get(t, 'node'))] as const)
      : [];
  return configNamesKey(text(tree.get(root, 'agent')), tools);
}
