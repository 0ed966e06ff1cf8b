/**
 * The project index on a workspace of 5,000 generated sources (in a temporary folder, removed
 * afterwards): every file is read, the handlers of all of them count, and the config is checked
 * while the index is built. How fast is measured in bench/project.ts, not here.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Location, ReferencesRequest } from 'vscode-languageserver-protocol/node';
import { TestClient, fileUri, tempFolder, waitFor } from '../support/lspClient';

const FILES = 5000;
const TOOLS = 250;

describe('a workspace of 5,000 source files', () => {
  let client: TestClient;
  const ws = tempFolder('10xgraph-project-scale-');
  const config = join(ws, '10xgraph.json');
  const tools = Array.from({ length: TOOLS }, (_, i) => ({
    node: 'TOOL',
    name: `tool_${i}`,
    description: `Tool number ${i} of the generated workspace.`,
    parameters: { type: 'object' },
  }));
  const text = JSON.stringify(
    { agent: 'graph:app', remote_tools: [...tools, { node: 'TOOL', name: 'tool_unhandled', description: 'A tool no source registers.', parameters: { type: 'object' } }] },
    null,
    2,
  );

  before(async () => {
    for (let i = 0; i < FILES; i++) {
      const dir = join(ws, 'src', `part${Math.floor(i / 100)}`);
      if (i % 100 === 0) mkdirSync(dir, { recursive: true });
      // One file in five registers a handler (each tool by four files); the others only mention other things.
      const body =
        i % 5 === 0
          ? `import { client } from '../../client';\nexport const value${i}: number = ${i};\nclient.registerToolHandler('tool_${(i / 5) % TOOLS}', async (args: Record<string, unknown>) => ({ file: ${i}, args }));\n`
          : `export function helper${i}(x: number): number {\n  return x * ${i};\n}\nexport const label${i} = \`file ${i}\`;\n`;
      writeFileSync(join(dir, `file${i}.${i % 2 === 0 ? 'ts' : 'js'}`), body);
    }
    writeFileSync(join(ws, 'graph.ts'), "import { StateGraph, ToolNode } from '10xgraph';\nexport const app = new StateGraph().addNode('TOOL', new ToolNode([])).compile();\n");
    writeFileSync(config, text);
    client = await TestClient.start({ workspaceFolders: [{ uri: fileUri(ws), name: 'scale' }], initializationOptions: { settings: { server: { enabled: false } } } });
  });
  after(async () => {
    await client.stop();
    rmSync(ws, { recursive: true, force: true });
  });

  test('every file is indexed: one tool without a handler, four handlers per tool', async () => {
    await client.open(fileUri(config), text);
    // The config is checked at once, whether or not the index is done.
    await client.pushed(fileUri(config), 1);
    const diagnostics = await client.pushed(fileUri(config), 1, (d) => d.some((x) => x.code === 'handler-missing'));
    assert.deepEqual(
      diagnostics.filter((d) => d.code === 'handler-missing').map((d) => d.message.match(/'([^']+)'/)![1]),
      ['tool_unhandled'],
    );
    assert.ok(
      client.logs.some((l) => /indexed 5002 source files/.test(l)),
      client.logs.join('\n'),
    );
    const lines = text.split('\n');
    const line = lines.findIndex((l) => l.includes('"tool_137"'));
    const refs = (await client.connection.sendRequest(ReferencesRequest.type, {
      textDocument: { uri: fileUri(config) },
      position: { line, character: lines[line].indexOf('tool_137') + 1 },
      context: { includeDeclaration: true },
    })) as Location[];
    assert.equal(refs.length, 1 + 4);
    assert.deepEqual(
      refs
        .slice(1)
        .map((l) => l.uri.replace(/^.*\//, ''))
        .sort(),
      ['file685.js', 'file1935.js', 'file3185.js', 'file4435.js'].sort(),
    );
    await waitFor(() => client.alive, 'the server to stay up');
  });
});
