/**
 * `.gitignore` files, read the way git reads them (the common part): blank lines and `#`
 * comments skipped, `!` re-includes, a trailing `/` matches folders only, a pattern with a `/`
 * elsewhere is anchored to the folder of its `.gitignore`, `*`, `?`, `[…]` and `**` as in git.
 */

interface IgnoreRule {
  regex: RegExp;
  negated: boolean;
  folderOnly: boolean;
}

/** The rules of one `.gitignore`, matched against paths relative to its folder (`/`-separated). */
export class GitIgnore {
  private readonly rules: IgnoreRule[];

  constructor(text: string) {
    this.rules = [];
    for (const rawLine of text.split(/\r?\n/)) {
      let line = rawLine.replace(/(?<!\\)\s+$/, '');
      if (line === '' || line.startsWith('#')) continue;
      const negated = line.startsWith('!');
      if (negated) line = line.slice(1);
      if (line.startsWith('\\')) line = line.slice(1);
      const folderOnly = line.endsWith('/');
      if (folderOnly) line = line.slice(0, -1);
      if (line === '') continue;
      const anchored = line.includes('/');
      if (line.startsWith('/')) line = line.slice(1);
      const body = toRegex(line);
      this.rules.push({ regex: new RegExp(anchored ? `^${body}$` : `(?:^|/)${body}$`), negated, folderOnly });
    }
  }

  /** Whether `relative` (a path below the folder of this file) is ignored; undefined when no rule speaks of it. */
  verdict(relative: string, isFolder: boolean): boolean | undefined {
    let result: boolean | undefined;
    for (const rule of this.rules) {
      if (rule.folderOnly && !isFolder) continue;
      if (rule.regex.test(relative)) result = !rule.negated;
    }
    return result;
  }
}

function toRegex(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') {
      if (glob[i + 1] === '*') {
        const slashAfter = glob[i + 2] === '/';
        out += slashAfter ? '(?:.*/)?' : '.*';
        i += slashAfter ? 2 : 1;
      } else out += '[^/]*';
    } else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const close = glob.indexOf(']', i + 1);
      if (close === -1) out += '\\[';
      else {
        out += `[${glob
          .slice(i + 1, close)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\')}]`;
        i = close;
      }
    } else if (c === '\\' && i + 1 < glob.length) {
      out += escapeChar(glob[++i]);
    } else out += escapeChar(c);
  }
  return out;
}

function escapeChar(c: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(c) ? `\\${c}` : c;
}
