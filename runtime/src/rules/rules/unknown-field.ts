import { type Rule, NONE, TOOL_FIELDS } from '../context';
import { removePropertyEdit } from '../fixHelpers';
import { isLikelyTypo, byCloseness } from '../similarity';
import type { Fix } from '../types';

/** Names people reach for instead of the allowed fields. */
const ALIASES: Record<string, (typeof TOOL_FIELDS)[number]> = {
  desc: 'description', descr: 'description', summary: 'description', doc: 'description', docs: 'description', about: 'description',
  node_name: 'node', nodename: 'node', tool_node: 'node', toolnode: 'node', target: 'node', graph_node: 'node',
  params: 'parameters', param: 'parameters', parameter: 'parameters', args: 'parameters', arguments: 'parameters',
  schema: 'parameters', input_schema: 'parameters', inputschema: 'parameters', json_schema: 'parameters', input: 'parameters',
  tool_name: 'name', toolname: 'name', id: 'name', function: 'name', title: 'name',
};

/** The allowed field `key` most likely meant, if any. */
export function closestToolField(key: string): (typeof TOOL_FIELDS)[number] | undefined {
  const normal = key.toLowerCase().replace(/[-\s]/g, '_');
  const alias = ALIASES[normal] ?? ALIASES[normal.replace(/_/g, '')];
  if (alias) return alias;
  const [best] = byCloseness(key, TOOL_FIELDS);
  return isLikelyTypo(key, best) ? (best as (typeof TOOL_FIELDS)[number]) : undefined;
}

/** `unknown-field`: a remote tool has only `node`, `name`, `description` and `parameters`. */
export const unknownField: Rule = {
  code: 'unknown-field',
  check({ tree, tools, report }) {
    for (const tool of tools) {
      for (const property of tool.unknownFields ?? []) {
        const key = tree.keyOf(property);
        const name = tree.string(key);
        const target = closestToolField(name);
        const fixes: Fix[] = [];
        const renameFree = target !== undefined && tree.property(tool.object, target) === NONE;
        if (target && renameFree) {
          fixes.push({ title: `Rename "${name}" to "${target}"`, edits: [{ offset: tree.start[key], length: tree.end[key] - tree.start[key], newText: JSON.stringify(target) }], isPreferred: true, safe: true });
        }
        fixes.push({ title: `Remove "${name}"`, edits: [removePropertyEdit(tree, property)], isPreferred: fixes.length === 0 });
        const hint = target ? (renameFree ? ` Did you mean "${target}"?` : ` ("${target}" is already set: remove this one.)`) : '';
        report({
          code: 'unknown-field',
          message: `Unknown field "${name}" on ${tool.label}: a remote tool takes only "node", "name", "description" and "parameters".${hint}`,
          node: key,
          fixes,
        });
      }
    }
  },
};
