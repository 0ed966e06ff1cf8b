import type { Rule } from '../context';
import { STRING_FIELDS } from '../context';

/** `not-a-string`: `node`, `name` and `description` are strings. */
export const notAString: Rule = {
  code: 'not-a-string',
  check({ tools, report }) {
    for (const tool of tools) {
      for (const field of STRING_FIELDS) {
        const value = tool.field[field];
        if (!value || value.type === 'string') continue;
        report({
          code: 'not-a-string',
          message: `"${field}" of ${tool.label} must be a string, not ${value.type === 'null' ? 'null' : `a${value.type === 'array' || value.type === 'object' ? 'n' : ''} ${value.type}`}.`,
          node: value,
        });
      }
    }
  },
};
