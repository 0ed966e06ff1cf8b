/**
 * The part of the server bundle read on first use, ajv (`dist/server-ajv.js`), is not read at all
 * for a config whose schemas the rule set settles alone, through the config's diagnostics and the
 * project index's. A preloaded hook (test/support/reportLoads.cjs) reports each read and how many
 * publishDiagnostics the server had written by then.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileUri, ROOT, tempFolder, TestClient } from '../support/lspClient';

const HOOK = join(ROOT, 'test', 'support', 'reportLoads.cjs');

describe('the part of the server read on first use', () => {
  const ws = tempFolder('10xgraph-lazy-parts-');
  const config = join(ws, '10xgraph.json');
  let client: TestClient;
  let text = '';

  before(async () => {
    cpSync(join(ROOT, 'test', 'fixtures', 'project'), ws, { recursive: true });
    // No agent module to read for the first diagnostics: only the index parses sources.
    text = readFileSync(config, 'utf8').replace('"graph:app"', '"missing:app"');
    writeFileSync(config, text);
    client = await TestClient.start({
      workspaceFolders: [{ uri: fileUri(ws), name: 'lazy' }],
      initializationOptions: { settings: { server: { enabled: false } } },
      env: { NODE_OPTIONS: `--require ${HOOK}` },
    });
  });
  after(async () => {
    await client.stop();
    rmSync(ws, { recursive: true, force: true });
  });

  const loads = () => [...client.stderr.matchAll(/10xgraph-test: loaded \.\/(server-\w+\.js) after (\d+) publishDiagnostics/g)].map((m) => [m[1], Number(m[2])] as const);

  test('ajv is never read for a config whose schemas the rule set settles alone', async () => {
    const uri = fileUri(config);
    await client.open(uri, text);
    await client.pushed(uri, 1);
    // The index reads the sources: the tool no handler registers is reported.
    await client.pushed(uri, undefined, (d) => d.some((x) => x.code === 'handler-missing'));
    assert.deepEqual(
      loads().filter(([file]) => file === 'server-ajv.js'),
      [],
    );
  });
});
