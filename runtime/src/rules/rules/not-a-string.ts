import { type Rule, Kind, NONE, STRING_FIELDS, describeType } from '../context';

/** `not-a-string`: `node`, `name` and `description` are strings. */
export const notAString: Rule = {
  code: 'not-a-string',
  check({ tree, tools, report }) {
    for (const tool of tools) {
      for (const field of STRING_FIELDS) {
        const value = tool.field[field];
        if (value === NONE || tree.kind[value] === Kind.String) continue;
        report({ code: 'not-a-string', message: `"${tool.fieldKey(field)}" of ${tool.label} must be a string, not ${describeType(tree, value)}.`, node: value });
      }
    }
  },
};
