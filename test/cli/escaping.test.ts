// Names from a file or a module cannot forge output: in text output (audit, api start-up lines,
// the "Attached" line) control characters are escaped, so one problem stays one line and no
// terminal sequence or CI command gets through; JSON keeps the exact text.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { escapeControl } from '../../runtime/src/text/escapeControl';
import { CLI, ROOT, runCli } from '../support/run';
import { poll } from '../support/poll';

const temp = mkdtempSync(join(tmpdir(), '10xgraph-cli-escape-'));
after(() => rmSync(temp, { recursive: true, force: true }));

// A newline that starts a forged problem line and a GitHub Actions command, an ESC sequence
// that clears the screen, a C1 control, DEL, a line separator and a right-to-left override.
// (Short enough that messages quote it whole.)
const EVIL = 'ok\n10xgraph.json:1:1: error [forged] x\n::error file=a::b\u001b[2J\u009b\u007f\u2028\u202e';
const ESCAPED = 'ok\\n10xgraph.json:1:1: error [forged] x\\n::error file=a::b\\x1b[2J\\x9b\\x7f\\u2028\\u202e';
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe('escapeControl', () => {
  test('escapes C0, DEL, C1, line separators and bidi controls, and nothing else', () => {
    assert.equal(escapeControl(EVIL), ESCAPED);
    assert.equal(escapeControl('\t\r\u061c\u200e\u200f\u2066\u2069'), '\\t\\r\\u061c\\u200e\\u200f\\u2066\\u2069');
    const plain = 'C:\\agents\\graph émoji 😀 “quotes”';
    assert.equal(escapeControl(plain), plain);
    assert.equal(escapeControl(escapeControl(EVIL)), ESCAPED, 'escaping twice changes nothing');
  });
});

function config(node: string): string {
  return JSON.stringify(
    {
      agent: 'graph:app',
      remote_tools: [{ node, name: EVIL, description: 'Read the clipboard text of the user.', parameters: { type: 'object', properties: {} } }],
    },
    null,
    2,
  );
}

describe('audit', () => {
  test('text output: one line a problem, names escaped', async () => {
    const file = join(temp, 'evil.json');
    writeFileSync(file, config('TOOL'));
    const result = await runCli(['audit', file, '--no-graph']);
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 2, 'the warning and the summary, nothing forged');
    assert.match(lines[0], /^.*evil\.json:6:\d+: warning \[invalid-tool-name\] /);
    assert.ok(lines[0].includes(`'${ESCAPED}'`), lines[0]);
    assert.doesNotMatch(result.stdout, RAW);
    assert.ok(!lines.some((line) => line.startsWith('::') || line.startsWith('10xgraph.json:1:1')));
  });

  test('a file name with a newline and ESC is escaped too', async () => {
    const file = join(temp, 'a\nb\u001b[31m.json');
    writeFileSync(file, '{"agent": 3}');
    const result = await runCli(['audit', file, '--no-graph']);
    assert.equal(result.code, 1);
    assert.doesNotMatch(result.stdout, RAW);
    assert.match(result.stdout, /a\\nb\\x1b\[31m\.json:1:11: error \[agent-invalid\]/);
    const missing = await runCli(['audit', join(temp, 'no\nsuch\u001b.json')]);
    assert.equal(missing.code, 2);
    assert.doesNotMatch(missing.stderr, RAW);
    assert.match(missing.stderr, /no\\nsuch\\x1b\.json: no such file\./);
  });

  test('JSON output keeps the exact text', async () => {
    const file = join(temp, 'evil-json.json');
    writeFileSync(file, config('TOOL'));
    const result = await runCli(['audit', file, '--no-graph', '--format', 'json']);
    const [problem] = JSON.parse(result.stdout).problems;
    assert.equal(problem.code, 'invalid-tool-name');
    assert.ok(problem.message.includes(`'${EVIL}'`), 'the raw name, newline and all');
  });
});

describe('api start-up', () => {
  test('warnings and the "Attached" line escape names from the config and the module', async () => {
    const dir = mkdtempSync(join(temp, 'api-'));
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    const node = 'T\u001b[2J\n::error file=x::forged';
    writeFileSync(
      join(dir, 'graph.ts'),
      [
        "import { END, ModelNode, ScriptedModel, StateGraph, ToolNode } from '10xgraph';",
        'export const app = new StateGraph()',
        "  .addNode('agent', new ModelNode(new ScriptedModel({ reply: () => 'hi' })))",
        `  .addNode(${JSON.stringify(node)}, new ToolNode([]))`,
        "  .setEntryPoint('agent')",
        "  .addEdge('agent', END)",
        '  .compile();',
        '',
      ].join('\n'),
    );
    writeFileSync(join(dir, '10xgraph.json'), config(node));
    const child = spawn(process.execPath, [CLI, 'api', '--port', '0', '--db', ':memory:'], { cwd: dir, env: { ...process.env, TENXGRAPH_TOKEN: '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      await poll('the server to listen', () => stdout.includes('Listening on') || child.exitCode !== null, 30_000);
      // The warning is written to stderr before "Listening on" goes to stdout, but two pipes may
      // deliver in either order: wait for its whole line too.
      await poll('the warning on stderr', () => /warning \[invalid-tool-name\][^\n]*\n/.test(stderr) || child.exitCode !== null, 10_000).catch(() => undefined);
      assert.match(stdout, /^Attached 1 configured remote tools \(to T\\x1b\[2J\\n::error file=x::forged\)\n/);
      assert.doesNotMatch(stdout, RAW);
      const warnings = stderr.trimEnd().split('\n');
      assert.equal(warnings.length, 1, stderr);
      assert.match(warnings[0], /^10xgraph\.json:6:\d+: warning \[invalid-tool-name\] .*ok\\n10xgraph\.json:1:1: error \[forged\]/);
      assert.doesNotMatch(stderr, RAW);
    } finally {
      child.kill('SIGTERM');
      await closed;
    }
  });
});
