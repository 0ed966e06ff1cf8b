/**
 * Where a JSON path lies in a `10xgraph.json`: at the root, in a tool, or somewhere inside a
 * tool's `parameters` schema. Completion and hover both ask this question.
 */
import { parseTree } from 'jsonc-parser';
import type { JsonNode } from '10xgraph/rules';

/** A path of keys and indexes, as `jsonc-parser` and the rule set spell it. */
export type JsonPath = (string | number)[];

/** What a path inside `parameters` points at. */
export type SchemaPlace =
  /** A schema object (`parameters` itself when `depth` is 0). */
  | { place: 'schema'; schemaPath: JsonPath; depth: number }
  /** The `properties` object of a schema: argument name → schema. */
  | { place: 'properties'; schemaPath: JsonPath }
  /** The value of `keyword` in a schema (`type`, `required`, …). */
  | { place: 'keyword'; schemaPath: JsonPath; keyword: string; depth: number }
  /** An item of a keyword's list value (`required[0]`, `type[1]`). */
  | { place: 'keywordItem'; schemaPath: JsonPath; keyword: string }
  | { place: 'other' };

const SUBSCHEMA = new Set(['items', 'additionalProperties', 'not', 'contains', 'propertyNames', 'if', 'then', 'else']);
const SUBSCHEMA_LISTS = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);
const SUBSCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions']);

/** The index of the tool a path is in (`remote_tools[i]…`), or undefined. */
export function toolIndexOf(path: JsonPath): number | undefined {
  return path[0] === 'remote_tools' && typeof path[1] === 'number' ? path[1] : undefined;
}

/** Classifies `path` when it lies inside a tool's `parameters`, or undefined when it does not. */
export function schemaPlaceOf(path: JsonPath): SchemaPlace | undefined {
  if (toolIndexOf(path) === undefined || path[2] !== 'parameters') return undefined;
  let schemaPath = path.slice(0, 3);
  let depth = 0;
  let i = 3;
  for (;;) {
    if (i >= path.length) return { place: 'schema', schemaPath, depth };
    const key = path[i];
    if (typeof key !== 'string') return { place: 'other' };
    if (SUBSCHEMA_MAPS.has(key)) {
      if (i + 1 >= path.length) return { place: 'properties', schemaPath };
      schemaPath = path.slice(0, i + 2);
      depth++;
      i += 2;
    } else if (SUBSCHEMA.has(key)) {
      schemaPath = path.slice(0, i + 1);
      depth++;
      i += 1;
    } else if (SUBSCHEMA_LISTS.has(key)) {
      if (i + 1 >= path.length) return { place: 'keyword', schemaPath, keyword: key, depth };
      if (typeof path[i + 1] !== 'number') return { place: 'other' };
      schemaPath = path.slice(0, i + 2);
      depth++;
      i += 2;
    } else {
      if (i + 1 >= path.length) return { place: 'keyword', schemaPath, keyword: key, depth };
      if (i + 2 === path.length && typeof path[i + 1] === 'number') return { place: 'keywordItem', schemaPath, keyword: key };
      return { place: 'other' };
    }
  }
}

/**
 * A tree of `text` for editor features: the rule set's strict tree when it has one, else
 * `jsonc-parser`'s tolerant one (a file being typed is seldom valid). Undefined when even
 * that fails (a pathologically deep text).
 */
export function featureTree(text: string, strictTree: JsonNode | undefined): JsonNode | undefined {
  if (strictTree) return strictTree;
  try {
    return parseTree(text, [], { allowTrailingComma: true, disallowComments: false }) as JsonNode | undefined;
  } catch {
    return undefined;
  }
}

/** The node at `path` in `tree` (the last of repeated keys, as a strict parser keeps it). */
export function nodeAtPath(tree: JsonNode | undefined, path: JsonPath): JsonNode | undefined {
  let node = tree;
  for (const segment of path) {
    if (!node) return undefined;
    if (typeof segment === 'number') {
      node = node.type === 'array' ? node.children?.[segment] : undefined;
    } else {
      if (node.type !== 'object') return undefined;
      let found: JsonNode | undefined;
      for (const property of node.children ?? []) {
        if (property.children?.[0]?.value === segment) found = property.children[1];
      }
      node = found;
    }
  }
  return node;
}

/** The keys present in the object node. */
export function keysOf(object: JsonNode | undefined): Set<string> {
  const keys = new Set<string>();
  if (object?.type !== 'object') return keys;
  for (const property of object.children ?? []) {
    const key = property.children?.[0]?.value;
    if (typeof key === 'string') keys.add(key);
  }
  return keys;
}
