/** The edit distance between two strings (insertions, deletions, substitutions). */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length];
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
