import type { Rule } from '../context';

const KIND: Record<string, string> = { array: 'an array', string: 'a string', number: 'a number', boolean: 'a boolean', null: 'null' };

/** `root-not-object`: the file must hold one JSON object. */
export const rootNotObject: Rule = {
  code: 'root-not-object',
  check({ root, report }) {
    if (root.type === 'object') return;
    report({
      code: 'root-not-object',
      message: `The root of 10xgraph.json is ${KIND[root.type]}: it must be an object such as {"agent": "graph:app"}.`,
      node: root,
    });
  },
};
