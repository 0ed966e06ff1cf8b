/**
 * `jsonc-parser`-shaped nodes for editors (built from the flat tree by `Tree.toJsonNode`),
 * and helpers over them. The rules themselves read the flat tree (tree.ts).
 */

/** A node of the tree, in the shape of `jsonc-parser`'s `Node`. */
export interface JsonNode {
  type: 'object' | 'array' | 'property' | 'string' | 'number' | 'boolean' | 'null';
  offset: number;
  length: number;
  /** Scalars: the value. Property key nodes: the key. */
  value?: unknown;
  colonOffset?: number;
  parent?: JsonNode;
  /** Objects: property nodes. Arrays: items. Properties: [key, value] (value absent while incomplete). */
  children?: JsonNode[];
}

/** The innermost node that contains `offset` (the end included, as editors expect at a cursor). */
export function nodeAtOffset(root: JsonNode, offset: number): JsonNode | undefined {
  if (offset < root.offset || offset > root.offset + root.length) return undefined;
  let node = root;
  for (;;) {
    const children = node.children;
    if (!children) return node;
    let next: JsonNode | undefined;
    // Binary search: children are in document order.
    let lo = 0;
    let hi = children.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const child = children[mid];
      if (offset < child.offset) hi = mid - 1;
      else if (offset > child.offset + child.length) lo = mid + 1;
      else {
        next = child;
        break;
      }
    }
    if (!next) return node;
    node = next;
  }
}

/** The path of keys and indexes from the root to `node` (as `jsonc-parser`'s `getNodePath`). */
export function pathOfNode(node: JsonNode): (string | number)[] {
  const path: (string | number)[] = [];
  let current: JsonNode | undefined = node;
  while (current?.parent) {
    const parent: JsonNode = current.parent;
    if (parent.type === 'property') {
      if (parent.children![1] === current) path.push(parent.children![0].value as string);
      current = parent.parent;
      continue;
    }
    if (parent.type === 'array') path.push(parent.children!.indexOf(current));
    current = parent;
  }
  return path.reverse();
}
