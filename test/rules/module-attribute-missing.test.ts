// module-attribute-missing: an error on a `module:attribute` the server imports at start-up when the
// Python module beside the config binds no such name.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeConfig, applyEdits, auditProjectConfig, configSummaryOf, type ProjectFacts, type PythonModuleNames } from '../../runtime/src/rules';
import { unmark } from './helpers';
import { readPythonModule } from '../../runtime/src/workspace/pythonGraph';
import { moduleNamesOf } from '../../runtime/src/workspace/pythonModules';

const CODE = 'module-attribute-missing';
const PROJECT: ProjectFacts = { complete: true, handled: new Set(), computedHandlers: 0, declared: new Set() };
// The prod template's graph/agent.py: a ReactAgent and its checkpointer, no container.
const AGENT_MODULE: PythonModuleNames = { shown: 'graph/agent.py', names: ['ReactAgent', 'InMemoryCheckpointer', 'checkpointer', 'react_agent', 'app'] };

function missing(marked: string, modules: Record<string, PythonModuleNames | undefined>) {
  const { text, ranges } = unmark(marked);
  const config = configSummaryOf(analyzeConfig(text))!;
  const problems = auditProjectConfig({ config, project: PROJECT, covered: true, modules: (m) => modules[m] }).filter((p) => p.code === CODE);
  return { text, ranges, problems };
}

describe('module-attribute-missing', () => {
  test('the production template: "injectq" names a container graph/agent.py never binds', () => {
    const { ranges, problems } = missing('{"agent": "graph.agent:app", "injectq": ⟦"graph.agent:container"⟧}', { 'graph.agent': AGENT_MODULE });
    assert.deepEqual(
      problems.map((p) => ({ offset: p.offset, length: p.length })),
      ranges,
    );
    assert.equal(problems[0].severity, 'error');
    assert.equal(
      problems[0].message,
      `"injectq" names graph.agent:container, but graph/agent.py binds no top-level 'container': the server stops at start-up (module 'graph.agent' has no attribute 'container').`,
    );
    // No name of the module is close to 'container': no fix is guessed.
    assert.equal(problems[0].fixes, undefined);
  });

  test('every key the server imports at start-up is judged; checkpointer (never imported) and a bare authorization name are not', () => {
    const module: PythonModuleNames = { shown: 'graph/plugins.py', names: ['store', 'Namer', 'Backend', 'Auth'] };
    const { ranges, problems } = missing(
      `{"agent": "graph.agent:app",
        "store": ⟦"graph.plugins:stor"⟧,
        "thread_name_generator": ⟦"graph.plugins:Namr"⟧,
        "authorization": ⟦"graph.plugins:Backnd"⟧,
        "auth": {"method": "custom", "path": ⟦"graph.plugins:Auht"⟧},
        "checkpointer": "graph.plugins:nothing_here",
        "injectq": "graph.plugins:store"}`,
      { 'graph.plugins': module },
    );
    assert.deepEqual(
      problems.map((p) => ({ offset: p.offset, length: p.length })),
      ranges,
    );
    assert.deepEqual(
      problems.map((p) => p.message.slice(0, p.message.indexOf(' names'))),
      ['"store"', '"thread_name_generator"', '"authorization"', '"auth.path"'],
    );
    assert.equal(missing('{"agent": "a:b", "authorization": "ownership"}', { ownership: module }).problems.length, 0);
  });

  test('a close name is the fix: the attribute is replaced inside the string', () => {
    const { text, problems } = missing('{"agent": "graph.agent:app", "injectq": "graph.agent:contaner"}', {
      'graph.agent': { shown: 'graph/agent.py', names: ['app', 'container'] },
    });
    assert.match(problems[0].message, / Did you mean 'container'\?$/);
    assert.equal(problems[0].fixes?.length, 1);
    assert.equal(problems[0].fixes![0].title, "Change to 'container'");
    assert.equal(applyEdits(text, problems[0].fixes![0].edits), '{"agent": "graph.agent:app", "injectq": "graph.agent:container"}');
    // Written with an escape, the string is not edited: the message still says the name.
    const escaped = missing('{"agent": "graph.agent:app", "injectq": "graph.agent:cont\\u0061ner"}', { 'graph.agent': { shown: 'graph/agent.py', names: ['containers'] } });
    assert.match(escaped.problems[0].message, /no top-level 'contaner'/);
    assert.equal(escaped.problems[0].fixes, undefined);
  });

  test("a package's submodule is an attribute once imported, and a module not read whole is not judged", () => {
    const config = '{"agent": "graph.agent:app", "injectq": "graph:container"}';
    assert.equal(missing(config, { graph: { shown: 'graph/__init__.py', names: [], submodules: ['container', 'agent'] } }).problems.length, 0);
    assert.equal(missing(config, { graph: { shown: 'graph/__init__.py', names: [], submodules: ['agent'] } }).problems.length, 1);
    // Not beside the config, not parsed, or binding names no statement shows: the front end gives no names.
    assert.equal(missing(config, {}).problems.length, 0);
    // Without a front end that reads modules, nothing is judged.
    const { text } = unmark(config);
    assert.deepEqual(
      auditProjectConfig({ config: configSummaryOf(analyzeConfig(text))!, project: PROJECT, covered: true }).filter((p) => p.code === CODE),
      [],
    );
  });

  test('the names a module binds, as Python binds them: joined statements, an NFKC-normalized identifier, a BOM; locals() leaves them unknown', () => {
    const names = (source: string) => moduleNamesOf(readPythonModule(source), 'deps.py')?.names;
    assert.deepEqual(names('import os; container = object()\n'), ['os', 'container']);
    assert.deepEqual(names('\uff43ontainer = object()\n'), ['container']);
    assert.deepEqual(names('\ufeffstore = object()\n'), ['store']);
    assert.equal(names('locals()["container"] = object()\n'), undefined);
  });

  test('a value that is no import path is left to invalid-import-path; a text that is not JSON has no imports yet', () => {
    assert.equal(missing('{"agent": "a:b", "injectq": "graph/agent.py"}', { 'graph/agent.py': AGENT_MODULE }).problems.length, 0);
    assert.deepEqual(configSummaryOf(analyzeConfig('{"injectq": "graph.agent:container",}')), undefined);
  });
});
