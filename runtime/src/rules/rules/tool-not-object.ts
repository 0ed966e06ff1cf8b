import { type Rule, Kind, NONE, describeType } from '../context';

/** `tool-not-object`: each item of `remote_tools` must be an object. */
export const toolNotObject: Rule = {
  code: 'tool-not-object',
  check({ tree, toolList, report }) {
    if (toolList === NONE) return;
    let index = 0;
    for (let item = tree.first[toolList]; item !== NONE; item = tree.next[item], index++) {
      if (tree.kind[item] === Kind.Object) continue;
      report({
        code: 'tool-not-object',
        message: `remote_tools[${index}] is ${describeType(tree, item)}: each remote tool must be an object with "node", "name" and "description".`,
        node: item,
      });
    }
  },
};
