/**
 * Runs the project rules (`project.ts`): on a config with the project's facts, or on a source.
 * A rule that throws is reported as `internal-error`, as in `analyzeConfig`.
 */
import { RULES, type ProblemCode } from './catalog';
import type { ConfigProjectRule, ProjectConfigInput, ProjectProblemInput, ProjectRule, ProjectSourceInput, SourceProjectRule } from './project';
import { PROJECT_RULES } from './rules/index';
import type { Problem } from './types';

function runRules<I>(rules: ReadonlyArray<{ code: ProblemCode; check(input: I, report: (p: ProjectProblemInput) => void): void }>, input: I): Problem[] {
  const problems: Problem[] = [];
  const report = (p: ProjectProblemInput) => {
    const problem: Problem = { code: p.code, severity: RULES[p.code].severity, message: p.message, offset: p.offset, length: p.length };
    if (p.related) problem.related = p.related;
    if (p.fixes && p.fixes.length) problem.fixes = p.fixes;
    problems.push(problem);
  };
  for (const rule of rules) {
    try {
      rule.check(input, report);
    } catch (error) {
      problems.push({
        code: 'internal-error',
        severity: RULES['internal-error'].severity,
        message: `The rule '${rule.code}' failed while checking the project: ${error instanceof Error ? error.message : String(error)}. Please report it; the other rules still ran.`,
        offset: 0,
        length: 0,
      });
    }
  }
  return problems.sort((a, b) => a.offset - b.offset || a.length - b.length);
}

/** The problems the project rules find in a config (offsets in the config's text). Never throws. */
export function auditProjectConfig(input: ProjectConfigInput, rules: readonly ProjectRule[] = PROJECT_RULES): Problem[] {
  return runRules(
    rules.filter((r): r is ConfigProjectRule => r.on === 'config'),
    input,
  );
}

/** The problems the project rules find in a source (offsets in the source's text). Never throws. */
export function auditProjectSource(input: ProjectSourceInput, rules: readonly ProjectRule[] = PROJECT_RULES): Problem[] {
  return runRules(
    rules.filter((r): r is SourceProjectRule => r.on === 'source'),
    input,
  );
}
