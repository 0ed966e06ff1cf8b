import type { Rule } from '../context';
import type { JsonNode } from '../parse';

/** `duplicate-name`: each remote tool `name` is used once. */
export const duplicateName: Rule = {
  code: 'duplicate-name',
  check({ tools, report }) {
    const first = new Map<string, JsonNode>();
    const taken = new Set<string>();
    for (const tool of tools) if (tool.valid.name !== undefined) taken.add(tool.valid.name);
    for (const tool of tools) {
      const name = tool.valid.name;
      if (name === undefined) continue;
      const earlier = first.get(name);
      const node = tool.field.name!;
      if (!earlier) {
        first.set(name, node);
        continue;
      }
      let n = 2;
      while (taken.has(`${name}_${n}`)) n++;
      const fresh = `${name}_${n}`;
      taken.add(fresh);
      report({
        code: 'duplicate-name',
        message: `The name '${name}' of remote_tools[${tool.index}] is already used by an earlier tool: remote tool names must be unique. Rename it (e.g. '${fresh}').`,
        node,
        related: [{ offset: earlier.offset, length: earlier.length, message: `'${name}' is first used here.` }],
        fixes: [{ title: `Rename to '${fresh}'`, edits: [{ offset: node.offset, length: node.length, newText: JSON.stringify(fresh) }], isPreferred: true, safe: true }],
      });
    }
  },
};
