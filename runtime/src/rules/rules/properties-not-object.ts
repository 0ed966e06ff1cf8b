import type { Rule } from '../context';
import { valueOf } from '../context';

/** `properties-not-object`: `parameters.properties`, when present, is an object. */
export const propertiesNotObject: Rule = {
  code: 'properties-not-object',
  check({ tools, report }) {
    for (const tool of tools) {
      if (tool.parameters?.type !== 'object') continue;
      const properties = valueOf(tool.parameters, 'properties');
      if (!properties || properties.type === 'object') continue;
      report({
        code: 'properties-not-object',
        message: `"parameters.properties" of ${tool.label} must be an object mapping each parameter to its schema, not ${properties.type === 'null' ? 'null' : `a${properties.type === 'array' ? 'n' : ''} ${properties.type}`}.`,
        node: properties,
      });
    }
  },
};
