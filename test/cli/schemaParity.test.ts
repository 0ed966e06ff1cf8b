// After edits, the language server judges property schemas exactly as a fresh `audit` does:
// schemas checked before (an earlier version of the file, with the same $id) leave no trace.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/run';
import { TestClient, fileUri } from '../support/lspClient';

const temp = mkdtempSync(join(tmpdir(), '10xgraph-cli-schema-'));
after(() => rmSync(temp, { recursive: true, force: true }));

function version(schema: string): string {
  return `{
  "agent": "graph:app",
  "remote_tools": [
    { "node": "TOOL", "name": "lookup", "description": "Look a record up by its key.", "parameters": { "type": "object", "properties": { "key": ${schema} } } }
  ]
}
`;
}

test('edits that reuse an $id: the language server says what audit says, version after version', async () => {
  const versions = [
    version('{ "$id": "https://example.com/key", "type": "string" }'),
    version('{ "$id": "https://example.com/key", "type": "integer", "minimum": 0 }'),
    version('{ "$id": "https://example.com/key", "type": "int" }'),
    version('{ "$id": "https://example.com/key", "type": "string", "maxLength": 8 }'),
  ];
  const file = join(temp, '10xgraph.json');
  const client = await TestClient.start({ initializationOptions: { settings: { server: { enabled: false } } }, workspaceFolders: [{ uri: fileUri(temp), name: 'w' }] });
  try {
    const uri = fileUri(file);
    await client.open(uri, versions[0]);
    let n = 1;
    for (const text of versions) {
      if (n > 1) await client.change(uri, [{ text }]);
      const published = await client.pushed(uri, n++);
      writeFileSync(file, text);
      const audit = JSON.parse((await runCli(['audit', file, '--no-graph', '--format', 'json'])).stdout);
      const fromAudit = audit.problems.map((p: { code: string; message: string; range: unknown }) => [p.code, p.message, p.range]);
      assert.deepEqual(
        published.map((d) => [d.code, d.message, d.range]),
        fromAudit,
        text,
      );
    }
  } finally {
    await client.stop();
  }
});
