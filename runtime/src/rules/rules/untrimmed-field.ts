import { type Rule, Kind, NONE, STRING_FIELDS, shown } from '../context';
import { pythonStrip } from '../python';

/** `untrimmed-field`: `node`, `name` or `description` has white space around it, which the server trims. */
export const untrimmedField: Rule = {
  code: 'untrimmed-field',
  check({ tree, tools, report }) {
    for (const tool of tools) {
      for (const field of STRING_FIELDS) {
        const value = tool.field[field];
        const trimmed = tool.valid[field];
        if (value === NONE || tree.kind[value] !== Kind.String || trimmed === undefined || trimmed === tree.string(value)) continue;
        report({
          code: 'untrimmed-field',
          message: `"${tool.fieldKey(field)}" of ${tool.label} has white space around it: the server trims it to "${shown(trimmed)}".`,
          node: value,
          fixes: [
            { title: `Trim to "${shown(trimmed)}"`, edits: [{ ...tree.span(value), newText: JSON.stringify(pythonStrip(tree.string(value))) }], isPreferred: true, safe: true },
          ],
        });
      }
    }
  },
};
