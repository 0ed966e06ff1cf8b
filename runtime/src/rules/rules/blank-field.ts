import type { Rule } from '../context';
import { STRING_FIELDS } from '../context';

/** `blank-field`: `node`, `name` and `description` are not empty or only white space. */
export const blankField: Rule = {
  code: 'blank-field',
  check({ tools, report }) {
    for (const tool of tools) {
      for (const field of STRING_FIELDS) {
        const value = tool.field[field];
        if (value?.type !== 'string' || (value.value as string).trim() !== '') continue;
        report({
          code: 'blank-field',
          message: `"${field}" of ${tool.label} is ${(value.value as string) === '' ? 'empty' : 'only white space'}: fill it in.`,
          node: value,
        });
      }
    }
  },
};
