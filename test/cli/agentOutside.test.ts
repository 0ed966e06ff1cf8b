// A config may run only code shipped beside it: an `agent` whose module is an absolute path or
// leaves the config's folder is `agent-invalid`, and audit, api start-up, the loader and the
// language server all refuse it with the same message, without running the module.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentLoadError, loadAgentGraph } from '../../runtime/src/api/index';
import { auditConfig } from '../../runtime/src/rules/index';
import { runCli } from '../support/run';
import { TestClient, fileUri } from '../support/lspClient';

const temp = mkdtempSync(join(tmpdir(), '10xgraph-cli-outside-'));
after(() => rmSync(temp, { recursive: true, force: true }));

// The module outside leaves a mark when it runs: no front end may run it.
const shared = join(temp, 'shared');
const marker = join(shared, 'ran');
mkdirSync(shared);
writeFileSync(join(shared, 'graph.mjs'), "import { writeFileSync } from 'node:fs';\nwriteFileSync(new URL('./ran', import.meta.url), 'ran');\nexport const app = {};\n");

const specs: Array<[string, string]> = [
  ['a parent folder', '../other/graph:app'],
  ['an absolute path', `${shared}/graph:app`],
];

for (const [what, spec] of specs) {
  describe(`an agent module named by ${what}`, () => {
    const dir = join(temp, what.replace(/\W+/g, '-'));
    const config = join(dir, '10xgraph.json');
    const text = `{"agent": ${JSON.stringify(spec)}}\n`;
    const [expected] = auditConfig(text);
    const line = `10xgraph.json:1:11: error [agent-invalid] ${expected.message}`;
    before(() => {
      mkdirSync(dir);
      writeFileSync(config, text);
    });
    after(() => assert.equal(existsSync(marker), false, 'the module outside never ran'));

    test('the rule set refuses it', () => {
      assert.equal(expected.code, 'agent-invalid');
      assert.match(expected.message, /folder of 10xgraph\.json.*code shipped beside it/);
    });

    test('audit reports it (exit 1) and runs nothing', async () => {
      const result = await runCli(['audit'], { cwd: dir });
      assert.equal(result.code, 1, result.stderr);
      assert.equal(result.stdout.split('\n')[0], line);
    });

    test('api refuses to start on it (exit 1) and runs nothing', async () => {
      const result = await runCli(['api', '--port', '0', '--db', ':memory:'], { cwd: dir });
      assert.equal(result.code, 1, result.stdout);
      assert.equal(result.stderr.split('\n')[0], line);
    });

    test('the loader refuses it with the rule set message', async () => {
      await assert.rejects(loadAgentGraph(config, spec), (error: unknown) => {
        assert.ok(error instanceof AgentLoadError);
        assert.equal(error.code, 'agent-invalid');
        assert.ok(error.message.startsWith(expected.message));
        return true;
      });
    });

    test('the language server publishes the same problem', async () => {
      const client = await TestClient.start({ initializationOptions: { settings: { server: { enabled: false } } }, workspaceFolders: [{ uri: fileUri(dir), name: 'w' }] });
      try {
        const uri = fileUri(config);
        await client.open(uri, text);
        const diagnostics = await client.pushed(uri, 1);
        assert.deepEqual(
          diagnostics.map((d) => [d.code, d.message]),
          [['agent-invalid', expected.message]],
        );
      } finally {
        await client.stop();
      }
    });
  });
}
