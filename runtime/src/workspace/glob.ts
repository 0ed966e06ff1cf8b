/**
 * The `10xgraph.files` globs: `**`, `*`, `?`, `[...]` (`[!...]`), `{a,b}`, with `/` as the only
 * separator (paths and globs are normalised before matching). A glob without a `/` matches a
 * file's base name anywhere, as VS Code's `files.associations` does.
 *
 * A glob may come from a workspace's settings, so it is untrusted: it is translated into a
 * regular expression that RE2 (`re2js`) runs, an automaton that matches in time linear in the
 * path whatever the pattern (a backtracking engine freezes on `*a*a*a…*b`). A glob that cannot
 * be translated (`[z-a]`, an unclosed `{`) is reported once and ignored; the others still apply.
 */
import { RE2JS } from 're2js';

/** Why a glob cannot be used, in words for people. */
export class GlobError extends Error {}

// Longer globs are refused: the automaton grows with the pattern.
const MAX_GLOB_LENGTH = 1000;
const MAX_BRACE_DEPTH = 10;
const MAX_CACHED = 500;
// More globs than this are not matched (each costs an automaton and a match per path).
export const MAX_GLOBS = 100;

const cache = new Map<string, RE2JS | GlobError>();

/** The glob as it is matched: `\` as `/`, without a leading `./`. */
function normalise(glob: string): string {
  return glob.replace(/\\/g, '/').replace(/^\.\//, '');
}

/** The compiled glob, or the reason it is not valid (cached: the same few globs are used all the time). */
function compiled(glob: string): RE2JS | GlobError {
  let entry = cache.get(glob);
  if (entry) return entry;
  try {
    entry = RE2JS.compile(`^${translate(glob)}$`);
  } catch (error) {
    entry = error instanceof GlobError ? error : new GlobError(`it cannot be compiled (${error instanceof Error ? error.message : String(error)})`);
  }
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(glob, entry);
  return entry;
}

/** One character as an RE2 literal (inside or outside a class). */
function literal(c: string): string {
  if (/^[A-Za-z0-9_]$/.test(c) || c.codePointAt(0)! > 0x7f) return c;
  if (/^[!-~]$/.test(c)) return `\\${c}`;
  return `\\x{${c.codePointAt(0)!.toString(16)}}`;
}

/** Translates a normalised glob into RE2 syntax; throws a `GlobError` saying what is wrong. */
function translate(glob: string): string {
  if (glob.length > MAX_GLOB_LENGTH) throw new GlobError(`it is longer than ${MAX_GLOB_LENGTH} characters`);
  const chars = [...glob];
  let out = '';
  let depth = 0;
  let i = 0;
  while (i < chars.length) {
    const c = chars[i];
    if (c === '*') {
      let j = i;
      while (chars[j] === '*') j++;
      const atSegmentStart = i === 0 || chars[i - 1] === '/';
      const atSegmentEnd = j === chars.length || chars[j] === '/';
      if (j - i >= 2 && atSegmentStart && atSegmentEnd) {
        if (chars[j] === '/') {
          // `**/` matches zero or more whole directories.
          out += '(?:[^/]*/)*';
          i = j + 1;
        } else {
          out += '(?s:.*)';
          i = j;
        }
        continue;
      }
      out += '[^/]*';
      i = j;
    } else if (c === '?') {
      out += '[^/]';
      i++;
    } else if (c === '[') {
      const cls = characterClass(chars, i);
      if (cls === undefined) {
        // An unclosed `[` is an ordinary character, as in the shells.
        out += literal(c);
        i++;
      } else {
        out += cls.source;
        i = cls.end;
      }
    } else if (c === '{') {
      if (++depth > MAX_BRACE_DEPTH) throw new GlobError(`its braces nest deeper than ${MAX_BRACE_DEPTH} levels`);
      out += '(?:';
      i++;
    } else if (c === '}' && depth > 0) {
      depth--;
      out += ')';
      i++;
    } else if (c === ',' && depth > 0) {
      out += '|';
      i++;
    } else {
      out += literal(c);
      i++;
    }
  }
  if (depth > 0) throw new GlobError('a { is not closed by a }');
  return out;
}

/**
 * The class that starts at `chars[start]` (`[`) as RE2 source, and where it ends; undefined when
 * no `]` closes it. A class never matches `/`: a range across it is split around it.
 */
function characterClass(chars: string[], start: number): { source: string; end: number } | undefined {
  let i = start + 1;
  const negated = chars[i] === '!' || chars[i] === '^';
  if (negated) i++;
  const ranges: Array<[number, number]> = [];
  const first = i;
  for (;;) {
    if (i >= chars.length) return undefined;
    let c = chars[i];
    if (c === ']' && i > first) break;
    if (c === '\\' && i + 1 < chars.length) c = chars[++i];
    let lo = c.codePointAt(0)!;
    let hi = lo;
    if (chars[i + 1] === '-' && i + 2 < chars.length && chars[i + 2] !== ']') {
      let end = chars[i + 2];
      i += 2;
      if (end === '\\' && i + 1 < chars.length) end = chars[++i];
      hi = end.codePointAt(0)!;
      if (hi < lo) throw new GlobError(`the range ${c}-${end} in its [...] is out of order`);
    }
    i++;
    if (negated) {
      ranges.push([lo, hi]);
      continue;
    }
    // `/` (0x2f) separates segments and is never matched by a class.
    if (lo <= 0x2f && hi >= 0x2f) {
      if (lo < 0x2f) ranges.push([lo, 0x2e]);
      if (hi > 0x2f) ranges.push([0x30, hi]);
      continue;
    }
    ranges.push([lo, hi]);
  }
  const text = chars.slice(start, i + 1).join('');
  if (negated) ranges.push([0x2f, 0x2f]);
  if (ranges.length === 0) throw new GlobError(`${text} matches no character (a / never matches inside [...])`);
  const body = ranges.map(([lo, hi]) => (lo === hi ? codePoint(lo) : `${codePoint(lo)}-${codePoint(hi)}`)).join('');
  return { source: `[${negated ? '^' : ''}${body}]`, end: i + 1 };
}

function codePoint(n: number): string {
  return `\\x{${n.toString(16)}}`;
}

/** Why `glob` cannot be used, in words for people, or undefined when it is valid. */
export function globProblem(glob: string): string | undefined {
  const entry = compiled(normalise(glob));
  return entry instanceof GlobError ? entry.message : undefined;
}

/**
 * Whether `path` (with `/` separators, relative or absolute) matches `glob`. A glob without
 * a `/` is matched against the base name too. An invalid glob matches nothing.
 */
export function matchGlob(glob: string, path: string): boolean {
  const normalised = normalise(glob);
  const re = compiled(normalised);
  if (re instanceof GlobError) return false;
  if (re.matches(path)) return true;
  if (!normalised.includes('/')) return re.matches(path.slice(path.lastIndexOf('/') + 1));
  // `**/x` should also match an absolute `/x`: try without the leading slash.
  return path.startsWith('/') && re.matches(path.slice(1));
}

/**
 * Whether any of `globs` (the first `MAX_GLOBS`) matches any of `paths`. An invalid glob is
 * skipped (the others still apply) and handed to `invalid` with the reason; so is the first
 * glob past the bound.
 */
export function matchAny(globs: readonly string[], paths: readonly string[], invalid?: (glob: string, reason: string) => void): boolean {
  let matched = false;
  if (globs.length > MAX_GLOBS) invalid?.(globs[MAX_GLOBS], `only the first ${MAX_GLOBS} of the ${globs.length} globs are used`);
  for (const glob of globs.slice(0, MAX_GLOBS)) {
    const problem = globProblem(glob);
    if (problem !== undefined) {
      invalid?.(glob, problem);
      continue;
    }
    if (!matched && paths.some((path) => matchGlob(glob, path))) matched = true;
  }
  return matched;
}
