// docs/rules.md cannot drift from the rule set: its sections follow the catalog, and every
// example and quick fix it shows is checked against what auditConfig actually reports.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  RULES,
  agentGraphOf,
  analyzeConfig,
  applySafeFixes,
  auditConfig,
  auditProjectConfig,
  auditProjectSource,
  configSummaryOf,
  pythonAgentGraphOf,
  ruleDocsAnchor,
  splitAgentSpec,
  type AgentGraph,
  type AuditOptions,
  type Fix,
  type Problem,
  type ProblemCode,
} from '../../runtime/src/rules/index';
import { analyzeSource } from '../../runtime/src/workspace/sourceAnalysis';
import { compiledGraphNames, pythonGraphOf, readPythonModule } from '../../runtime/src/workspace/pythonGraph';
import { moduleNamesOf } from '../../runtime/src/workspace/pythonModules';
import { RULES_DOC_PATH, exampleAgentUnresolved, exampleFiles, exampleGraph, readDocSections, serverStartedWithExample, type DocExample, type DocSection } from './docsExamples';

const CODES = Object.keys(RULES) as ProblemCode[];
/** Codes no file is meant to produce: documented, without examples. */
const WITHOUT_EXAMPLES = new Set<ProblemCode>(['internal-error']);

/** The project rules: their examples are judged with the project's one source, the `ts` block after each config. */
const PROJECT_CODES = new Set<ProblemCode>(['handler-missing', 'handler-undeclared', 'graph-not-read', 'module-attribute-missing']);

const sections = readDocSections();
const ruleSections = new Map(sections.filter((s) => s.heading in RULES).map((s) => [s.heading as ProblemCode, s]));

/** How an example is judged: against the example graph, in the example folder. */
function optionsOf(code: ProblemCode, example: DocExample): AuditOptions {
  const agentUnresolved = exampleAgentUnresolved(example.text);
  return { graph: exampleGraph(example.text, serverStartedWithExample(code, example)), files: exampleFiles(), ...(agentUnresolved === undefined ? {} : { agentUnresolved }) };
}

/**
 * The block that follows an example of a project rule's section: a `ts` source of the project, or
 * a `python` module of the example folder, whose first line names its file (`# graph/__init__.py`).
 */
function projectSourceOf(section: DocSection, example: DocExample): { language: 'ts' | 'python'; text: string } {
  const lines = readFileSync(RULES_DOC_PATH, 'utf8').split(/\r?\n/);
  let i = example.line - 1;
  while (i < lines.length && lines[i] !== '```') i++;
  i++;
  while (i < lines.length && lines[i].trim() === '') i++;
  assert.ok(lines[i] === '```ts' || lines[i] === '```python', `docs/rules.md:${i + 1}: the config of ${section.heading} is not followed by a \`\`\`ts or \`\`\`python block`);
  const end = lines.indexOf('```', i + 1);
  return { language: lines[i] === '```ts' ? 'ts' : 'python', text: lines.slice(i + 1, end).join('\n') + '\n' };
}

/** A project rule's example whose block is a Python module: the agent graph and the names read from it, as the editor reads them. */
function pythonProblemsOf(example: DocExample, source: string): Problem[] {
  const file = /^# (\S+\.py)\n/.exec(source)?.[1];
  assert.ok(file, `docs/rules.md:${example.line}: the python block after the config does not start with "# <file>.py"`);
  const module = file
    .replace(/(?:\/__init__)?\.py$/, '')
    .split('/')
    .join('.');
  const read = readPythonModule(source);
  const spec = /"agent"\s*:\s*"([^"]*)"/.exec(example.text)?.[1];
  const parts = spec === undefined ? undefined : splitAgentSpec(spec);
  const agent: AgentGraph | undefined =
    spec !== undefined && parts?.module === module ? pythonAgentGraphOf(file, file, pythonGraphOf(read, parts.exportName), { spec, graphs: compiledGraphNames(read) }) : undefined;
  const analysis = analyzeConfig(example.text, {
    files: exampleFiles(),
    ...(agent?.graph ? { graph: agent.graph, graphReadFrom: agent } : {}),
    ...(agent?.missing ? { agentUnresolved: agent.missing } : {}),
  });
  const summary = configSummaryOf(analysis)!;
  const project = { complete: true, handled: new Set<string>(), computedHandlers: 0, declared: new Set(summary.tools.flatMap((t) => (t.name ? [t.name.value] : []))) };
  const names = moduleNamesOf(read, file);
  return [
    ...analysis.problems,
    ...auditProjectConfig({ config: summary, project, covered: true, ...(agent && !agent.graph ? { agent } : {}), modules: (m) => (m === module ? names : undefined) }),
  ];
}

/**
 * Every problem of an example: of a project rule's example, judged as the editor judges it
 * without a server (the graph read from the source, the project rules over the config and the source).
 */
function problemsOf(code: ProblemCode, section: DocSection, example: DocExample): Problem[] {
  if (!PROJECT_CODES.has(code)) return auditConfig(example.text, optionsOf(code, example));
  const block = projectSourceOf(section, example);
  if (block.language === 'python') return pythonProblemsOf(example, block.text);
  const source = analyzeSource(block.text);
  const agent = agentGraphOf('graph.ts', source);
  const analysis = analyzeConfig(example.text, { files: exampleFiles(), ...(agent.graph ? { graph: agent.graph } : {}) });
  const summary = configSummaryOf(analysis)!;
  const project = {
    complete: true,
    handled: new Set(source.handlers.flatMap((h) => (h.name === undefined ? [] : [h.name]))),
    computedHandlers: source.handlers.filter((h) => h.name === undefined).length,
    declared: new Set(summary.tools.flatMap((t) => (t.name ? [t.name.value] : []))),
  };
  return [
    ...analysis.problems,
    ...auditProjectConfig({ config: summary, project, covered: true, ...(agent.graph ? {} : { agent }) }),
    ...auditProjectSource({ handlers: source.handlers, project }),
  ];
}

function sectionOf(code: ProblemCode): DocSection {
  const section = ruleSections.get(code);
  assert.ok(section, `docs/rules.md has no "## ${code}" section`);
  return section;
}

describe('docs/rules.md', () => {
  test('has one "## <code>" section per catalog code, in the catalog order, and no other section among them', () => {
    const first = sections.findIndex((s) => s.heading in RULES);
    assert.ok(first >= 0, 'no rule section at all');
    assert.deepEqual(
      sections.slice(first).map((s) => s.heading),
      CODES,
    );
    for (const code of CODES) assert.equal(ruleDocsAnchor(code), code, 'the heading is the anchor the diagnostics link to');
  });

  test("the index table gives each code its anchor link, the catalog's severity and the catalog's title", () => {
    const text = readFileSync(RULES_DOC_PATH, 'utf8');
    for (const code of CODES) {
      const row = text.split('\n').find((l) => l.startsWith(`| [\`${code}\`](`));
      assert.ok(row, `no index row for ${code}`);
      assert.equal(row, `| [\`${code}\`](#${ruleDocsAnchor(code)}) | ${RULES[code].severity} | ${RULES[code].title} |`);
    }
  });

  for (const code of CODES) {
    describe(code, () => {
      test("states the catalog's severity first", () => {
        const firstLine = sectionOf(code).body.find((l) => l.trim() !== '');
        assert.match(firstLine ?? '', new RegExp(`^\\*\\*Severity:\\*\\* ${RULES[code].severity}\\b`));
      });

      if (WITHOUT_EXAMPLES.has(code)) {
        test('has no example and says there is no quick fix', () => {
          const section = sectionOf(code);
          assert.equal(section.examples.length, 0);
          assert.ok(section.body.includes('**Quick fixes:** none.'));
        });
        return;
      }

      test('has at least one wrong and one fixed example', () => {
        const kinds = sectionOf(code).examples.map((e) => e.kind);
        assert.ok(kinds.includes('wrong'), 'no "Wrong:" example');
        assert.ok(kinds.includes('fixed'), 'no "Fixed:" example');
      });

      test(`each wrong example yields ${code}, and any other code it yields is named in the section`, () => {
        const section = sectionOf(code);
        for (const example of section.examples.filter((e) => e.kind === 'wrong')) {
          const problems = problemsOf(code, section, example);
          const mine = problems.filter((p) => p.code === code);
          assert.ok(mine.length > 0, `docs/rules.md:${example.line} (${example.label}) yields ${JSON.stringify(problems.map((p) => p.code))}, not ${code}`);
          for (const p of mine) assert.equal(p.severity, RULES[code].severity);
          const prose = section.body.join('\n');
          for (const other of new Set(problems.map((p) => p.code).filter((c) => c !== code))) {
            assert.ok(prose.includes(`\`${other}\``), `docs/rules.md:${example.line} also yields ${other}, which the section does not mention`);
          }
        }
      });

      test('each fixed example has no problem at all', () => {
        for (const example of sectionOf(code).examples.filter((e) => e.kind === 'fixed')) {
          const problems = problemsOf(code, sectionOf(code), example);
          assert.deepEqual(
            problems.map((p) => `${p.code}: ${p.message}`),
            [],
            `docs/rules.md:${example.line} (${example.label})`,
          );
        }
      });

      test('lists exactly the quick fixes its wrong examples are offered, marked preferred and safe as the rule set marks them', () => {
        const section = sectionOf(code);
        const offered = new Map<string, Fix>();
        for (const example of section.examples.filter((e) => e.kind === 'wrong')) {
          const problems = problemsOf(code, section, example);
          for (const p of problems.filter((x) => x.code === code)) for (const fix of p.fixes ?? []) offered.set(fix.title, fix);
        }
        assert.deepEqual(section.fixes.map((f) => f.title).sort(), [...offered.keys()].sort(), 'the "- `title`" lines of the section against the fixes the rule set offers');
        for (const listed of section.fixes) {
          const fix = offered.get(listed.title)!;
          const flags = listed.flags.split(/,\s*/).filter((f) => f !== '');
          assert.deepEqual(flags, [...(fix.isPreferred ? ['preferred'] : []), ...(fix.safe ? ['safe'] : [])], `flags of "${listed.title}"`);
        }
        if (offered.size === 0)
          assert.ok(
            section.body.some((l) => l.startsWith('**Quick fixes:** none')),
            'a section without quick fixes says "**Quick fixes:** none"',
          );
        else assert.ok(section.body.includes('**Quick fixes:**'), 'the quick fixes are introduced by "**Quick fixes:**"');
      });

      test('a wrong example offered a safe fix loses its problem under 10xgraph audit --fix', () => {
        for (const example of sectionOf(code).examples.filter((e) => e.kind === 'wrong')) {
          // The project rules' fixes edit a source, which --fix never writes.
          if (PROJECT_CODES.has(code)) continue;
          const options = optionsOf(code, example);
          const problems = auditConfig(example.text, options).filter((p) => p.code === code);
          if (problems.length === 0 || !problems.every((p) => p.fixes?.some((f) => f.safe))) continue;
          const fixed = applySafeFixes(example.text, options);
          assert.deepEqual(
            fixed.problems.filter((p) => p.code === code),
            [],
            `docs/rules.md:${example.line} after --fix:\n${fixed.text}`,
          );
          assert.doesNotThrow(() => JSON.parse(fixed.text));
        }
      });
    });
  }
});
