import { type Rule, shown } from '../context';

/** `duplicate-name`: each remote tool `name` is used once. */
export const duplicateName: Rule = {
  code: 'duplicate-name',
  check({ tree, tools, report }) {
    const first = new Map<string, number>();
    let taken: Set<string> | undefined;
    for (const tool of tools) {
      const name = tool.valid.name;
      if (name === undefined) continue;
      const earlier = first.get(name);
      const node = tool.field.name;
      if (earlier === undefined) {
        first.set(name, node);
        continue;
      }
      taken ??= new Set(tools.map((t) => t.valid.name).filter((n): n is string => n !== undefined));
      let n = 2;
      while (taken.has(`${name}_${n}`)) n++;
      const fresh = `${name}_${n}`;
      taken.add(fresh);
      const quoted = shown(name);
      report({
        code: 'duplicate-name',
        message: `The name '${quoted}' of remote_tools[${tool.index}] is already used by an earlier tool: remote tool names must be unique. Rename it (e.g. '${shown(fresh)}').`,
        node,
        related: [{ ...tree.span(earlier), message: `'${quoted}' is first used here.` }],
        fixes: [{ title: `Rename to '${shown(fresh)}'`, edits: [{ ...tree.span(node), newText: JSON.stringify(fresh) }], isPreferred: true }],
      });
    }
  },
};
