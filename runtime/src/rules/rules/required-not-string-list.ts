import { type Rule, Kind, NONE, describeType } from '../context';

/** `required-not-string-list`: `parameters.required`, when present, is a list of strings. */
export const requiredNotStringList: Rule = {
  code: 'required-not-string-list',
  check({ tree, tools, report }) {
    for (const tool of tools) {
      if (!tool.schema) continue;
      const required = tool.schema.required;
      if (required === NONE) continue;
      if (tree.kind[required] !== Kind.Array) {
        report({ code: 'required-not-string-list', message: `"parameters.required" of ${tool.label} must be a list of parameter names, e.g. ["query"].`, node: required });
        continue;
      }
      for (let item = tree.first[required]; item !== NONE; item = tree.next[item]) {
        if (tree.kind[item] === Kind.String) continue;
        report({
          code: 'required-not-string-list',
          message: `"parameters.required" of ${tool.label} must hold parameter names as strings; this item is ${describeType(tree, item)}.`,
          node: item,
        });
      }
    }
  },
};
