import type { Rule } from '../context';

/** `tool-not-object`: each item of `remote_tools` must be an object. */
export const toolNotObject: Rule = {
  code: 'tool-not-object',
  check({ toolList, report }) {
    if (!toolList) return;
    toolList.children!.forEach((item, index) => {
      if (item.type === 'object') return;
      report({
        code: 'tool-not-object',
        message: `remote_tools[${index}] is ${item.type === 'array' ? 'an array' : item.type === 'null' ? 'null' : `a ${item.type}`}: each remote tool must be an object with "node", "name" and "description".`,
        node: item,
      });
    });
  },
};
