/**
 * How deep a JSON text nests, measured before it is parsed. `JSON.parse` itself copes with any
 * depth, but everything that walks the value afterwards (`JSON.stringify`, `structuredClone`,
 * schema compilers, the graph cache) recurses and dies with a stack overflow on an answer a
 * few thousand levels deep. One linear pass over the text, without recursion, refuses such an
 * answer first, so the caller can say what is wrong instead of failing somewhere later.
 */

/** The deepest nesting of objects and arrays the live graph accepts in an answer. */
export const MAX_ANSWER_DEPTH = 64;

/**
 * Whether `text` opens more than `maxDepth` objects and arrays inside one another. Brackets
 * inside strings do not count; the text need not be valid JSON (the parser judges that).
 */
export function nestsDeeperThan(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > maxDepth) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
    }
  }
  return false;
}
