import type { Rule } from '../context';

/** `parameters-not-object`: `parameters`, when present, is a JSON Schema object. */
export const parametersNotObject: Rule = {
  code: 'parameters-not-object',
  check({ tools, report }) {
    for (const tool of tools) {
      const p = tool.parameters;
      if (!p || p.type === 'object') continue;
      report({
        code: 'parameters-not-object',
        message: `"parameters" of ${tool.label} must be a JSON Schema object such as {"type": "object", "properties": {}}, not ${p.type === 'null' ? 'null' : `a${p.type === 'array' ? 'n' : ''} ${p.type}`}.`,
        node: p,
      });
    }
  },
};
