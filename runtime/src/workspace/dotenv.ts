/**
 * Dotenv files as python-dotenv reads them (the 10xGraph server loads its `env` file with it):
 * `NAME=value` and `export NAME=value` bindings, `#` comments, values bare (cut at a comment that
 * follows white space) or in single or double quotes (over several lines, `\` escaping the
 * quote); a later binding of a name replaces an earlier one; a binding that cannot be parsed is
 * skipped to the end of its line. One pass: linear in the length of the text, whatever it holds.
 * The language server keeps only names (`envNamesOf`); only `10xgraph api` takes values, to load
 * them into its own environment.
 */

/** One binding: the value as written (between its quotes, or bare), and how it was quoted. */
export interface DotenvBinding {
  raw: string;
  quote: '' | "'" | '"';
}

/**
 * The quote that closes the value opened at `open`, as python-dotenv's `'((?:\\'|[^'])*)'` finds
 * it: the first quote after one not preceded by `\`; when every later quote is, the last of them
 * (the pattern backtracks to it); -1 when there is none. The text after the result holds no
 * quote of this kind when the first search fails, so the parse stays linear.
 */
function closingQuote(text: string, open: number, quote: string): number {
  for (let j = open + 1; j < text.length; j++) if (text[j] === quote && text[j - 1] !== '\\') return j;
  const last = text.lastIndexOf(quote);
  return last > open ? last : -1;
}

/** White space as Python's `re` reads `\s` (without U+FEFF, which JavaScript counts and Python does not). */
function isSpace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d) || (code >= 0x1c && code <= 0x1f);
  if (code < 0x85) return false;
  return (
    code === 0x85 ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000
  );
}

const LF = 0x0a;
const CR = 0x0d;

function isLineBreak(code: number): boolean {
  return code === LF || code === CR;
}

/** White space other than a line break. */
function isBlank(code: number): boolean {
  return code !== LF && code !== CR && isSpace(code);
}

/** The bindings of a dotenv text, in order (a name bound twice comes twice). */
export function parseDotenv(text: string): Array<[string, DotenvBinding]> {
  const set: Array<[string, DotenvBinding]> = [];
  const n = text.length;
  let i = 0;
  const restOfLine = () => {
    while (i < n && !isLineBreak(text.charCodeAt(i))) i++;
  };
  const skipBlanks = () => {
    while (i < n && isBlank(text.charCodeAt(i))) i++;
  };
  while (i < n) {
    while (i < n && isSpace(text.charCodeAt(i))) i++;
    if (i >= n) break;
    if (text.startsWith('export', i) && i + 6 < n && isBlank(text.charCodeAt(i + 6))) {
      i += 6;
      skipBlanks();
    }
    // The key: `'quoted'` or up to `=`, `#` or white space. A `#` here starts a comment.
    let key: string | undefined;
    if (text[i] === '#') {
      restOfLine();
      continue;
    } else if (text[i] === "'") {
      const close = text.indexOf("'", i + 1);
      if (close < 0) {
        restOfLine();
        continue;
      }
      key = text.slice(i + 1, close);
      i = close + 1;
    } else {
      const start = i;
      while (i < n && text[i] !== '=' && text[i] !== '#' && !isSpace(text.charCodeAt(i))) i++;
      if (i === start) {
        restOfLine();
        continue;
      }
      key = text.slice(start, i);
    }
    skipBlanks();
    if (text[i] !== '=') {
      // A name without `=` sets nothing.
      restOfLine();
      continue;
    }
    i++;
    skipBlanks();
    const quote = text[i];
    let binding: DotenvBinding;
    if (quote === "'" || quote === '"') {
      const close = closingQuote(text, i, quote);
      if (close < 0) {
        restOfLine();
        continue;
      }
      binding = { raw: text.slice(i + 1, close), quote };
      i = close + 1;
      // After the closing quote only blanks and a comment may follow on the line.
      skipBlanks();
      if (i < n && text[i] === '#') restOfLine();
      if (i < n && !isLineBreak(text.charCodeAt(i))) {
        restOfLine();
        continue;
      }
    } else {
      // A bare value is the rest of the line, cut at a comment that follows white space.
      const start = i;
      restOfLine();
      binding = { raw: cutComment(text.slice(start, i)), quote: '' };
    }
    set.push([key, binding]);
  }
  return set;
}

/** A bare value without its comment and trailing white space. */
function cutComment(value: string): string {
  let end = value.length;
  for (let j = 1; j < value.length; j++) {
    if (value[j] === '#' && isSpace(value.charCodeAt(j - 1))) {
      end = j;
      break;
    }
  }
  while (end > 0 && isSpace(value.charCodeAt(end - 1))) end--;
  return value.slice(0, end);
}

/** The names a dotenv text sets to a non-empty value (values are looked at only to tell that). */
export function envNamesOf(text: string): ReadonlySet<string> {
  // The last binding of a name is the one that counts.
  const last = new Map(parseDotenv(text));
  return new Set([...last].filter(([, binding]) => binding.raw !== '').map(([name]) => name));
}

/** The escapes python-dotenv decodes in a double-quoted value. */
const ESCAPES: Readonly<Record<string, string>> = { n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\' };

/**
 * The values a dotenv text sets, as python-dotenv loads them: escapes decoded in double quotes,
 * `\\'` in single quotes, and `${NAME}` in bare and double-quoted values replaced by the value
 * bound so far (or by `environment`), binding after binding.
 */
export function dotenvValues(text: string, environment: Readonly<Record<string, string | undefined>> = {}): Map<string, string> {
  const values = new Map<string, string>();
  const expand = (value: string) => value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_all, name: string) => values.get(name) ?? environment[name] ?? '');
  for (const [name, { raw, quote }] of parseDotenv(text)) {
    if (quote === "'") values.set(name, raw.replace(/\\'/g, "'"));
    else if (quote === '"') values.set(name, expand(raw.replace(/\\([nrt"\\])/g, (_all, c: string) => ESCAPES[c])));
    else values.set(name, expand(raw));
  }
  return values;
}
