/** The edit distance between two strings (insertions, deletions, substitutions, swaps of neighbours). */
function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  // Optimal string alignment: three rows suffice.
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  let current = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2] + 1);
      current[j] = d;
    }
    [before, previous, current] = [previous, current, before];
  }
  return previous[b.length];
}

/** `candidates` ordered by closeness to `word` (case-insensitive edit distance, then name). */
export function byCloseness(word: string, candidates: readonly string[]): string[] {
  const w = word.toLowerCase();
  return [...candidates]
    .map((c) => ({ c, d: editDistance(w, c.toLowerCase()) }))
    .sort((x, y) => x.d - y.d || x.c.localeCompare(y.c))
    .map((x) => x.c);
}

/** Whether `candidate` is close enough to `word` to be a likely typo of it. */
export function isLikelyTypo(word: string, candidate: string): boolean {
  const d = editDistance(word.toLowerCase(), candidate.toLowerCase());
  return d <= Math.max(1, Math.floor(candidate.length / 3));
}
