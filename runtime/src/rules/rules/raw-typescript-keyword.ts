import { type Rule, Kind, NONE } from '../context';
import type { Tree } from '../tree';

/**
 * json-schema-to-typescript's keywords that put text of the schema into the generated file as
 * TypeScript rather than as a type it derives: `tsType` is copied verbatim (so it can close the
 * declaration and start a statement), `tsEnumNames` turns the schema into an `enum`, which is
 * code, not a type. The 10xGraph server ignores both, hence only a warning.
 */
const KEYWORDS: Readonly<Record<string, string>> = {
  tsType: 'is TypeScript text that json-schema-to-typescript copies into the generated types as it is',
  tsEnumNames: 'makes json-schema-to-typescript write an enum (code, not a type) into the generated types',
};

const ADVICE: Readonly<Record<string, string>> = {
  tsType: 'describe the type with JSON Schema ("type", "enum", "items", "properties") instead',
  tsEnumNames: 'remove it ("enum" alone types the argument as the union of its values)',
};

/**
 * `raw-typescript-keyword`: no schema inside `parameters` uses `tsType` or `tsEnumNames`, which
 * `10xgraph types` refuses. Every object at any depth is looked at, not only the places a schema
 * is expected: a `$ref` can make any object of the parameters a schema. A key of that name whose
 * value is an object or a boolean is a schema (a parameter or a definition named so), not the keyword.
 */
export const rawTypescriptKeyword: Rule = {
  code: 'raw-typescript-keyword',
  check({ tree, tools, report }) {
    let shadowed: Set<number> | undefined;
    for (const tool of tools) {
      if (tool.parameters === NONE || tree.kind[tool.parameters] !== Kind.Object) continue;
      // Keys a later repeat overrides are not what a strict parser keeps: judged by the last.
      shadowed ??= shadowedProperties(tree);
      const work = [tool.parameters];
      while (work.length > 0) {
        const node = work.pop()!;
        for (let child = tree.first[node]; child !== NONE; child = tree.next[child]) {
          let value = child;
          if (tree.kind[node] === Kind.Object) {
            if (shadowed.has(child)) continue;
            const key = tree.keyOf(child);
            value = tree.valueOfProperty(child);
            const keyword = keywordAt(tree, key, value);
            if (keyword) {
              report({
                code: 'raw-typescript-keyword',
                message: `"${keyword}" in the parameters of ${tool.label} ${KEYWORDS[keyword]}: \`10xgraph types\` refuses it; ${ADVICE[keyword]}.`,
                node: key,
              });
            }
          }
          if (tree.kind[value] === Kind.Object || tree.kind[value] === Kind.Array) work.push(value);
        }
      }
    }
  },
};

/** The refused keyword `key` names, when its value is not a schema. */
function keywordAt(tree: Tree, key: number, value: number): string | undefined {
  const kind = tree.kind[value];
  if (kind === Kind.Object || kind === Kind.True || kind === Kind.False) return undefined;
  for (const keyword of Object.keys(KEYWORDS)) if (tree.stringEquals(key, keyword)) return keyword;
  return undefined;
}

/** Every property a later property of the same key in its object overrides. */
function shadowedProperties(tree: Tree): Set<number> {
  const shadowed = new Set<number>();
  for (const group of tree.repeatedKeys) for (let i = 0; i < group.length - 1; i++) shadowed.add(group[i]);
  return shadowed;
}
