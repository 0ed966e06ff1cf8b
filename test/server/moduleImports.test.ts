/**
 * `module-attribute-missing` in the editor on a package the project index leaves out (a folder
 * that `.gitignore` names): its submodules are listed from its folder, as `10xgraph audit` lists
 * them, so a submodule named as the attribute is no false error, and the editor and `audit` agree.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TestClient, fileUri, tempFolder } from '../support/lspClient';
import { runCli } from '../support/run';

const CONFIG = JSON.stringify({ agent: 'graph:app', store: 'plugins:stor', thread_name_generator: 'plugins:namer' }, null, 2);

describe('module:attribute settings on a package outside the index', () => {
  const ws = tempFolder('10xgraph-module-imports-');
  let client: TestClient;

  before(async () => {
    mkdirSync(join(ws, 'plugins'), { recursive: true });
    writeFileSync(join(ws, '.gitignore'), 'plugins/\n');
    writeFileSync(join(ws, 'plugins', '__init__.py'), '');
    writeFileSync(join(ws, 'plugins', 'store.py'), 'store = object()\n');
    writeFileSync(join(ws, 'plugins', 'namer.py'), 'class Namer:\n    pass\n');
    writeFileSync(
      join(ws, 'graph.py'),
      'from tenxgraph.core.graph import Agent, StateGraph\n\ngraph = StateGraph()\ngraph.add_node("MAIN", Agent(model="m"))\napp = graph.compile()\n',
    );
    writeFileSync(join(ws, '10xgraph.json'), CONFIG);
    client = await TestClient.start({ workspaceFolders: [{ uri: fileUri(ws), name: 'imports' }], initializationOptions: { settings: { server: { enabled: false } } } });
  });
  after(async () => {
    await client.stop();
    rmSync(ws, { recursive: true, force: true });
  });

  test('a submodule is an attribute of its package; a name that is neither is the error, with the closest as its fix', async () => {
    const uri = fileUri(join(ws, '10xgraph.json'));
    await client.open(uri, CONFIG);
    const diagnostics = await client.pushed(uri, undefined, (d) => d.some((x) => x.code === 'module-attribute-missing'));
    const missing = diagnostics.filter((d) => d.code === 'module-attribute-missing');
    assert.deepEqual(
      missing.map((d) => d.message),
      [
        `"store" names plugins:stor, but plugins/__init__.py binds no top-level 'stor': the server stops at start-up (module 'plugins' has no attribute 'stor'). Did you mean 'store'?`,
      ],
    );
    assert.deepEqual(missing[0].range, { start: { line: 2, character: 11 }, end: { line: 2, character: 25 } });
    const audit = await runCli(['audit', '--format', 'json'], { cwd: ws });
    assert.equal(audit.code, 1, audit.stderr);
    const report = JSON.parse(audit.stdout) as { problems: Array<{ code: string; message: string; range: unknown }> };
    assert.deepEqual(
      report.problems.filter((p) => p.code === 'module-attribute-missing').map((p) => [p.message, p.range]),
      missing.map((d) => [d.message, d.range]),
    );
  });
});
