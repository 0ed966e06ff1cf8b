/** Zero-based line and character (UTF-16 code units), as LSP counts them. */
export interface Position {
  line: number;
  character: number;
}

/**
 * Turns offsets into positions and back. Lines end at `\n`, `\r\n` or a lone `\r`, as LSP
 * defines them. Built once per text; each lookup is a binary search.
 */
export class LineIndex {
  private readonly starts: number[];

  constructor(private readonly text: string) {
    const starts = [0];
    // Without a `\r`, every line ends at a `\n`: the engine's search finds them faster than a loop.
    if (text.indexOf('\r') < 0) {
      for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
      this.starts = starts;
      return;
    }
    for (let i = 0; i < text.length; i++) {
      const ch = text.charCodeAt(i);
      if (ch === 13) {
        if (text.charCodeAt(i + 1) === 10) i++;
        starts.push(i + 1);
      } else if (ch === 10) {
        starts.push(i + 1);
      }
    }
    this.starts = starts;
  }

  /** The number of lines. */
  get lineCount(): number {
    return this.starts.length;
  }

  /** The position of `offset` (clamped to the text). */
  positionAt(offset: number): Position {
    const clamped = Math.max(0, Math.min(offset, this.text.length));
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= clamped) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, character: clamped - this.starts[lo] };
  }

  /** The offset of `position` (clamped to its line and the text). */
  offsetAt(position: Position): number {
    if (position.line < 0) return 0;
    if (position.line >= this.starts.length) return this.text.length;
    const start = this.starts[position.line];
    const next = position.line + 1 < this.starts.length ? this.starts[position.line + 1] : this.text.length;
    let lineEnd = next;
    if (position.line + 1 < this.starts.length) {
      // Exclude the line break itself.
      if (this.text.charCodeAt(lineEnd - 1) === 10) lineEnd--;
      if (this.text.charCodeAt(lineEnd - 1) === 13) lineEnd--;
    }
    return Math.max(start, Math.min(start + Math.max(0, position.character), lineEnd));
  }
}
