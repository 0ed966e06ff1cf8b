import type { Rule } from '../context';

/** `vague-description`: a description of fewer than three words tells the model too little. */
export const vagueDescription: Rule = {
  code: 'vague-description',
  check({ tools, report }) {
    for (const tool of tools) {
      const description = tool.valid.description;
      if (description === undefined) continue;
      const words = description.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
      if (words >= 3) continue;
      report({
        code: 'vague-description',
        message: `The description of ${tool.label} has ${words === 1 ? 'one word' : `${words} words`}: say what the tool does and when to call it (e.g. "Read text from the user's clipboard.").`,
        node: tool.field.description!,
      });
    }
  },
};
