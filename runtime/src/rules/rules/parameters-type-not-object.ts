import { type Rule, Kind, NONE } from '../context';

/**
 * `parameters-type-not-object`: a `type` given in the parameters schema is `"object"`. A schema
 * without `type` is accepted: the server fills in `"object"` (and `{}` and `[]` for missing
 * `properties` and `required`).
 */
export const parametersTypeNotObject: Rule = {
  code: 'parameters-type-not-object',
  check({ tree, text, tools, report }) {
    for (const tool of tools) {
      if (!tool.schema) continue;
      const type = tool.schema.type;
      if (type === NONE || (tree.kind[type] === Kind.String && tree.stringEquals(type, 'object'))) continue;
      const shown = text.slice(tree.start[type], Math.min(tree.end[type], tree.start[type] + 40));
      report({
        code: 'parameters-type-not-object',
        message: `"parameters.type" of ${tool.label} must be "object", not ${shown}: a tool's arguments are an object.`,
        node: type,
        fixes: [{ title: 'Set "type": "object"', edits: [{ ...tree.span(type), newText: '"object"' }], isPreferred: true }],
      });
    }
  },
};
