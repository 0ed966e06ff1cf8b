import type { Fix } from '../types';
import type { SourceProjectRule } from '../project';
import { byCloseness } from '../similarity';

// A declared name that can stand between the quotes of any literal as it is.
const SAFE_NAME = /^[^'"`\\\n\r$]*$/;

/**
 * `handler-undeclared`: each handler a source registers under a literal name is for a remote
 * tool some config of the project declares; the closest declared names are offered as fixes.
 * Judged once every config was read, and only when the project declares some tool.
 */
export const handlerUndeclared: SourceProjectRule = {
  code: 'handler-undeclared',
  on: 'source',
  check({ handlers, project }, report) {
    if (!project.complete || project.declared.size === 0) return;
    let names: string[] | undefined;
    for (const site of handlers) {
      if (site.name === undefined || project.declared.has(site.name)) continue;
      names ??= [...project.declared.keys()].filter((n) => SAFE_NAME.test(n));
      const fixes: Fix[] = [];
      const closest = byCloseness(site.name, names);
      if (site.inner && site.exact) {
        const { offset, length } = site.inner;
        closest.slice(0, 3).forEach((name, i) => fixes.push({ title: `Change to '${name}'`, edits: [{ offset, length, newText: name }], isPreferred: i === 0 }));
      }
      report({
        code: 'handler-undeclared',
        message: `No 10xgraph config of the workspace declares a remote tool named '${site.name}', so the server never hands this handler a call${fixes.length ? `; did you mean '${closest[0]}'?` : '.'}`,
        offset: site.offset,
        length: site.length,
        fixes,
      });
    }
  },
};
