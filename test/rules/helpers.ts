// Shared fixtures and assertions for the rule tests. Expected ranges are written into the
// text itself with ⟦ and ⟧ (as Prisma's tests mark a cursor with |), so a test
// reads like the file it checks and no offset is ever counted by hand.
import assert from 'node:assert/strict';
import { RULES, applyEdits, auditConfig } from '../../runtime/src/rules';
import type { AuditOptions, ConfigFiles, Graph, GraphNode, GraphTool, NodeKind, Problem, ProblemCode } from '../../runtime/src/rules';

/** Opens an expected range in a marked text. */
export const OPEN = '⟦';
/** Closes an expected range in a marked text. */
export const CLOSE = '⟧';

/** A range of the text, in UTF-16 code units. */
export interface Range {
  offset: number;
  length: number;
}

/**
 * Strips the ⟦ ⟧ markers from `marked` and returns the plain text with the ranges they
 * enclosed, in order of their opening marker. Markers may nest; `⟦⟧` is an empty range.
 */
export function unmark(marked: string): { text: string; ranges: Range[] } {
  let text = '';
  const open: number[] = [];
  const ranges: Range[] = [];
  for (const ch of marked) {
    if (ch === OPEN) open.push(text.length);
    else if (ch === CLOSE) {
      const start = open.pop();
      assert.ok(start !== undefined, `unbalanced ${CLOSE} in the marked text ${JSON.stringify(marked)}`);
      ranges.push({ offset: start, length: text.length - start });
    } else text += ch;
  }
  assert.equal(open.length, 0, `unbalanced ${OPEN} in the marked text ${JSON.stringify(marked)}`);
  return { text, ranges: ranges.sort((a, b) => a.offset - b.offset || a.length - b.length) };
}

/** Audits the unmarked text of `marked` and returns the text, the marked ranges and every problem. */
export function problemsAt(marked: string, options: AuditOptions = {}): { text: string; ranges: Range[]; problems: Problem[] } {
  const { text, ranges } = unmark(marked);
  return { text, ranges, problems: auditConfig(text, options) };
}

/** Options of `expectProblems`: the audit's own, and what every message of the code must contain. */
export interface ExpectOptions extends AuditOptions {
  /** Each must be found in (string, ignoring case) or match (RegExp) every message of the code. */
  messages?: Array<string | RegExp>;
  /** Also assert that the text has no problem of any other code. */
  only?: boolean;
}

/**
 * Asserts that the problems of `code` in the unmarked text are exactly at the marked
 * ranges, each with the catalog's severity (and, when asked, the given message content,
 * and no problem of another code). Returns the text and those problems, by position.
 */
export function expectProblems(marked: string, code: ProblemCode, options: ExpectOptions = {}): { text: string; problems: Problem[] } {
  const { messages = [], only = false, ...audit } = options;
  const { text, ranges, problems: all } = problemsAt(marked, audit);
  const problems = all.filter((p) => p.code === code);
  const describe = () =>
    JSON.stringify(
      all.map((p) => ({ code: p.code, offset: p.offset, length: p.length, at: text.slice(p.offset, p.offset + p.length), message: p.message })),
      null,
      1,
    );
  assert.deepEqual(
    problems.map((p) => ({ offset: p.offset, length: p.length })).sort((a, b) => a.offset - b.offset || a.length - b.length),
    ranges,
    `the ${code} problems are not at the marked ranges; all problems: ${describe()}`,
  );
  for (const p of problems) {
    assert.equal(p.severity, RULES[code].severity, `severity of ${code}`);
    for (const m of messages) {
      // Case-insensitive: a message may start with the tool's label, capitalised.
      if (typeof m === 'string') assert.ok(p.message.toLowerCase().includes(m.toLowerCase()), `the message ${JSON.stringify(p.message)} does not mention ${JSON.stringify(m)}`);
      else assert.match(p.message, m);
    }
  }
  if (only)
    assert.deepEqual(
      all.map((p) => p.code).filter((c) => c !== code),
      [],
      `other problems than ${code}: ${describe()}`,
    );
  return { text, problems };
}

/** Asserts that `text` has no problem of `code` (a valid neighbour of a failing case). */
export function expectNone(text: string, code: ProblemCode, options: AuditOptions = {}): void {
  const problems = auditConfig(text, options).filter((p) => p.code === code);
  assert.deepEqual(problems, [], `unexpected ${code} in ${JSON.stringify(text)}`);
}

/** Asserts that `text` has no problem at all. */
export function expectClean(text: string, options: AuditOptions = {}): void {
  const problems = auditConfig(text, options);
  assert.deepEqual(
    problems.map((p) => `${p.code} at ${p.offset}: ${p.message}`),
    [],
    `problems in ${JSON.stringify(text)}`,
  );
}

/** Applies the `index`-th fix of `problem` to `text` and returns the new text. */
export function applyFix(text: string, problem: Problem, index = 0): string {
  const fix = problem.fixes?.[index];
  assert.ok(fix, `${problem.code} at ${problem.offset} has no fix #${index}`);
  return applyEdits(text, fix.edits);
}

/** Asserts that `text` is strict JSON: `JSON.parse` takes it and the rule set finds no syntax error. */
export function assertStrictJson(text: string): void {
  assert.doesNotThrow(() => JSON.parse(text), `not JSON: ${JSON.stringify(text)}`);
  assert.ok(!auditConfig(text).some((p) => p.code === 'invalid-json'), `invalid-json in ${JSON.stringify(text)}`);
}

/**
 * Applies the `index`-th fix of `problem`, then asserts that the fixed text is strict JSON
 * (unless `strict` is false: an invalid-json fix in a text with other syntax errors) and that
 * fewer problems of that code remain. Returns the fixed text.
 */
export function checkFix(text: string, problem: Problem, index = 0, options: AuditOptions & { strict?: boolean } = {}): string {
  const { strict = true, ...audit } = options;
  const fixed = applyFix(text, problem, index);
  if (strict) assertStrictJson(fixed);
  const before = auditConfig(text, audit).filter((p) => p.code === problem.code);
  const after = auditConfig(fixed, audit).filter((p) => p.code === problem.code);
  assert.ok(
    after.length < before.length,
    `fix ${JSON.stringify(problem.fixes![index].title)} left ${after.length} ${problem.code} (was ${before.length}): ${JSON.stringify(fixed)}`,
  );
  return fixed;
}

/** The slice of `text` that `range` covers. */
export function textAt(text: string, range: Range): string {
  return text.slice(range.offset, range.offset + range.length);
}

/** A remote tool's description that no rule objects to. */
export const GOOD_DESCRIPTION = "Read text from the user's clipboard.";

/**
 * The text of one remote tool. `fields` override the valid defaults (`node` "TOOL",
 * `name` "read_clipboard", a good description); values are raw JSON text (markers allowed),
 * `undefined` drops a field. A key written with its quotes (or a marker) is kept as written.
 */
export function tool(fields: Record<string, string | undefined> = {}): string {
  const all: Record<string, string | undefined> = { node: '"TOOL"', name: '"read_clipboard"', description: JSON.stringify(GOOD_DESCRIPTION), ...fields };
  const members = Object.entries(all)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([key, value]) => `${key.startsWith('"') || key.startsWith(OPEN) ? key : JSON.stringify(key)}: ${value}`);
  return `{${members.join(', ')}}`;
}

/** A whole config with `agent` "graph:app" and the given tool texts in `remote_tools`. */
export function config(...tools: string[]): string {
  return `{"agent": "graph:app", "remote_tools": [${tools.join(', ')}]}`;
}

/** A graph node; ToolNodes get `tools` as [name, source] pairs. */
export function node(name: string, kind: NodeKind = 'tool_node', tools: Array<[string, GraphTool['source']]> = []): GraphNode {
  return kind === 'tool_node' ? { name, kind, tools: tools.map(([n, source]) => ({ name: n, description: `The ${n} tool.`, source })) } : { name, kind };
}

/** A graph of `nodes`: live with its tools known unless `extra` says otherwise. */
export function graph(nodes: GraphNode[], extra: Partial<Graph> = {}): Graph {
  return { origin: 'live', toolsKnown: true, nodes, edges: [], ...extra };
}

/** A whole config with `agent` "graph:app" and the given top-level members, written as raw JSON text (markers allowed). */
export function configWith(members: string): string {
  return `{"agent": "graph:app", ${members}}`;
}

/** What a front end knows of the files beside the config and of the environment, for `AuditOptions.files`. */
export interface FilesFixture {
  /** The paths (relative to the config's folder) that exist; without it, `fileExists` is not given. */
  exists?: string[];
  /** The names each readable dotenv file sets, by its path; without it, `envNames` is not given. */
  env?: Record<string, string[]>;
  /** The names the environment sets; without it, the environment is unknown. */
  environment?: string[];
}

/** The `ConfigFiles` of a fixture: only the parts it names are given, as a front end that knows only those would. */
export function configFiles(fixture: FilesFixture): ConfigFiles {
  const files: ConfigFiles = {};
  if (fixture.exists) {
    const exists = new Set(fixture.exists);
    files.fileExists = (path) => exists.has(path);
  }
  if (fixture.env) {
    const env = fixture.env;
    files.envNames = (path) => (Object.prototype.hasOwnProperty.call(env, path) ? new Set(env[path]) : undefined);
  }
  if (fixture.environment) files.environment = new Set(fixture.environment);
  return files;
}

/** The codes of every problem of the unmarked text, in order. */
export function codesIn(marked: string, options: AuditOptions = {}): ProblemCode[] {
  return problemsAt(marked, options).problems.map((p) => p.code);
}
