/**
 * What must hold of the rule set for any text at all. Each check throws an AssertionError that
 * says what broke, so a fast-check counterexample comes with its reason.
 */
import { pythonStrip } from '../../../runtime/src/rules/python';
import assert from 'node:assert/strict';
import { analyzeConfig, applyEdits, applySafeFixes, auditConfig, RULES, type AuditOptions, type Problem, type TextEdit } from '../../../runtime/src/rules/index';

/** The nesting the rule set refuses beyond (docs/spec.md §1: a strict parser, here with a bounded walk). */
export const MAX_DEPTH = 1000;

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/** Whether offset `i` falls between the two halves of a surrogate pair. */
export function splitsSurrogatePair(text: string, i: number): boolean {
  return i > 0 && i < text.length && isHigh(text.charCodeAt(i - 1)) && isLow(text.charCodeAt(i));
}

/** Asserts that `offset`/`length` lie inside `text` and cut no surrogate pair. */
export function assertSpan(text: string, offset: number, length: number, what: string): void {
  assert.ok(Number.isInteger(offset) && Number.isInteger(length), `${what}: offset ${offset} and length ${length} must be integers`);
  assert.ok(offset >= 0 && length >= 0 && offset + length <= text.length, `${what}: [${offset}, ${offset + length}) lies outside the text of length ${text.length}`);
  assert.ok(!splitsSurrogatePair(text, offset), `${what}: starts at ${offset}, inside a surrogate pair`);
  assert.ok(!splitsSurrogatePair(text, offset + length), `${what}: ends at ${offset + length}, inside a surrogate pair`);
}

/** The value JSON.parse reads, or why it refuses. */
export function strictParse(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

/** The deepest nesting of arrays and objects in a parsed value (0 for a scalar), without recursion. */
export function depthOf(value: unknown): number {
  let max = 0;
  const work: Array<[unknown, number]> = [[value, 0]];
  while (work.length) {
    const [v, d] = work.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    max = Math.max(max, d + 1);
    for (const child of Array.isArray(v) ? v : Object.values(v)) work.push([child, d + 1]);
  }
  return max;
}

/**
 * Where offset `fixedOffset` of an edited text came from in the original: text an edit wrote
 * maps to the edit's start; text the edits left alone maps back to its own place.
 */
export function originOf(fixedOffset: number, edits: readonly TextEdit[]): number {
  let shift = 0;
  for (const e of [...edits].sort((a, b) => a.offset - b.offset)) {
    const start = e.offset + shift;
    if (fixedOffset < start) break;
    if (fixedOffset < start + e.newText.length) return e.offset;
    shift += e.newText.length - e.length;
  }
  return fixedOffset - shift;
}

function describe(p: Problem): string {
  return `${p.code} at [${p.offset}, ${p.offset + p.length})`;
}

/** Checks every range a problem carries: its own, its related locations and its fixes' edits. */
export function assertProblemSpans(text: string, problems: readonly Problem[]): void {
  for (const p of problems) {
    assertSpan(text, p.offset, p.length, describe(p));
    for (const r of p.related ?? []) assertSpan(text, r.offset, r.length, `related location of ${describe(p)}`);
    for (const fix of p.fixes ?? []) {
      for (const e of fix.edits) assertSpan(text, e.offset, e.length, `edit of fix "${fix.title}" of ${describe(p)}`);
      if (fix.command === undefined) assert.ok(fix.edits.length > 0, `fix "${fix.title}" of ${describe(p)} has neither edits nor a command`);
    }
  }
}

/**
 * Every property the rule set owes any text (options as given):
 * never throws and no rule fails (`internal-error`); every range inside the text and on
 * code-point boundaries; severities from the catalogue; the same problems twice; `invalid-json`
 * exactly when JSON.parse refuses (or the text nests deeper than the bound), and then alone;
 * the config of an error-free text deep-equals JSON.parse's value; each offered fix removes its
 * problem at that place (and keeps strict JSON strict); `applySafeFixes` reaches a fixed point.
 */
export function assertRuleInvariants(text: string, options: AuditOptions = {}, checks: { fixes?: boolean } = {}): void {
  const analysis = analyzeConfig(text, options);
  const problems = analysis.problems;
  const internal = problems.find((p) => p.code === 'internal-error');
  assert.equal(internal, undefined, `a rule failed: ${internal?.message}`);
  assertProblemSpans(text, problems);
  for (const p of problems) assert.equal(p.severity, RULES[p.code].severity, `${p.code} has severity ${p.severity}, the catalogue says ${RULES[p.code].severity}`);

  assert.deepStrictEqual(auditConfig(text, options), problems, 'the same text gave different problems the second time');

  const parsed = strictParse(text);
  const invalid = problems.filter((p) => p.code === 'invalid-json');
  const tooDeep = parsed.ok && depthOf(parsed.value) > MAX_DEPTH;
  if (!parsed.ok || tooDeep) {
    assert.ok(
      invalid.length > 0,
      parsed.ok
        ? `the text nests ${depthOf(parsed.value)} deep but has no invalid-json problem`
        : `JSON.parse refuses the text (${parsed.error}) but there is no invalid-json problem`,
    );
    assert.equal(invalid.length, problems.length, 'a text with invalid-json problems has other problems too');
    if (tooDeep) assert.match(invalid[0].message, /deeper than 1000/);
  } else {
    assert.equal(invalid.length, 0, `JSON.parse reads the text but the rule set says: ${invalid[0]?.message}`);
  }

  const hasError = problems.some((p) => p.severity === 'error');
  if (!hasError) {
    assert.ok(parsed.ok, 'no error, yet JSON.parse refuses the text');
    assert.ok(analysis.config, 'no error, yet no config');
    assert.deepStrictEqual(analysis.config.raw, parsed.value, 'the config the runtime uses differs from JSON.parse');
    const raw = parsed.value as { agent: unknown; remote_tools?: Array<Record<string, unknown>> };
    assert.equal(analysis.config.agent, raw.agent);
    assert.deepStrictEqual(
      analysis.config.remoteTools,
      // As the server uses them: trimmed (Python's strip), `node_name` read as `node`, and the
      // missing parts of `parameters` filled in.
      (raw.remote_tools ?? []).map((t) => {
        const given = (t.parameters ?? {}) as Record<string, unknown>;
        return {
          node: pythonStrip(String(t.node ?? t.node_name)),
          name: pythonStrip(String(t.name)),
          description: pythonStrip(String(t.description)),
          parameters: { ...given, type: 'object', properties: given.properties ?? {}, required: given.required ?? [] },
        };
      }),
    );
  } else {
    assert.equal(analysis.config, undefined, 'a text with errors has a config');
  }

  if (checks.fixes === false) return;
  const strict = parsed.ok && !tooDeep;
  for (const p of problems) {
    for (const fix of p.fixes ?? []) {
      if (fix.edits.length === 0) continue;
      let fixed: string;
      try {
        fixed = applyEdits(text, fix.edits);
      } catch (error) {
        assert.fail(`fix "${fix.title}" of ${describe(p)} cannot be applied: ${(error as Error).message}`);
      }
      const after = auditConfig(fixed, options);
      // The problem is gone at its place when fewer problems of its code start there (several
      // `missing-field` share one `{`); text that slides into the place from later is not "there".
      const before = problems.filter((q) => q.code === p.code && q.offset === p.offset).length;
      const left = after.filter((q) => q.code === p.code && originOf(q.offset, fix.edits) === p.offset);
      assert.ok(left.length < before, `fix "${fix.title}" of ${describe(p)} leaves the problem there: ${left.map((q) => q.message).join(' | ')} in ${JSON.stringify(fixed)}`);
      if (strict) {
        const reparsed = strictParse(fixed);
        assert.ok(reparsed.ok, `fix "${fix.title}" of ${describe(p)} turns strict JSON into invalid JSON (${reparsed.ok ? '' : reparsed.error}): ${JSON.stringify(fixed)}`);
      }
    }
  }

  const once = applySafeFixes(text, options);
  assert.deepStrictEqual(once.problems, auditConfig(once.text, options), 'applySafeFixes returns problems of another text');
  const twice = applySafeFixes(once.text, options);
  assert.equal(twice.applied, 0, `applySafeFixes stopped short of a fixed point: ${JSON.stringify(once.text)} still has safe fixes`);
  assert.equal(twice.text, once.text);
  if (strict) assert.ok(strictParse(once.text).ok, `applySafeFixes turned strict JSON into invalid JSON: ${JSON.stringify(once.text)}`);
  assert.ok(!once.problems.some((p) => p.fixes?.some((f) => f.safe && f.edits.length > 0)), 'a safe fix is left after applySafeFixes');
}
