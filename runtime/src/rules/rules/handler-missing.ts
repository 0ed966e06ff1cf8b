import type { ConfigProjectRule } from '../project';

/**
 * `handler-missing`: each remote tool of a config has a handler some source of the project
 * registers (`registerToolHandler('name', …)` or `registerTool({ name: 'name', … })`, as the
 * 10xGraph clients take it). Only judged when the config lies in the project's read folders, every source was
 * read, some source registers handlers (otherwise the client lives elsewhere) and none registers
 * one under a computed name (which could be any tool).
 */
export const handlerMissing: ConfigProjectRule = {
  code: 'handler-missing',
  on: 'config',
  check({ config, project, covered }, report) {
    if (!covered || !project.complete || project.computedHandlers > 0 || project.handled.size === 0) return;
    for (const tool of config.tools) {
      const name = tool.name;
      if (!name || name.value.trim() === '' || project.handled.has(name.value)) continue;
      report({
        code: 'handler-missing',
        message: `No source in the workspace registers a handler for '${name.value}' (with registerToolHandler or registerTool): when the model calls it, the client will answer "Tool '${name.value}' not found". Register one with client.registerToolHandler('${name.value}', …) or client.registerTool({ name: '${name.value}', handler }).`,
        offset: name.offset,
        length: name.length,
      });
    }
  },
};
