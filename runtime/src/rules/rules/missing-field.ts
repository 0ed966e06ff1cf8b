import { type Rule, NONE, STRING_FIELDS, openBrace, toolNodes } from '../context';
import { insertPropertyEdit } from '../fixHelpers';
import { closestToolField } from './unknown-field';

const WHAT: Record<(typeof STRING_FIELDS)[number], string> = {
  node: 'the ToolNode of the graph that carries it',
  name: 'the name the model calls it by',
  description: 'what the tool does, for the model to read',
};

/** `missing-field`: each remote tool needs `node`, `name` and `description`. */
export const missingField: Rule = {
  code: 'missing-field',
  check({ tree, tools, graph, report }) {
    let usedNames: Set<string> | undefined;
    for (const tool of tools) {
      // A field spelt wrong (`desc`) is one fault: `unknown-field` reports it, with the rename.
      const misspelt = new Set<string>();
      for (const property of tool.unknownFields ?? []) {
        const closest = closestToolField(tree.string(tree.keyOf(property)));
        if (closest?.sure) misspelt.add(closest.field);
      }
      for (const field of STRING_FIELDS) {
        if (tool.field[field] !== NONE || misspelt.has(field)) continue;
        let value: string;
        let title: string;
        if (field === 'node') {
          const candidates = graph ? toolNodes(graph) : [];
          value = candidates.length === 1 ? candidates[0].name : 'TOOL';
          title = candidates.length === 1 ? `Add "node": "${value}" (the graph's only ToolNode)` : `Add "node" (placeholder "${value}" to fill)`;
        } else if (field === 'name') {
          usedNames ??= new Set(tools.map((t) => t.valid.name).filter((n): n is string => n !== undefined));
          let n = tool.index + 1;
          while (usedNames.has(`tool_${n}`)) n++;
          value = `tool_${n}`;
          title = `Add "name" (placeholder "${value}" to fill)`;
        } else {
          value = 'Describe what this tool does and when to call it.';
          title = 'Add "description" (placeholder to fill)';
        }
        report({
          code: 'missing-field',
          message: `${capitalise(tool.label)} is missing "${field}": add ${WHAT[field]}.`,
          node: openBrace(tree, tool.object),
          fixes: [{ title, edits: [insertPropertyEdit(tree, tool.object, field, JSON.stringify(value))], isPreferred: true }],
        });
      }
    }
  },
};

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
