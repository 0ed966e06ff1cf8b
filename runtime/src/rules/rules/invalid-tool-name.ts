import type { Rule } from '../context';

/** The tool-name pattern model APIs accept. */
const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** `invalid-tool-name`: `name` fits the pattern model APIs accept for tool names. */
export const invalidToolName: Rule = {
  code: 'invalid-tool-name',
  check({ tools, report }) {
    for (const tool of tools) {
      const name = tool.valid.name;
      if (name === undefined || TOOL_NAME_PATTERN.test(name)) continue;
      const suggestion = name.replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 64) || 'tool';
      report({
        code: 'invalid-tool-name',
        message: `The name '${name.length > 80 ? name.slice(0, 77) + '…' : name}' ${[name.length > 64 ? 'is longer than 64 characters' : '', /[^A-Za-z0-9_-]/.test(name) ? 'has characters other than letters, digits, _ and -' : ''].filter(Boolean).join(' and ')}: model APIs reject such tool names (^[A-Za-z0-9_-]{1,64}$). Use e.g. '${suggestion}'.`,
        node: tool.field.name,
      });
    }
  },
};
