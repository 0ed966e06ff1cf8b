import { type Rule, Kind, NONE, STRING_FIELDS } from '../context';

/** `blank-field`: `node`, `name` and `description` are not empty or only white space. */
export const blankField: Rule = {
  code: 'blank-field',
  check({ tree, tools, report }) {
    for (const tool of tools) {
      for (const field of STRING_FIELDS) {
        const value = tool.field[field];
        if (tool.valid[field] !== undefined || value === NONE || tree.kind[value] !== Kind.String) continue;
        report({
          code: 'blank-field',
          message: `"${tool.fieldKey(field)}" of ${tool.label} is ${tree.string(value) === '' ? 'empty' : 'only white space'}: fill it in.`,
          node: value,
        });
      }
    }
  },
};
