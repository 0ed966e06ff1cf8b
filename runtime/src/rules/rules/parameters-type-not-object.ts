import type { Rule } from '../context';
import { openBrace, propertyOf, valueOf } from '../context';
import { insertPropertyEdit } from '../fixHelpers';

/** `parameters-type-not-object`: the parameters schema describes an object. */
export const parametersTypeNotObject: Rule = {
  code: 'parameters-type-not-object',
  check({ tools, text, report }) {
    for (const tool of tools) {
      const p = tool.parameters;
      if (p?.type !== 'object') continue;
      const type = valueOf(p, 'type');
      if (!propertyOf(p, 'type')) {
        report({
          code: 'parameters-type-not-object',
          message: `"parameters" of ${tool.label} has no "type": add "type": "object".`,
          node: openBrace(p),
          fixes: [{ title: 'Add "type": "object"', edits: [insertPropertyEdit(text, p, 'type', '"object"')], isPreferred: true, safe: true }],
        });
      } else if (type && !(type.type === 'string' && type.value === 'object')) {
        report({
          code: 'parameters-type-not-object',
          message: `"parameters.type" of ${tool.label} must be "object", not ${text.slice(type.offset, type.offset + Math.min(type.length, 40))}: a tool's arguments are an object.`,
          node: type,
          fixes: [{ title: 'Set "type": "object"', edits: [{ offset: type.offset, length: type.length, newText: '"object"' }], isPreferred: true }],
        });
      }
    }
  },
};
