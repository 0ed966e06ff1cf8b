import type { AuditOptions, Problem, TextEdit } from './types';
import { auditConfig } from './audit';

/** Applies `edits` (offsets into the original `text`, non-overlapping) and returns the new text. */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  const sorted = [...edits].sort((a, b) => b.offset - a.offset || b.length - a.length);
  let result = text;
  let limit = Infinity;
  for (const edit of sorted) {
    if (edit.offset + edit.length > limit) throw new Error(`Overlapping edits at offset ${edit.offset}.`);
    result = result.slice(0, edit.offset) + edit.newText + result.slice(edit.offset + edit.length);
    limit = edit.offset;
  }
  return result;
}

/**
 * Applies every safe quick fix, the preferred candidate of each problem, and audits again
 * until nothing safe is left (fixes that touch the same text wait for the next pass).
 * The editor's `source.fixAll.10xgraph` and `10xgraph audit --fix` both call this.
 */
export function applySafeFixes(text: string, options: AuditOptions = {}): { text: string; applied: number; problems: Problem[] } {
  let current = text;
  let applied = 0;
  for (let pass = 0; pass < 20; pass++) {
    const problems = auditConfig(current, options);
    const edits: TextEdit[] = [];
    const taken: Array<[number, number]> = [];
    let appliedThisPass = 0;
    for (const problem of problems) {
      const fix = problem.fixes?.find((f) => f.safe && f.edits.length > 0);
      if (!fix) continue;
      const overlaps = fix.edits.some((e) => taken.some(([s, end]) => e.offset <= end && s <= e.offset + e.length));
      if (overlaps) continue;
      for (const e of fix.edits) taken.push([e.offset, e.offset + e.length]);
      edits.push(...fix.edits);
      appliedThisPass++;
    }
    if (appliedThisPass === 0) return { text: current, applied, problems };
    current = applyEdits(current, edits);
    applied += appliedThisPass;
  }
  return { text: current, applied, problems: auditConfig(current, options) };
}
