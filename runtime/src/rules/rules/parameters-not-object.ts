import { type Rule, Kind, NONE, describeType } from '../context';

/** `parameters-not-object`: `parameters`, when present, is a JSON Schema object. */
export const parametersNotObject: Rule = {
  code: 'parameters-not-object',
  check({ tree, tools, report }) {
    for (const tool of tools) {
      const p = tool.parameters;
      if (p === NONE || tree.kind[p] === Kind.Object) continue;
      report({
        code: 'parameters-not-object',
        message: `"parameters" of ${tool.label} must be a JSON Schema object such as {"type": "object", "properties": {}}, not ${describeType(tree, p)}.`,
        node: p,
      });
    }
  },
};
