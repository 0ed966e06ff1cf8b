/**
 * The agent-module scan (shared by `10xgraph audit` and the language server) reads files anyone
 * may have put beside a config, also in an untrusted workspace. Crafted 512 KB modules that made
 * the former regular expressions backtrack for half a minute are scanned in linear time, only
 * the start of each file is read, and a folder is read within a byte and module budget. Over
 * stdio the language server still answers completion for `agent` at once, untrusted too. The
 * hang guards are the tests' own time-outs; nothing here times the scan.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CompletionRequest } from 'vscode-languageserver-protocol/node';
import { findAgentCandidates, readAgentModules } from '../../runtime/src/workspace/agentCandidates';
import { TestClient, fileUri, tempFolder } from '../support/lspClient';

const KIB = 1024;
const GRAPH = "import { StateGraph } from '10xgraph';\nconst builder = new StateGraph();\nexport const app = builder.compile();\n";

/** Sources that made the regular expressions of the former scanner backtrack quadratically. */
const CRAFTED = {
  declarations: 'const a = x '.repeat(Math.floor((512 * KIB) / 12)),
  lists: 'export {'.repeat((512 * KIB) / 8),
};

let root: string;
before(() => {
  root = tempFolder('10xgraph-agent-scan-');
});
after(() => rmSync(root, { recursive: true, force: true }));

function folder(name: string, files: Record<string, string>): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return dir;
}

describe('what the scan finds', () => {
  test('compiled graphs, exported directly or in a list; not in comments, strings or templates', async () => {
    const dir = folder('kinds', {
      'graph.ts': GRAPH,
      'listed.ts': 'const built = g.compile();\nconst helper = 1;\nexport { built as agent, helper, type Shape };\n',
      'decoys.ts': [
        '// export const commented = g.compile();',
        '/* export const blocked = g.compile(); */',
        'const text = "export const quoted = g.compile()";',
        'const re = /["{`]/g;',
        'const t = `${`nested ${re}`} export const templated = g.compile()`;',
        'export async function* stream() {}',
        'export default 1;',
      ].join('\n'),
    });
    assert.deepEqual(findAgentCandidates(dir), ['graph:app', 'listed:agent']);
    const modules = await readAgentModules(dir);
    assert.deepEqual(
      modules.map((m) => [m.module, m.exports, m.graphExports]),
      [
        ['graph', ['app'], 1],
        ['listed', ['agent', 'helper'], 1],
        ['decoys', ['stream', 'default'], 0],
      ],
    );
  });
});

describe('crafted modules beside a config', () => {
  test('two crafted 512 KB modules: the scan finishes and still finds the graph', { timeout: 20_000 }, async () => {
    const dir = folder('crafted', { 'graph.ts': GRAPH, 'a.ts': CRAFTED.declarations, 'b.ts': CRAFTED.lists, '10xgraph.json': '{}' });
    assert.deepEqual(findAgentCandidates(dir), ['graph:app']);
    const modules = await readAgentModules(dir);
    assert.deepEqual(modules.map((m) => m.module).sort(), ['a', 'b', 'graph']);
  });

  test('only the start of a file is read: an export after 256 KB is not seen', async () => {
    const dir = folder('late', { 'early.ts': `${GRAPH}${' '.repeat(300 * KIB)}export const late = g.compile();\n` });
    const [early] = await readAgentModules(dir);
    assert.deepEqual(early.exports, ['app']);
  });

  test('a folder is read within a budget: 300 modules of 100 KB give at most 200 modules, the likeliest first', async () => {
    const files: Record<string, string> = { 'graph.ts': GRAPH };
    for (let i = 0; i < 300; i++) files[`m${String(i).padStart(3, '0')}.ts`] = `export const g${i} = b.compile();\n${' '.repeat(100 * KIB)}`;
    const dir = folder('many', files);
    const modules = await readAgentModules(dir);
    assert.equal(modules.length, 200);
    assert.ok(
      modules.some((m) => m.module === 'graph' && m.graphExports === 1),
      'graph.ts is read first',
    );
    const read = modules.filter((m) => m.graphExports > 0).length;
    assert.ok(read > 1 && read <= 22, `${read} modules read for exports within the 2 MiB budget`);
    assert.deepEqual(findAgentCandidates(dir).length, read, 'audit reads the same');
  });
});

describe('the language server', () => {
  for (const trusted of [true, false]) {
    test(`crafted modules in ${trusted ? 'a trusted' : 'an untrusted'} workspace: agent completion answers`, { timeout: 30_000 }, async () => {
      const dir = folder(`ls-${trusted}`, { 'graph.ts': GRAPH, 'a.ts': CRAFTED.declarations, 'b.ts': CRAFTED.lists });
      const client = await TestClient.start({ initializationOptions: { storagePath: join(root, `storage-${trusted}`), trusted, settings: { server: { enabled: false } } } });
      try {
        const uri = fileUri(join(dir, '10xgraph.json'));
        const text = '{ "agent": "" }';
        await client.open(uri, text);
        const result = await client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri }, position: { line: 0, character: 12 } });
        const items = Array.isArray(result) ? result : (result?.items ?? []);
        assert.equal(items[0]?.label, 'graph:app');
        await client.pushed(uri, 1);
        assert.ok(client.alive);
      } finally {
        await client.stop();
      }
    });
  }
});
