// `agentflow.json`, the file's name before the rename, is read when no `10xgraph.json` exists, as the
// 10xGraph server reads it: by `10xgraph audit`, `10xgraph types` and `10xgraph api`.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/run';

const temp = mkdtempSync(join(tmpdir(), '10xgraph-cli-legacy-'));
after(() => rmSync(temp, { recursive: true, force: true }));

const CONFIG = (name: string) =>
  `{\n  "agent": "graph:app",\n  "remote_tools": [{ "node": "TOOL", "name": "${name}", "description": "Read the text on the user's clipboard." }]\n}\n`;

test('audit and types read agentflow.json when it is the only config in the folder', async () => {
  const dir = mkdtempSync(join(temp, 'only-'));
  writeFileSync(join(dir, 'agentflow.json'), CONFIG('read clipboard'));
  const audit = await runCli(['audit', '--no-graph'], { cwd: dir });
  assert.equal(audit.code, 0, audit.stderr);
  assert.match(audit.stdout, /agentflow\.json:3:\d+: warning \[invalid-tool-name\]/);
  const types = await runCli(['types'], { cwd: dir });
  assert.equal(types.code, 0, types.stderr);
  assert.match(types.stdout, /export interface/);
});

test('10xgraph.json wins when both exist', async () => {
  const dir = mkdtempSync(join(temp, 'both-'));
  writeFileSync(join(dir, 'agentflow.json'), CONFIG('read clipboard'));
  writeFileSync(join(dir, '10xgraph.json'), CONFIG('read_clipboard'));
  const audit = await runCli(['audit', '--no-graph'], { cwd: dir });
  assert.equal(audit.code, 0, audit.stderr);
  assert.match(audit.stdout, /^10xgraph\.json: no problems/m);
});

test('api names agentflow.json when it refuses it', async () => {
  const dir = mkdtempSync(join(temp, 'api-'));
  writeFileSync(join(dir, 'agentflow.json'), '{"agent": "graph:app", "rate_limit": {"by": "users"}}\n');
  writeFileSync(join(dir, 'graph.ts'), 'export const app = 1;\n');
  const api = await runCli(['api', '--port', '0', '--db', ':memory:'], { cwd: dir });
  assert.equal(api.code, 1, api.stdout + api.stderr);
  assert.match(api.stderr, /agentflow\.json:1:\d+: error \[setting-unknown-value\]/);
});
