import { type Rule, Kind, NONE, openBrace } from '../context';
import { insertPropertyEdit } from '../fixHelpers';

/** `parameters-type-not-object`: the parameters schema describes an object. */
export const parametersTypeNotObject: Rule = {
  code: 'parameters-type-not-object',
  check({ tree, text, tools, report }) {
    for (const tool of tools) {
      const p = tool.parameters;
      if (!tool.schema) continue;
      const type = tool.schema.type;
      if (type === NONE) {
        report({
          code: 'parameters-type-not-object',
          message: `"parameters" of ${tool.label} has no "type": add "type": "object".`,
          node: openBrace(tree, p),
          fixes: [{ title: 'Add "type": "object"', edits: [insertPropertyEdit(tree, p, 'type', '"object"')], isPreferred: true, safe: true }],
        });
      } else if (!(tree.kind[type] === Kind.String && tree.stringEquals(type, 'object'))) {
        const shown = text.slice(tree.start[type], Math.min(tree.end[type], tree.start[type] + 40));
        report({
          code: 'parameters-type-not-object',
          message: `"parameters.type" of ${tool.label} must be "object", not ${shown}: a tool's arguments are an object.`,
          node: type,
          fixes: [{ title: 'Set "type": "object"', edits: [{ ...tree.span(type), newText: '"object"' }], isPreferred: true }],
        });
      }
    }
  },
};
