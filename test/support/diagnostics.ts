/**
 * Parity between the language server and the rule set, in one comparable shape: what the
 * server must publish for a text (the rule set's problems as LSP diagnostics) and what it did.
 */
import type { Diagnostic } from 'vscode-languageserver-protocol';
import { LineIndex, type Problem } from '../../runtime/src/rules/index';

const SEVERITY = { error: 1, warning: 2, information: 3 } as const;

/** The rule set's `problems` of `text` as the server must publish them for `uri`. */
export function expectedDiagnostics(uri: string, text: string, problems: readonly Problem[]): unknown[] {
  const lines = new LineIndex(text);
  const range = (offset: number, length: number) => ({ start: lines.positionAt(offset), end: lines.positionAt(offset + length) });
  return problems.map((p) => ({
    code: p.code,
    severity: SEVERITY[p.severity],
    message: p.message,
    range: range(p.offset, p.length),
    related: (p.related ?? []).map((r) => ({ uri, range: range(r.offset, r.length), message: r.message })),
    fixes: p.fixes ?? [],
  }));
}

/** The published diagnostics in the same shape. */
export function publishedDiagnostics(diagnostics: readonly Diagnostic[]): unknown[] {
  return diagnostics.map((d) => ({
    code: d.code,
    severity: d.severity,
    message: d.message,
    range: d.range,
    related: (d.relatedInformation ?? []).map((r) => ({ uri: r.location.uri, range: r.location.range, message: r.message })),
    fixes: (d.data as { fixes: unknown[] }).fixes,
  }));
}
