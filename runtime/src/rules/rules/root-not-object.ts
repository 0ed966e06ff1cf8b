import { type Rule, Kind, describeType } from '../context';

/** `root-not-object`: the file must hold one JSON object. */
export const rootNotObject: Rule = {
  code: 'root-not-object',
  check({ tree, root, report }) {
    if (tree.kind[root] === Kind.Object) return;
    report({
      code: 'root-not-object',
      message: `The root of 10xgraph.json is ${describeType(tree, root)}: it must be an object such as {"agent": "graph:app"}.`,
      node: root,
    });
  },
};
