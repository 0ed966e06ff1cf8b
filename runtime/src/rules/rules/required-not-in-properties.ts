import type { Rule } from '../context';
import { propertyOf, valueOf } from '../context';

/** `required-not-in-properties`: every required parameter is described in `properties`. */
export const requiredNotInProperties: Rule = {
  code: 'required-not-in-properties',
  check({ tools, report }) {
    for (const tool of tools) {
      if (tool.parameters?.type !== 'object') continue;
      const required = valueOf(tool.parameters, 'required');
      const properties = valueOf(tool.parameters, 'properties');
      if (required?.type !== 'array') continue;
      if (properties && properties.type !== 'object') continue;
      for (const item of required.children!) {
        if (item.type !== 'string') continue;
        if (properties && propertyOf(properties, item.value as string)) continue;
        report({
          code: 'required-not-in-properties',
          message: `Required parameter '${item.value as string}' of ${tool.label} has no entry in "properties": describe it there, or remove it from "required".`,
          node: item,
        });
      }
    }
  },
};
