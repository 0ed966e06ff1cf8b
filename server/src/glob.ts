/**
 * A small glob matcher for the `10xgraph.files` setting: `**`, `*`, `?`, `[...]` and `{a,b}`,
 * with `/` as the only separator (paths are normalised before matching). A pattern without a
 * `/` matches a file's base name anywhere, as VS Code's `files.associations` does.
 */

const cache = new Map<string, RegExp>();

/** Compiles a glob into an anchored regular expression (cached: the same few globs are used all the time). */
function globToRegExp(glob: string): RegExp {
  let re = cache.get(glob);
  if (re) return re;
  re = new RegExp(`^${translate(glob)}$`);
  if (cache.size > 500) cache.clear();
  cache.set(glob, re);
  return re;
}

function translate(glob: string): string {
  let out = '';
  let i = 0;
  let braceDepth = 0;
  while (i < glob.length) {
    const c = glob[i];
    if (c === '*') {
      if (glob[i + 1] === '*') {
        const atSegmentStart = i === 0 || glob[i - 1] === '/';
        let j = i;
        while (glob[j] === '*') j++;
        const atSegmentEnd = j === glob.length || glob[j] === '/';
        if (atSegmentStart && atSegmentEnd) {
          if (glob[j] === '/') {
            // `**/` matches zero or more whole directories.
            out += '(?:[^/]*/)*';
            i = j + 1;
          } else {
            out += '.*';
            i = j;
          }
          continue;
        }
        i = j;
        out += '[^/]*';
        continue;
      }
      out += '[^/]*';
      i++;
    } else if (c === '?') {
      out += '[^/]';
      i++;
    } else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end === -1) {
        out += '\\[';
        i++;
        continue;
      }
      let body = glob.slice(i + 1, end);
      if (body.startsWith('!')) body = '^' + body.slice(1);
      out += '[' + body.replace(/\\/g, '\\\\').replace(/\//g, '') + ']';
      i = end + 1;
    } else if (c === '{') {
      braceDepth++;
      out += '(?:';
      i++;
    } else if (c === '}' && braceDepth > 0) {
      braceDepth--;
      out += ')';
      i++;
    } else if (c === ',' && braceDepth > 0) {
      out += '|';
      i++;
    } else {
      out += c.replace(/[.+^$()|\\\]{}]/g, '\\$&');
      i++;
    }
  }
  while (braceDepth-- > 0) out += ')';
  return out;
}

/**
 * Whether `path` (with `/` separators, relative or absolute) matches `glob`. A glob without
 * a `/` is matched against the base name too.
 */
export function matchGlob(glob: string, path: string): boolean {
  const normalised = glob.replace(/\\/g, '/').replace(/^\.\//, '');
  if (globToRegExp(normalised).test(path)) return true;
  if (!normalised.includes('/')) {
    const base = path.slice(path.lastIndexOf('/') + 1);
    return globToRegExp(normalised).test(base);
  }
  // `**/x` should also match an absolute `/x`: try without the leading slash.
  return path.startsWith('/') && globToRegExp(normalised).test(path.slice(1));
}

/** Whether any of `globs` matches any of `paths`. */
export function matchAny(globs: readonly string[], paths: readonly string[]): boolean {
  return globs.some((glob) => paths.some((path) => matchGlob(glob, path)));
}
