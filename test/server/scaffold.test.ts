/**
 * A project as `10xgraph init` scaffolds it (the quick-start and the production templates:
 * `graph/agent.py` on the prebuilt ReactAgent, and the `10xgraph.json` the init writes), judged
 * by `10xgraph audit`, `audit --project` and the editor: a misspelt node in `remote_tools` is
 * `node-not-found`; the production template's `"injectq": "graph.agent:container"`, which its
 * `graph/agent.py` never binds, is `module-attribute-missing`; an `agent` naming a name the module
 * does not bind is `agent-not-found`.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CodeActionRequest, type Diagnostic } from 'vscode-languageserver-protocol/node';
import { TestClient, fileUri, tempFolder } from '../support/lspClient';
import { REAL_SHAPES } from '../support/realShapes';
import { runCli } from '../support/run';
import { rangeOf } from '../support/textMarks';

const TOOL = { node: 'TOOLS', name: 'get_user_location', description: "Get the user's location from the browser." };

/** The quick-start template's config, as `10xgraph init` writes it, with a remote tool on a misspelt node. */
const DEV_CONFIG = JSON.stringify({ agent: 'graph.agent:app', env: '.env', auth: null, thread_name_generator: null, ag_ui: { enabled: false }, remote_tools: [TOOL] }, null, 2);

/** The production template's config (JWT auth), with the same tool. */
const PROD_CONFIG = JSON.stringify(
  {
    agent: 'graph.agent:app',
    env: '.env',
    auth: 'jwt',
    authorization: 'ownership',
    thread_name_generator: 'graph.thread_name_generator:MyNameGenerator',
    injectq: 'graph.agent:container',
    remote_tools: [TOOL],
  },
  null,
  2,
);

function scaffold(dir: string, template: 'dev' | 'prod'): void {
  mkdirSync(join(dir, 'graph', 'tools'), { recursive: true });
  writeFileSync(join(dir, 'graph', '__init__.py'), '');
  writeFileSync(join(dir, 'graph', 'agent.py'), readFileSync(join(REAL_SHAPES, template === 'dev' ? 'init_dev_agent.py' : 'init_prod_agent.py'), 'utf8'));
  writeFileSync(join(dir, '.env'), 'GOOGLE_API_KEY=key\nJWT_SECRET_KEY=a-secret-long-enough-for-the-test-000000\nJWT_ALGORITHM=HS256\n');
  if (template === 'prod') {
    writeFileSync(join(dir, 'graph', 'state.py'), 'from tenxgraph.core.state import AgentState\n\n\nclass WeatherState(AgentState):\n    city: str = ""\n');
    writeFileSync(
      join(dir, 'graph', 'thread_name_generator.py'),
      'from tenxgraph_api import ThreadNameGenerator\n\n\nclass MyNameGenerator(ThreadNameGenerator):\n    async def generate_name(self, messages):\n        return "weather chat"\n',
    );
    writeFileSync(join(dir, 'graph', 'tools', '__init__.py'), '');
    writeFileSync(join(dir, 'graph', 'tools', 'weather_tool.py'), 'def get_weather(location: str) -> str:\n    return f"Sunny in {location}"\n');
  }
  writeFileSync(join(dir, '10xgraph.json'), template === 'dev' ? DEV_CONFIG : PROD_CONFIG);
}

const codes = (diagnostics: Diagnostic[]) => diagnostics.map((d) => String(d.code)).sort();

describe('a project as 10xgraph init scaffolds it', () => {
  const ws = tempFolder('10xgraph-scaffold-');
  const dev = join(ws, 'quick-start');
  const prod = join(ws, 'production');
  let client: TestClient;

  before(async () => {
    scaffold(dev, 'dev');
    scaffold(prod, 'prod');
    client = await TestClient.start({ workspaceFolders: [{ uri: fileUri(ws), name: 'scaffold' }], initializationOptions: { settings: { server: { enabled: false } } } });
  });
  after(async () => {
    await client.stop();
    rmSync(ws, { recursive: true, force: true });
  });

  test('audit: the quick start gets node checks from its ReactAgent (MAIN, TOOL): a misspelt node is node-not-found, exit 1', async () => {
    const result = await runCli(['audit'], { cwd: dev });
    assert.match(result.stdout, /^10xgraph\.json:11:15: error \[node-not-found\] The graph has no node named 'TOOLS' \(node of tool 'get_user_location'\)\. ToolNodes: 'TOOL'\./m);
    assert.match(result.stdout, /; graph read from graph\/agent\.py \(2 nodes\)\n$/);
    assert.equal(result.code, 1);
    // Fixed, the file has no problem left.
    writeFileSync(join(dev, '10xgraph.json'), DEV_CONFIG.replace('"TOOLS"', '"TOOL"'));
    const fixed = await runCli(['audit'], { cwd: dev });
    assert.equal(fixed.stdout, '10xgraph.json: no problems; graph read from graph/agent.py (2 nodes)\n');
    assert.equal(fixed.code, 0);
    writeFileSync(join(dev, '10xgraph.json'), DEV_CONFIG);
  });

  test('audit: the production template stops at start-up on its injectq: module-attribute-missing, exit 1', async () => {
    const result = await runCli(['audit', '--format', 'json'], { cwd: prod });
    const report = JSON.parse(result.stdout) as { problems: Array<{ code: string; message: string; range: { start: { line: number } } }> };
    assert.deepEqual(report.problems.map((p) => p.code).sort(), ['module-attribute-missing', 'node-not-found']);
    const missing = report.problems.find((p) => p.code === 'module-attribute-missing')!;
    assert.equal(
      missing.message,
      `"injectq" names graph.agent:container, but graph/agent.py binds no top-level 'container': the server stops at start-up (module 'graph.agent' has no attribute 'container').`,
    );
    assert.equal(missing.range.start.line, rangeOf(PROD_CONFIG, '"graph.agent:container"').start.line);
    assert.equal(result.code, 1);
    // The thread name generator the template names exists: not judged missing.
    assert.ok(!report.problems.some((p) => p.message.includes('MyNameGenerator')));
    // --no-graph reads nothing beside the file: the module is not judged.
    const bare = await runCli(['audit', '--no-graph', '--format', 'json'], { cwd: prod });
    assert.ok(!(JSON.parse(bare.stdout) as { problems: Array<{ code: string }> }).problems.some((p) => p.code === 'module-attribute-missing'));
  });

  test('audit --project: the same problems on both projects', async () => {
    const result = await runCli(['audit', '--project', ws, '--format', 'json']);
    const report = JSON.parse(result.stdout) as { files: Array<{ file: string; problems: Array<{ code: string }> }> };
    const of = (folder: string) =>
      report.files
        .find((f) => f.file.endsWith(`${folder}/10xgraph.json`))!
        .problems.map((p) => p.code)
        .sort();
    assert.deepEqual(of('quick-start'), ['node-not-found']);
    assert.deepEqual(of('production'), ['module-attribute-missing', 'node-not-found']);
    assert.equal(result.code, 1);
  });

  test('the editor: the same problems, and the module bound later clears module-attribute-missing before it is saved', async () => {
    const devUri = fileUri(join(dev, '10xgraph.json'));
    const prodUri = fileUri(join(prod, '10xgraph.json'));
    await client.open(devUri, DEV_CONFIG);
    await client.open(prodUri, PROD_CONFIG);
    const devDiagnostics = await client.pushed(devUri, undefined, (d) => d.some((x) => x.code === 'node-not-found'));
    assert.deepEqual(codes(devDiagnostics), ['node-not-found']);
    assert.match(devDiagnostics[0].message, /\(Judged on the graph read from graph\/agent\.py; no server graph is in use\.\)$/);
    const prodDiagnostics = await client.pushed(prodUri, undefined, (d) => d.some((x) => x.code === 'module-attribute-missing') && d.some((x) => x.code === 'node-not-found'));
    assert.deepEqual(codes(prodDiagnostics), ['module-attribute-missing', 'node-not-found']);
    const missing = prodDiagnostics.find((d) => d.code === 'module-attribute-missing')!;
    assert.deepEqual(missing.range, rangeOf(PROD_CONFIG, '"graph.agent:container"'));
    assert.equal(missing.severity, 1);
    // graph/agent.py opened and given a container, unsaved: the error goes.
    const agentUri = fileUri(join(prod, 'graph', 'agent.py'));
    const agentText = readFileSync(join(prod, 'graph', 'agent.py'), 'utf8');
    await client.open(agentUri, agentText, 'python');
    await client.change(agentUri, `${agentText}\nfrom injectq import InjectQ\n\ncontainer = InjectQ.get_instance()\n`);
    const cleared = await client.pushed(prodUri, undefined, (d) => !d.some((x) => x.code === 'module-attribute-missing'));
    assert.deepEqual(codes(cleared), ['node-not-found']);
    await client.close(agentUri);
    await client.pushed(prodUri, undefined, (d) => d.some((x) => x.code === 'module-attribute-missing'));
  });

  test('a close name is offered as the quick fix', async () => {
    const uri = fileUri(join(prod, '10xgraph.json'));
    const typo = PROD_CONFIG.replace('graph.agent:container', 'graph.agent:react_agnt');
    const version = await client.change(uri, typo);
    const diagnostics = await client.pushed(uri, version, (d) => d.some((x) => x.code === 'module-attribute-missing' && x.message.includes('react_agnt')));
    const missing = diagnostics.find((d) => d.code === 'module-attribute-missing')!;
    assert.match(missing.message, / Did you mean 'react_agent'\?$/);
    const actions = await client.connection.sendRequest(CodeActionRequest.type, { textDocument: { uri }, range: missing.range, context: { diagnostics: [missing] } });
    const fix = actions?.find((a) => 'title' in a && a.title === "Change to 'react_agent'");
    assert.ok(fix && 'edit' in fix && fix.edit, JSON.stringify(actions));
    const edits = Object.values(fix.edit.changes ?? {})[0] ?? [];
    assert.deepEqual(
      edits.map((e) => e.newText),
      ['react_agent'],
    );
    await client.change(uri, PROD_CONFIG);
  });

  test('an agent naming what graph/agent.py does not bind is agent-not-found, in audit, audit --project and the editor', async () => {
    const config = DEV_CONFIG.replace('graph.agent:app', 'graph.agent:ap').replace('"TOOLS"', '"TOOL"');
    writeFileSync(join(dev, '10xgraph.json'), config);
    const sentence = `graph/agent.py binds no top-level 'ap' (its compiled graph is 'app'): the server stops at start-up (module 'graph.agent' has no attribute 'ap').`;
    try {
      const result = await runCli(['audit'], { cwd: dev });
      assert.match(result.stdout, new RegExp(`^10xgraph\\.json:2:12: error \\[agent-not-found\\] ${sentence.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
      assert.equal(result.code, 1);
      const project = JSON.parse((await runCli(['audit', '--project', dev, '--format', 'json'])).stdout) as {
        files: Array<{ problems: Array<{ code: string; message: string }> }>;
      };
      const problems = project.files.flatMap((f) => f.problems);
      assert.deepEqual(
        problems.map((p) => [p.code, p.message]),
        [['agent-not-found', sentence]],
      );
      const uri = fileUri(join(dev, '10xgraph.json'));
      const version = await client.change(uri, config);
      const diagnostics = await client.pushed(uri, version, (d) => d.some((x) => x.code === 'agent-not-found'));
      assert.deepEqual(
        diagnostics.map((d) => [d.code, d.message]),
        [['agent-not-found', sentence]],
      );
      assert.deepEqual(diagnostics[0].range, rangeOf(config, '"graph.agent:ap"'));
    } finally {
      writeFileSync(join(dev, '10xgraph.json'), DEV_CONFIG);
    }
  });
});
