import { type Rule, NONE, TOOL_FIELDS, shown } from '../context';
import { removePropertyEdit } from '../fixHelpers';
import { isLikelyTypo, byCloseness } from '../similarity';
import type { Fix } from '../types';

/** Names that can only mean one allowed field: renaming them is safe. */
const SURE: ReadonlyMap<string, (typeof TOOL_FIELDS)[number]> = aliases({
  desc: 'description',
  descr: 'description',
  nodename: 'node',
  tool_node: 'node',
  toolnode: 'node',
  params: 'parameters',
  param: 'parameters',
  parameter: 'parameters',
  tool_name: 'name',
  toolname: 'name',
});

/** Names people reach for that probably mean an allowed field: offered, never applied unasked. */
const LIKELY: ReadonlyMap<string, (typeof TOOL_FIELDS)[number]> = aliases({
  summary: 'description',
  doc: 'description',
  docs: 'description',
  about: 'description',
  target: 'node',
  graph_node: 'node',
  args: 'parameters',
  arguments: 'parameters',
  schema: 'parameters',
  input_schema: 'parameters',
  inputschema: 'parameters',
  json_schema: 'parameters',
  input: 'parameters',
  id: 'name',
  function: 'name',
  title: 'name',
});

// A Map, not an object: a key such as "__proto__" or "constructor" must find nothing.
function aliases(table: Record<string, (typeof TOOL_FIELDS)[number]>): ReadonlyMap<string, (typeof TOOL_FIELDS)[number]> {
  return new Map(Object.entries(table));
}

/** The allowed field `key` most likely meant, if any, and whether renaming to it is safe. */
export function closestToolField(key: string): { field: (typeof TOOL_FIELDS)[number]; sure: boolean } | undefined {
  const normal = key.toLowerCase().replace(/[-\s]/g, '_');
  const sure = SURE.get(normal) ?? SURE.get(normal.replace(/_/g, ''));
  if (sure) return { field: sure, sure: true };
  const [best] = byCloseness(key, TOOL_FIELDS);
  if (isLikelyTypo(key, best)) return { field: best as (typeof TOOL_FIELDS)[number], sure: true };
  const likely = LIKELY.get(normal) ?? LIKELY.get(normal.replace(/_/g, ''));
  return likely ? { field: likely, sure: false } : undefined;
}

/** `unknown-field`: a remote tool has only `node`, `name`, `description` and `parameters`. */
export const unknownField: Rule = {
  code: 'unknown-field',
  check({ tree, tools, report }) {
    for (const tool of tools) {
      // Two keys renamed to one field would make a repeated key: only the first rename is safe.
      const claimed = new Set<string>();
      for (const property of tool.unknownFields ?? []) {
        const key = tree.keyOf(property);
        const name = tree.string(key);
        if (name === 'node_name') {
          // Only beside `node` is `node_name` an unknown field: alone, it is the node.
          report({
            code: 'unknown-field',
            message: `${tool.label.charAt(0).toUpperCase()}${tool.label.slice(1)} has both "node" and "node_name", two names of one field: the server refuses a tool that gives both. Remove one.`,
            node: key,
            fixes: [{ title: 'Remove "node_name"', edits: [removePropertyEdit(tree, property)], isPreferred: true }],
          });
          continue;
        }
        const closest = closestToolField(name);
        const target = closest?.field;
        const fixes: Fix[] = [];
        // `node_name` is `node` too: a rename to "node" beside it would give the tool both.
        const renameFree = target !== undefined && tree.property(tool.object, target) === NONE && !(target === 'node' && tool.nodeNamed);
        if (target && renameFree) {
          fixes.push({
            title: `Rename "${shown(name)}" to "${target}"`,
            edits: [{ offset: tree.start[key], length: tree.end[key] - tree.start[key], newText: JSON.stringify(target) }],
            isPreferred: true,
            safe: closest!.sure && !claimed.has(target),
          });
          claimed.add(target);
        }
        fixes.push({ title: `Remove "${shown(name)}"`, edits: [removePropertyEdit(tree, property)], isPreferred: fixes.length === 0 });
        const hint = target ? (renameFree ? ` Did you mean "${target}"?` : ` ("${target}" is already set: remove this one.)`) : '';
        report({
          code: 'unknown-field',
          message: `Unknown field "${shown(name)}" on ${tool.label}: a remote tool takes only "node" (or "node_name"), "name", "description" and "parameters"; the server refuses any other.${hint}`,
          node: key,
          fixes,
        });
      }
    }
  },
};
