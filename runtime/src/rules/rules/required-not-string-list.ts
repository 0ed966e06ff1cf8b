import type { Rule } from '../context';
import { valueOf } from '../context';

/** `required-not-string-list`: `parameters.required`, when present, is a list of strings. */
export const requiredNotStringList: Rule = {
  code: 'required-not-string-list',
  check({ tools, report }) {
    for (const tool of tools) {
      if (tool.parameters?.type !== 'object') continue;
      const required = valueOf(tool.parameters, 'required');
      if (!required) continue;
      if (required.type !== 'array') {
        report({
          code: 'required-not-string-list',
          message: `"parameters.required" of ${tool.label} must be a list of parameter names, e.g. ["query"].`,
          node: required,
        });
        continue;
      }
      for (const item of required.children!) {
        if (item.type === 'string') continue;
        report({
          code: 'required-not-string-list',
          message: `"parameters.required" of ${tool.label} must hold parameter names as strings; this item is ${item.type === 'null' ? 'null' : `a${item.type === 'array' || item.type === 'object' ? 'n' : ''} ${item.type}`}.`,
          node: item,
        });
      }
    }
  },
};
