// Tool registrations as real front ends write them (test/fixtures/real-frontends: one source of our
// own per shape the public @10xscale/agentflow-client docs, examples, tests and the playground use,
// each naming the file it follows and the tools it registers). Each is held to its header through
// the source reader, the project rules, `10xgraph audit --project` and the language server:
// every registered tool is handled, an unregistered one is `handler-missing` on its name, and a
// registration under a computed name claims nothing missing.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Diagnostic } from 'vscode-languageserver-protocol/node';
import { analyzeConfig, auditProjectConfig, auditProjectSource, configSummaryOf, type ProjectFacts } from '../../runtime/src/rules';
import { analyzeSource } from '../../runtime/src/workspace/sourceAnalysis';
import { TestClient, fileUri, tempFolder } from '../support/lspClient';
import { ROOT, runCli } from '../support/run';
import { rangeOf } from '../support/textMarks';

const DIR = join(ROOT, 'test', 'fixtures', 'real-frontends');
/** The agent module every temporary project gets: a graph with the ToolNode `TOOL` its remote tools attach to. */
const GRAPH = join(ROOT, 'test', 'fixtures', 'project', 'graph.ts');
/** A declared tool no fixture registers. */
const MISSING = 'never_registered';
/** What a computed fixture's config declares: tools the user defines at run time. */
const RUNTIME_TOOLS = ['tool_from_the_store', 'another_user_tool'];

interface FrontEnd {
  file: string;
  text: string;
  follows: string;
  /** The registrations in text order: a name, or null for a computed one. */
  registers: Array<string | null>;
}

function headerLine(text: string, key: string, file: string): string {
  const prefix = `// ${key}: `;
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  assert.ok(line, `${file} has a '${prefix.trim()}' header`);
  return line.slice(prefix.length).trim();
}

const FRONT_ENDS: FrontEnd[] = readdirSync(DIR)
  .sort()
  .map((file) => {
    const text = readFileSync(join(DIR, file), 'utf8');
    const registers = headerLine(text, 'Registers', file)
      .split(',')
      .map((n) => n.trim())
      .map((n) => (n === 'computed' ? null : n));
    return { file, text, follows: headerLine(text, 'Follows', file), registers };
  });

const literalNames = (f: FrontEnd) => f.registers.filter((n): n is string => n !== null);
const isComputed = (f: FrontEnd) => f.registers.includes(null);
/** The tools a project around `f` declares: the ones it registers, or (computed) the user's own. */
const declaredBy = (f: FrontEnd) => (isComputed(f) ? RUNTIME_TOOLS : literalNames(f));

/** A 10xgraph.json declaring `names` as remote tools of the ToolNode `TOOL`. */
function configOf(names: readonly string[]): string {
  const tools = names.map((name) => ({
    node: 'TOOL',
    name,
    description: `Runs ${name} in the user's browser and returns what it finds.`,
    parameters: { type: 'object', properties: {}, required: [] },
  }));
  return JSON.stringify({ agent: 'graph:app', remote_tools: tools }, null, 2) + '\n';
}

/** The project facts of `sources`, as audit --project and the editor gather them. */
function factsOf(sources: readonly string[], declared: readonly string[]): ProjectFacts {
  const handled = new Set<string>();
  let computedHandlers = 0;
  for (const source of sources) for (const h of analyzeSource(source).handlers) h.name === undefined ? computedHandlers++ : handled.add(h.name);
  return { complete: true, handled, computedHandlers, declared: new Set(declared) };
}

/** The project rules on a config and its sources: the config's problems, then each source's. */
function ruleSet(config: string, sources: readonly string[], declared: readonly string[]) {
  const facts = factsOf(sources, declared);
  const summary = configSummaryOf(analyzeConfig(config));
  assert.ok(summary, 'the config parses');
  return {
    config: auditProjectConfig({ config: summary, project: facts, covered: true }),
    sources: sources.map((s) => auditProjectSource({ handlers: analyzeSource(s).handlers, project: facts })),
  };
}

interface JsonReport {
  files: Array<{ file: string; problems: Array<{ code: string; message: string; range: unknown }> }>;
}

const made: string[] = [];
after(() => {
  for (const folder of made) rmSync(folder, { recursive: true, force: true });
});

/** A temporary project: graph.ts, the config and `sources` (path → text). */
function project(config: string, sources: Record<string, string>): string {
  const ws = tempFolder('10xgraph-real-frontends-');
  made.push(ws);
  cpSync(GRAPH, join(ws, 'graph.ts'));
  writeFileSync(join(ws, '10xgraph.json'), config);
  for (const [path, text] of Object.entries(sources)) {
    mkdirSync(join(ws, path, '..'), { recursive: true });
    writeFileSync(join(ws, path), text);
  }
  return ws;
}

/** `10xgraph audit --project` on `ws`: each file's problems as code and range (the messages checked apart). */
async function audit(ws: string): Promise<{ problems: Record<string, Array<{ code: string; range: unknown }>>; messages: string[] }> {
  const run = await runCli(['audit', '--project', '.', '--format', 'json'], { cwd: ws });
  assert.equal(run.stderr, '');
  assert.equal(run.code, 0, run.stdout);
  const report = JSON.parse(run.stdout) as JsonReport;
  const problems: Record<string, Array<{ code: string; range: unknown }>> = {};
  for (const f of report.files) problems[f.file] = f.problems.map((p) => ({ code: p.code, range: p.range }));
  return { problems, messages: report.files.flatMap((f) => f.problems.map((p) => p.message)) };
}

/** What audit --project says of a project whose config (text `config`) misses handlers for `missing`: handler-missing on each name, nothing else anywhere. */
function expectedReport(config: string, sources: readonly string[], missing: readonly string[]): Record<string, Array<{ code: string; range: unknown }>> {
  const expected: Record<string, Array<{ code: string; range: unknown }>> = {
    '10xgraph.json': missing.map((name) => ({ code: 'handler-missing', range: rangeOf(config, JSON.stringify(name)) })),
    'graph.ts': [],
  };
  for (const path of sources) expected[path] = [];
  return expected;
}

describe('real front ends: the fixtures', () => {
  test('one per shape the public front ends write, each naming the file it follows', () => {
    assert.ok(FRONT_ENDS.length >= 10, `${FRONT_ENDS.length} fixtures`);
    for (const f of FRONT_ENDS) {
      assert.match(f.follows, /^10xHub\/agentflow-(?:client|docs|playground) \S+ \(.+\)$/, f.file);
      assert.ok(f.registers.length > 0, f.file);
    }
    const shapes = FRONT_ENDS.map((f) => f.text);
    // registerTool({ … }) with a literal name, registerTool(const), a React ref, a loop, a parameter, the mixed state.
    assert.ok(shapes.some((t) => /\bclient\.registerTool\(\{/.test(t)));
    assert.ok(shapes.some((t) => /\bclient\.registerTool\([A-Za-z]+\);/.test(t)));
    assert.ok(shapes.some((t) => t.includes('client.current.registerTool({')));
    assert.ok(shapes.some((t) => t.includes('name: t.name')));
    assert.ok(shapes.some((t) => t.includes('(tool) => client.registerTool(tool)')));
    assert.ok(shapes.some((t) => t.includes('registerToolHandler(') && t.includes('registerTool(')));
    // Names are unique across the fixtures, so that they can share one project.
    const all = FRONT_ENDS.flatMap(literalNames);
    assert.equal(new Set(all).size, all.length);
    assert.ok(!all.includes(MISSING));
  });
});

for (const f of FRONT_ENDS) {
  describe(`real front end ${f.file}: ${f.registers.map((n) => n ?? 'computed').join(', ')}`, () => {
    test('the reader gives exactly the registrations of its header, each literal on its name', () => {
      const handlers = analyzeSource(f.text).handlers;
      assert.deepEqual(
        handlers.map((h) => h.name ?? null),
        f.registers,
      );
      for (const h of handlers) {
        const site = f.text.slice(h.offset, h.offset + h.length);
        if (h.name === undefined) assert.equal(h.inner, undefined, site);
        else {
          assert.ok(site === `'${h.name}'` || site === `"${h.name}"`, `${h.name} at ${site}`);
          assert.deepEqual([h.exact, f.text.slice(h.inner!.offset, h.inner!.offset + h.inner!.length)], [true, h.name]);
        }
      }
    });

    test('the rule set: silent when every declared tool is registered; one missing is handler-missing on its name, unless a name is computed', () => {
      const declared = declaredBy(f);
      const complete = configOf(declared);
      const whole = ruleSet(complete, [f.text], declared);
      assert.deepEqual(whole.config, []);
      assert.deepEqual(whole.sources, [[]]);

      const withMissing = configOf([...declared, MISSING]);
      const judged = ruleSet(withMissing, [f.text], [...declared, MISSING]);
      assert.deepEqual(judged.sources, [[]]);
      if (isComputed(f)) {
        assert.deepEqual(judged.config, []);
        return;
      }
      const at = withMissing.indexOf(JSON.stringify(MISSING));
      assert.deepEqual(
        judged.config.map((p) => [p.code, p.offset, p.length]),
        [['handler-missing', at, MISSING.length + 2]],
      );
      assert.match(judged.config[0].message, new RegExp(`'${MISSING}'.*registerToolHandler.*registerTool\\(\\{ name: '${MISSING}'`));
    });

    test('audit --project: the same on a project of its own', async () => {
      const path = `src/${f.file}`;
      const declared = declaredBy(f);
      const ws = project(configOf(declared), { [path]: f.text });
      assert.deepEqual((await audit(ws)).problems, expectedReport(configOf(declared), [path], []));

      const withMissing = configOf([...declared, MISSING]);
      writeFileSync(join(ws, '10xgraph.json'), withMissing);
      const { problems, messages } = await audit(ws);
      assert.deepEqual(problems, expectedReport(withMissing, [path], isComputed(f) ? [] : [MISSING]));
      for (const message of messages) assert.match(message, /registerToolHandler.*registerTool/);
    });
  });
}

describe('real front ends together: the mixed state', () => {
  const literal = FRONT_ENDS.filter((f) => !isComputed(f));
  const declared = literal.flatMap(literalNames);
  const config = configOf(declared);
  const sources = Object.fromEntries(literal.map((f) => [`web/${f.file}`, f.text]));
  const viaRegisterTool = literal.find((f) => f.file === 'readme_literal.ts')!;
  const mixed = literal.find((f) => f.file === 'mixed_migration.ts')!;

  test('tools registered with registerTool({ … }) beside tools registered with registerToolHandler: none is missing', async () => {
    assert.ok(mixed.text.includes("client.registerToolHandler('list_open_tabs'") && mixed.text.includes('client.registerTool({'));
    const whole = ruleSet(config, Object.values(sources), declared);
    assert.deepEqual(whole.config, []);
    assert.deepEqual(
      whole.sources,
      literal.map(() => []),
    );
    const ws = project(config, sources);
    assert.deepEqual((await audit(ws)).problems, expectedReport(config, Object.keys(sources), []));
  });

  test('without the file of one API, exactly its tools are missing; with a computed registration, nothing is claimed', async () => {
    const without = { ...sources };
    delete without[`web/${viaRegisterTool.file}`];
    const ws = project(config, without);
    assert.deepEqual((await audit(ws)).problems, expectedReport(config, Object.keys(without), literalNames(viaRegisterTool)));

    const withoutMixed = { ...sources };
    delete withoutMixed[`web/${mixed.file}`];
    const rules = ruleSet(config, Object.values(withoutMixed), declared);
    assert.deepEqual(
      rules.config.map((p) => config.slice(p.offset + 1, p.offset + p.length - 1)),
      literalNames(mixed).sort((a, b) => config.indexOf(`"${a}"`) - config.indexOf(`"${b}"`)),
    );

    const computed = FRONT_ENDS.find((f) => f.file === 'store_loop_computed.js')!;
    const silent = project(config, { ...without, [`web/${computed.file}`]: computed.text });
    assert.deepEqual((await audit(silent)).problems, expectedReport(config, [...Object.keys(without), `web/${computed.file}`], []));
  });
});

describe('real front ends in the language server', () => {
  const f = FRONT_ENDS.find((x) => x.file === 'react_ref.tsx')!;
  const config = configOf([...literalNames(f), MISSING]);
  let client: TestClient;
  let ws = '';

  before(async () => {
    ws = project(config, { [`src/${f.file}`]: f.text });
    client = await TestClient.start({ workspaceFolders: [{ uri: fileUri(ws), name: 'real-frontend' }], initializationOptions: { settings: { server: { enabled: false } } } });
  });
  after(async () => {
    await client?.stop();
  });

  test('handler-missing comes on the unregistered tool, goes when the component registers it through its ref, and comes back', async () => {
    const configUri = fileUri(join(ws, '10xgraph.json'));
    const missing = (d: Diagnostic[]) => d.filter((x) => x.code === 'handler-missing');
    await client.open(configUri, config);
    const shown = await client.pushed(configUri, undefined, (d) => missing(d).length > 0);
    assert.deepEqual(
      shown.map((d) => [d.code, d.range]),
      [['handler-missing', rangeOf(config, JSON.stringify(MISSING))]],
    );
    assert.match(shown[0].message, /registerToolHandler.*registerTool/);

    const sourceUri = fileUri(join(ws, 'src', f.file));
    await client.open(sourceUri, f.text, 'typescriptreact');
    const anchor = '    void client.current.setup();';
    assert.ok(f.text.includes(anchor));
    const registered = f.text.replace(anchor, `    client.current?.registerTool({ node: 'TOOL', name: '${MISSING}', handler: async () => null });\n${anchor}`);
    await client.change(sourceUri, registered);
    assert.deepEqual(await client.pushed(configUri, undefined, (d) => missing(d).length === 0), []);

    await client.change(sourceUri, f.text);
    await client.pushed(configUri, undefined, (d) => missing(d).length === 1);
    await client.close(sourceUri);
    await client.close(configUri);
  });
});
