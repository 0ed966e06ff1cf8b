/**
 * Turns the rule set's problems (offsets) into LSP diagnostics (ranges). Nothing here judges
 * a file: it only converts, links each code to its documentation and carries the rule set's
 * fixes in `data`, so code actions never parse a message or re-run a rule.
 */
import type { Diagnostic, Range } from 'vscode-languageserver';
import { DiagnosticSeverity } from 'vscode-languageserver-types';
import { type Fix, type Problem, ruleDocsAnchor, type Severity } from '10xgraph/rules';
import type { Positions } from './positions';

/** Where `docs/rules.md` is published; each rule is a section of it. */
const RULES_DOCS_URL = 'https://github.com/10xgraph/10xgraph-tooling/blob/main/docs/rules.md';

/** The `source` of every diagnostic this server publishes. */
const DIAGNOSTIC_SOURCE = '10xgraph';

/** The code of the one diagnostic a file too large to check gets (not a rule: the file may be fine). */
export const FILE_TOO_LARGE_CODE = 'file-too-large';

/** Files longer than this (in UTF-16 code units, about 5 MB of ASCII) are not parsed while typing. */
export const MAX_DOCUMENT_LENGTH = 5 * 1024 * 1024;

/** What each 10xgraph diagnostic carries in `data`. */
export interface DiagnosticData {
  /** The rule set's quick fixes for the problem, untouched (offsets into the text of `version`). */
  fixes: Fix[];
  /** The document version the offsets refer to. */
  version?: number;
}

const SEVERITIES: Record<Severity, DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  information: DiagnosticSeverity.Information,
};

/** The LSP range of `length` code units at `offset`. */
export function rangeOf(lines: Positions, offset: number, length: number): Range {
  return { start: lines.positionAt(offset), end: lines.positionAt(offset + length) };
}

/** The link to the documentation of a rule. */
export function ruleDocsHref(code: Problem['code']): string {
  return `${RULES_DOCS_URL}#${ruleDocsAnchor(code)}`;
}

/** Converts one problem of the document `uri` (at `version`) into a diagnostic. */
export function toDiagnostic(problem: Problem, lines: Positions, uri: string, version?: number): Diagnostic {
  const diagnostic: Diagnostic = {
    range: rangeOf(lines, problem.offset, problem.length),
    severity: SEVERITIES[problem.severity],
    source: DIAGNOSTIC_SOURCE,
    code: problem.code,
    codeDescription: { href: ruleDocsHref(problem.code) },
    message: problem.message,
    data: { fixes: problem.fixes ?? [], version } satisfies DiagnosticData,
  };
  if (problem.related?.length) {
    diagnostic.relatedInformation = problem.related.map((r) => ({
      location: { uri, range: rangeOf(lines, r.offset, r.length) },
      message: r.message,
    }));
  }
  return diagnostic;
}

/** The one diagnostic of a file too large to check while typing. */
export function tooLargeDiagnostic(length: number): Diagnostic {
  const megabytes = (length / (1024 * 1024)).toFixed(1);
  return {
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } },
    severity: DiagnosticSeverity.Warning,
    source: DIAGNOSTIC_SOURCE,
    code: FILE_TOO_LARGE_CODE,
    message: `This file is ${megabytes} MB, over the ${MAX_DOCUMENT_LENGTH / (1024 * 1024)} MB the editor checks while you type; run \`npx 10xgraph audit <file>\` to check it.`,
  };
}

/** Reads the fixes a diagnostic carries, or undefined when it is not one of ours or carries none. */
export function fixesOf(diagnostic: Diagnostic): DiagnosticData | undefined {
  if (diagnostic.source !== DIAGNOSTIC_SOURCE) return undefined;
  const data = diagnostic.data as Partial<DiagnosticData> | undefined;
  if (!data || !Array.isArray(data.fixes)) return undefined;
  return { fixes: data.fixes, version: typeof data.version === 'number' ? data.version : undefined };
}
