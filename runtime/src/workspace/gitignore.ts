/**
 * `.gitignore` files, read and matched as git reads and matches them (its `dir.c` and
 * `wildmatch.c`): lines starting with `#` are comments, trailing spaces are dropped unless
 * escaped (`\ `), `!` re-includes, a trailing `/` matches folders only, a pattern with a `/`
 * anywhere but at its end is anchored to the folder of its `.gitignore` (a leading `/` only
 * anchors), one without is matched against base names; `*`, `?`, `[…]` (ranges, `!` or `^`,
 * `[:alpha:]` and the other classes), `\` escapes and `**` (leading, trailing, or a whole folder between two `/`) as in git.
 * Names are matched as their UTF-8 bytes, as git matches them (`?` is one byte). The last
 * pattern that matches decides.
 *
 * A `.gitignore` comes with the repository, so it is untrusted: a pattern with wildcards is
 * translated into a regular expression that RE2 (`re2js`) runs, an automaton that matches in
 * time linear in the path whatever the pattern (a backtracking engine freezes on `*a*a*a…*b`
 * against a long name), as the `10xgraph.files` globs are (`glob.ts`). A pattern git would
 * never match (an unclosed `[`, an unknown `[:class:]`, a trailing `\`) matches nothing here
 * either; a line that cannot be used (too long, past the pattern bound) is reported with its
 * number and skipped, and the other lines still apply.
 */
import { RE2JS } from 're2js';

// Longer patterns are skipped: the automaton grows with the pattern (the bound of the globs).
const MAX_PATTERN_LENGTH = 1000;
/** Patterns past this many in one file are skipped: every path the index meets is matched against each. */
export const MAX_PATTERNS = 1000;

/** A line of a `.gitignore` that is not used, and why (in words for people). */
export interface IgnoreProblem {
  /** One-based. */
  line: number;
  reason: string;
}

interface IgnoreRule {
  negated: boolean;
  folderOnly: boolean;
  /** Matched against the base name alone (a pattern without `/`), else against the whole relative path. */
  basename: boolean;
  /** Whether the pattern matches `subject` (UTF-8 bytes as a Latin-1 string, see `bytesOf`). */
  matches: (subject: string) => boolean;
}

/** The rules of one `.gitignore`, matched against paths relative to its folder (`/`-separated). */
export class GitIgnore {
  private readonly rules: IgnoreRule[] = [];
  /** The lines that are not used, with why. */
  readonly problems: IgnoreProblem[] = [];

  constructor(text: string) {
    const lines = text.replace(/^\uFEFF/, '').split('\n');
    for (let n = 0; n < lines.length; n++) {
      const raw = lines[n];
      // git tests for a comment before it trims anything.
      if (raw === '' || raw.startsWith('#')) continue;
      const line = trimTrailingSpaces(raw.endsWith('\r') ? raw.slice(0, -1) : raw);
      if (line === '') continue;
      if (this.rules.length >= MAX_PATTERNS) {
        this.problems.push({ line: n + 1, reason: `only the first ${MAX_PATTERNS} patterns of a .gitignore are used` });
        break;
      }
      try {
        const rule = compileRule(line);
        if (rule) this.rules.push(rule);
      } catch (error) {
        this.problems.push({ line: n + 1, reason: error instanceof Error ? error.message : String(error) });
      }
    }
  }

  /** Whether `relative` (a path below the folder of this file) is ignored; undefined when no rule speaks of it. */
  verdict(relative: string, isFolder: boolean): boolean | undefined {
    const path = bytesOf(relative);
    const name = path.slice(path.lastIndexOf('/') + 1);
    // The last rule that matches decides: look from the end and stop at the first.
    for (let i = this.rules.length - 1; i >= 0; i--) {
      const rule = this.rules[i];
      if (rule.folderOnly && !isFolder) continue;
      if (rule.matches(rule.basename ? name : path)) return !rule.negated;
    }
    return undefined;
  }
}

/** Drops trailing spaces (not tabs) unless the last one is escaped, as git's `trim_trailing_spaces`. */
function trimTrailingSpaces(line: string): string {
  let lastSpace = -1;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === ' ') {
      if (lastSpace < 0) lastSpace = i;
    } else if (c === '\\') {
      i++;
      if (i >= line.length) return line;
      lastSpace = -1;
    } else lastSpace = -1;
  }
  return lastSpace < 0 ? line : line.slice(0, lastSpace);
}

/** `text` as its UTF-8 bytes, one character per byte: what git's byte-wise matching sees. */
function bytesOf(text: string): string {
  return /^[\x00-\x7f]*$/.test(text) ? text : Buffer.from(text, 'utf8').toString('latin1');
}

/** The rule of one trimmed, non-comment line, or undefined when it holds no pattern; throws when the line cannot be used. */
function compileRule(line: string): IgnoreRule | undefined {
  let pattern = line;
  const negated = pattern.startsWith('!');
  if (negated) pattern = pattern.slice(1);
  const folderOnly = pattern.endsWith('/');
  if (folderOnly) pattern = pattern.slice(0, -1);
  // A `/` left anywhere (even escaped or in a class, as git sees it) anchors the pattern.
  const basename = !pattern.includes('/');
  if (pattern.startsWith('/')) pattern = pattern.slice(1);
  if (pattern === '') return undefined;
  if (pattern.length > MAX_PATTERN_LENGTH) throw new Error(`the pattern is longer than ${MAX_PATTERN_LENGTH} characters`);
  return { negated, folderOnly, basename, matches: compileMatcher(bytesOf(pattern)) };
}

const NOTHING = () => false;

/** A matcher of `pattern` (bytes): a string comparison for the common plain shapes (`name`, `*.ext`), RE2 for the rest. */
function compileMatcher(pattern: string): (subject: string) => boolean {
  if (!/[*?[\\]/.test(pattern)) return (subject) => subject === pattern;
  const suffix = /^\*([^*?[\\/]*)$/.exec(pattern)?.[1];
  // The suffix holds no `/`, so the `*` before it matches only where the subject holds none.
  if (suffix !== undefined) return (subject) => subject.endsWith(suffix) && !subject.includes('/');
  const source = translate(pattern);
  if (source === undefined) return NOTHING;
  const re = RE2JS.compile(`^${source}$`);
  return (subject) => re.matches(subject);
}

/** One byte (a character below 256) as an RE2 literal. */
function literal(c: string): string {
  return /^[A-Za-z0-9_]$/.test(c) ? c : byte(c.charCodeAt(0));
}

function byte(n: number): string {
  return `\\x{${n.toString(16)}}`;
}

/** `pattern` (bytes) in RE2 syntax, as wildmatch reads it with `WM_PATHNAME`; undefined when it can match nothing. */
function translate(pattern: string): string | undefined {
  let out = '';
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i];
    if (c === '*') {
      let j = i;
      while (pattern[j] === '*') j++;
      // `**` is special only as a whole segment (after a `/` or at the start, before a `/` or at the end); else it is `*`.
      if (j - i >= 2 && (i === 0 || pattern[i - 1] === '/')) {
        if (j === pattern.length) {
          out += '(?s:.*)';
          i = j;
          continue;
        }
        if (pattern[j] === '/') {
          // Zero or more whole folders.
          out += '(?s:.*/)?';
          i = j + 1;
          continue;
        }
        if (pattern[j] === '\\' && pattern[j + 1] === '/') {
          // Before an escaped `/`, git lets `**` cross folders but does not skip the `/`.
          out += '(?s:.*)';
          i = j;
          continue;
        }
      }
      out += '[^/]*';
      i = j;
    } else if (c === '?') {
      out += '[^/]';
      i++;
    } else if (c === '[') {
      const cls = characterClass(pattern, i);
      if (cls === undefined) return undefined;
      out += cls.source;
      i = cls.end;
    } else if (c === '\\') {
      // A trailing `\` escapes nothing: git matches no name with it.
      if (i + 1 >= pattern.length) return undefined;
      out += literal(pattern[i + 1]);
      i += 2;
    } else {
      out += literal(c);
      i++;
    }
  }
  return out;
}

/** The bytes each `[:name:]` stands for (ASCII, as git's own ctype). */
const NAMED_CLASSES: Record<string, (b: number) => boolean> = {
  alnum: (b) => isAlpha(b) || isDigit(b),
  alpha: isAlpha,
  blank: (b) => b === 0x20 || b === 0x09,
  cntrl: (b) => b < 0x20 || b === 0x7f,
  digit: isDigit,
  graph: (b) => b > 0x20 && b < 0x7f,
  lower: (b) => b >= 0x61 && b <= 0x7a,
  print: (b) => b >= 0x20 && b < 0x7f,
  punct: (b) => b > 0x20 && b < 0x7f && !isAlpha(b) && !isDigit(b),
  space: (b) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d,
  upper: (b) => b >= 0x41 && b <= 0x5a,
  xdigit: (b) => isDigit(b) || (b >= 0x61 && b <= 0x66) || (b >= 0x41 && b <= 0x46),
};

function isAlpha(b: number): boolean {
  return (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a);
}

function isDigit(b: number): boolean {
  return b >= 0x30 && b <= 0x39;
}

/**
 * The class that starts at `pattern[start]` (`[`), read as wildmatch reads it, as RE2 source and
 * where it ends; undefined when the pattern can match nothing from there (no `]` closes the class,
 * an unknown `[:name:]`, or a class no byte is in, such as `[/]`). A range whose end comes before
 * its start (`[z-a]`) holds its first byte alone, as in git. A class never matches `/`.
 */
function characterClass(pattern: string, start: number): { source: string; end: number } | undefined {
  const members = new Array<boolean>(256).fill(false);
  let i = start + 1;
  const negated = pattern[i] === '!' || pattern[i] === '^';
  if (negated) i++;
  // The byte before a `-` (a range's start); -1 after a range or a named class, where `-` is itself.
  let previous = -1;
  let first = true;
  for (;;) {
    if (i >= pattern.length) return undefined;
    let c = pattern[i];
    if (c === ']' && !first) break;
    first = false;
    if (c === '\\') {
      if (++i >= pattern.length) return undefined;
      c = pattern[i];
      members[c.charCodeAt(0)] = true;
      previous = c.charCodeAt(0);
    } else if (c === '-' && previous >= 0 && i + 1 < pattern.length && pattern[i + 1] !== ']') {
      let end = pattern[++i];
      if (end === '\\') {
        if (++i >= pattern.length) return undefined;
        end = pattern[i];
      }
      for (let b = previous; b <= end.charCodeAt(0); b++) members[b] = true;
      previous = -1;
    } else if (c === '[' && pattern[i + 1] === ':') {
      const close = pattern.indexOf(']', i + 2);
      if (close < 0) return undefined;
      if (close - 1 < i + 2 || pattern[close - 1] !== ':') {
        // No `:]`: the `[` is an ordinary member.
        members[0x5b] = true;
        previous = 0x5b;
      } else {
        const test = NAMED_CLASSES[pattern.slice(i + 2, close - 1)];
        if (!test) return undefined;
        for (let b = 0; b < 256; b++) if (test(b)) members[b] = true;
        previous = -1;
        i = close;
      }
    } else {
      members[c.charCodeAt(0)] = true;
      previous = c.charCodeAt(0);
    }
    i++;
  }
  const ranges: string[] = [];
  // Bytes 1–255: a name never holds NUL, and `/` is never matched by a class.
  for (let b = 1; b < 256; b++) {
    if (b === 0x2f || members[b] === negated) continue;
    let hi = b;
    while (hi + 1 < 256 && hi + 1 !== 0x2f && members[hi + 1] !== negated) hi++;
    ranges.push(hi === b ? byte(b) : `${byte(b)}-${byte(hi)}`);
    b = hi;
  }
  if (ranges.length === 0) return undefined;
  return { source: `[${ranges.join('')}]`, end: i + 1 };
}
