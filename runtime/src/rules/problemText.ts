import { LineIndex, type Problem } from '../rules/index';

/**
 * One problem as compilers print it: `FILE:LINE:COL: severity [code] message`, with a
 * one-based line and column (the column in UTF-16 code units), so terminals and editors
 * turn it into a link.
 */
export function formatProblemLine(file: string, lines: LineIndex | string, problem: Problem): string {
  const index = typeof lines === 'string' ? new LineIndex(lines) : lines;
  const { line, character } = index.positionAt(problem.offset);
  return `${file}:${line + 1}:${character + 1}: ${problem.severity} [${problem.code}] ${problem.message}`;
}

/** The LSP-style range of a problem (zero-based). */
export function problemRange(lines: LineIndex, problem: { offset: number; length: number }) {
  return { start: lines.positionAt(problem.offset), end: lines.positionAt(problem.offset + problem.length) };
}

/** "3 errors, 1 warning, 2 information" (omitting zero counts; "no problems" when all are zero). */
export function countProblems(problems: readonly Problem[]): string {
  const counts = { error: 0, warning: 0, information: 0 };
  for (const p of problems) counts[p.severity]++;
  const parts: string[] = [];
  if (counts.error) parts.push(`${counts.error} error${counts.error === 1 ? '' : 's'}`);
  if (counts.warning) parts.push(`${counts.warning} warning${counts.warning === 1 ? '' : 's'}`);
  if (counts.information) parts.push(`${counts.information} information`);
  return parts.length ? parts.join(', ') : 'no problems';
}
