import type { Rule } from '../context';

/** `vague-description`: a description of fewer than three words tells the model too little. */
export const vagueDescription: Rule = {
  code: 'vague-description',
  check({ tools, report }) {
    for (const tool of tools) {
      const description = tool.valid.description;
      if (description === undefined) continue;
      const words = countWords(description);
      if (words >= 3) continue;
      report({
        code: 'vague-description',
        message: `The description of ${tool.label} has ${words === 1 ? 'one word' : `${words} words`}: say what the tool does and when to call it (e.g. "Read text from the user's clipboard.").`,
        node: tool.field.description,
      });
    }
  },
};

/** Words: runs without white space holding a letter or digit (counted up to three). */
function countWords(text: string): number {
  let words = 0;
  let counted = false;
  for (let i = 0; i < text.length && words < 3; i++) {
    const ch = text.charCodeAt(i);
    const space = ch === 32 || (ch >= 9 && ch <= 13) || ch === 0xa0 || ch === 0x3000 || (ch >= 0x2000 && ch <= 0x200a);
    if (space) {
      counted = false;
      continue;
    }
    if (!counted && isWordChar(ch, text, i)) {
      words++;
      counted = true;
    }
  }
  return words;
}

function isWordChar(ch: number, text: string, i: number): boolean {
  if ((ch >= 48 && ch <= 57) || (ch >= 65 && ch <= 90) || (ch >= 97 && ch <= 122)) return true;
  if (ch < 128) return false;
  return /[\p{L}\p{N}]/u.test(String.fromCodePoint(text.codePointAt(i)!));
}
