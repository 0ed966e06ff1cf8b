import type { Rule } from '../context';
import { pythonStrip } from '../python';

/** The tool-name pattern model APIs accept. */
const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * `text` without leading and trailing underscores. A loop, not `/^_+|_+$/`: that expression
 * backtracks quadratically on a long run of underscores inside a name from the file.
 */
function trimUnderscores(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) === 95) start++;
  while (end > start && text.charCodeAt(end - 1) === 95) end--;
  return text.slice(start, end);
}

/** Why a tool's (trimmed) name does not fit the pattern model APIs accept, or undefined when it does. */
function invalidNameMessage(name: string): string | undefined {
  if (TOOL_NAME_PATTERN.test(name)) return undefined;
  const suggestion = trimUnderscores(name.replace(/[^A-Za-z0-9_-]+/g, '_')).slice(0, 64) || 'tool';
  return `The name '${name.length > 80 ? name.slice(0, 77) + '…' : name}' ${[name.length > 64 ? 'is longer than 64 characters' : '', /[^A-Za-z0-9_-]/.test(name) ? 'has characters other than letters, digits, _ and -' : ''].filter(Boolean).join(' and ')}: model APIs reject such tool names (^[A-Za-z0-9_-]{1,64}$). Use e.g. '${suggestion}'.`;
}

/**
 * Why `name` cannot be a remote tool's `name` (blank, or a name model APIs reject, as
 * `blank-field` and `invalid-tool-name` judge it), or undefined when it can: the predicate a
 * rename asks before it writes a new name.
 */
export function toolNameProblem(name: string): string | undefined {
  const trimmed = pythonStrip(name);
  if (trimmed === '') return `A tool's "name" cannot be ${name === '' ? 'empty' : 'only white space'}: give it a name.`;
  return invalidNameMessage(trimmed);
}

/** `invalid-tool-name`: `name` fits the pattern model APIs accept for tool names. */
export const invalidToolName: Rule = {
  code: 'invalid-tool-name',
  check({ tools, report }) {
    for (const tool of tools) {
      const name = tool.valid.name;
      const message = name === undefined ? undefined : invalidNameMessage(name);
      if (message === undefined) continue;
      report({ code: 'invalid-tool-name', message, node: tool.field.name });
    }
  },
};
