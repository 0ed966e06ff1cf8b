/**
 * Code actions, built only from the fixes the rule set put in each diagnostic's `data` (one
 * action per candidate), and `source.fixAll.10xgraph`, which is the rule set's
 * `applySafeFixes` delivered as one edit.
 */
import type { CodeAction, Diagnostic, TextEdit, WorkspaceEdit } from 'vscode-languageserver';
import { CodeActionKind } from 'vscode-languageserver-types';
import type { TextEdit as OffsetEdit } from '10xgraph/rules';
import type { Positions } from '../positions';
import { fixesOf, rangeOf } from '../diagnostics';
import { RefreshGraphCommand } from '../../../common/commands';

/** The kind of the fix-all action; `source.fixAll` on save in VS Code picks it up. */
export const FIX_ALL_KIND = `${CodeActionKind.SourceFixAll}.10xgraph`;

/** The document an edit is for, and how the client wants edits shaped. */
export interface EditTarget {
  uri: string;
  version: number;
  lines: Positions;
  /** The client accepts `documentChanges` (versioned edits that it refuses on a stale document). */
  documentChanges: boolean;
}

/** Converts the rule set's offset edits into one workspace edit of the target document. */
function toWorkspaceEdit(target: EditTarget, edits: readonly OffsetEdit[]): WorkspaceEdit {
  const textEdits: TextEdit[] = edits.map((e) => ({ range: rangeOf(target.lines, e.offset, e.length), newText: e.newText }));
  if (target.documentChanges) {
    return { documentChanges: [{ textDocument: { uri: target.uri, version: target.version }, edits: textEdits }] };
  }
  return { changes: { [target.uri]: textEdits } };
}

/**
 * The quick fixes of the given diagnostics: one action per fix candidate. Diagnostics whose
 * data refers to another version of the document are skipped, as their offsets no longer hold.
 */
export function quickFixActions(target: EditTarget, diagnostics: readonly Diagnostic[]): CodeAction[] {
  const actions: CodeAction[] = [];
  for (const diagnostic of diagnostics) {
    const data = fixesOf(diagnostic);
    if (!data || (data.version !== undefined && data.version !== target.version)) continue;
    for (const fix of data.fixes) {
      const action: CodeAction = { title: fix.title, kind: CodeActionKind.QuickFix, diagnostics: [diagnostic] };
      if (fix.isPreferred) action.isPreferred = true;
      if (fix.command === 'refetch-graph') {
        action.command = { title: fix.title, command: RefreshGraphCommand.command, arguments: [target.uri] };
      } else if (fix.edits.length > 0) {
        action.edit = toWorkspaceEdit(target, fix.edits);
      } else {
        continue;
      }
      actions.push(action);
    }
  }
  return actions;
}

/** One edit that turns `before` into `after`: the changed middle between a common prefix and suffix. */
function minimalEdit(before: string, after: string): OffsetEdit {
  let start = 0;
  const max = Math.min(before.length, after.length);
  while (start < max && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  // Keep a surrogate pair whole.
  if (start > 0 && isHighSurrogate(before.charCodeAt(start - 1))) start--;
  let end = 0;
  while (end < max - start && before.charCodeAt(before.length - 1 - end) === after.charCodeAt(after.length - 1 - end)) end++;
  if (end > 0 && isLowSurrogate(before.charCodeAt(before.length - end))) end--;
  return { offset: start, length: before.length - start - end, newText: after.slice(start, after.length - end) };
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/** The fix-all action turning `before` into the rule set's `after`, or undefined when nothing changes. */
export function fixAllAction(target: EditTarget, before: string, after: string, applied: number): CodeAction | undefined {
  if (after === before || applied === 0) return undefined;
  return {
    title: applied === 1 ? 'Fix the safe 10xgraph problem' : `Fix all ${applied} safe 10xgraph problems`,
    kind: FIX_ALL_KIND,
    diagnostics: [],
    edit: toWorkspaceEdit(target, [minimalEdit(before, after)]),
  };
}

/** Whether a requested `only` list (absent: everything) admits actions of `kind`. */
export function kindRequested(only: readonly string[] | undefined, kind: string): boolean {
  if (!only || only.length === 0) return true;
  return only.some((k) => kind === k || kind.startsWith(`${k}.`));
}
