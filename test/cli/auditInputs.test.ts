// What `audit` and `api --config` accept as a config: regular files, and `-` for standard input.
// Everything else (a FIFO with no writer, a device, /dev/stdin on a pipe) is refused at once with
// exit 2 and a message, never blocked on; files whose size `stat` does not know are read whole.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/run';

const temp = mkdtempSync(join(tmpdir(), '10xgraph-cli-inputs-'));
after(() => rmSync(temp, { recursive: true, force: true }));

/** A FIFO that nobody writes to: opening it for reading blocks unless done without blocking. */
function makeFifo(name: string): string {
  const path = join(temp, name);
  execFileSync('mkfifo', [path]);
  return path;
}

describe('non-regular files are refused without blocking (exit 2)', () => {
  test('audit on a FIFO with no writer', async () => {
    const fifo = makeFifo('audit.fifo');
    const result = await runCli(['audit', fifo, '--no-graph'], { timeoutMs: 15_000 });
    assert.equal(result.code, 2, 'exits by itself, not killed after the time-out');
    assert.match(result.stderr, /audit\.fifo is a named pipe \(FIFO\), not a regular file: give the path of a 10xgraph\.json file\. To read standard input, give - as FILE\./);
    assert.equal(result.stdout, '');
  });

  test('api --config on a FIFO with no writer', async () => {
    const fifo = makeFifo('api.fifo');
    const result = await runCli(['api', '--config', fifo, '--port', '0', '--db', ':memory:'], { timeoutMs: 15_000 });
    assert.equal(result.code, 2, 'exits by itself, not killed after the time-out');
    assert.match(result.stderr, /^10xgraph api: .*api\.fifo is a named pipe \(FIFO\), not a regular file/);
    assert.doesNotMatch(result.stdout, /Listening/);
  });

  test('/dev/zero is a device, not an empty config', async () => {
    const result = await runCli(['audit', '/dev/zero', '--no-graph'], { timeoutMs: 15_000 });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /\/dev\/zero is a character device, not a regular file/);
  });

  // Node's child-process pipes are socket pairs; a shell's are FIFOs: both are refused.
  test('/dev/stdin on a pipe is refused, pointing at -', async () => {
    const result = await runCli(['audit', '/dev/stdin', '--no-graph'], { input: '{"agent": "graph:app"}' });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /\/dev\/stdin is (a named pipe \(FIFO\)|a socket), not a regular file.*give - as FILE/);
  });
});

describe('files whose size stat does not know are read to their end', () => {
  test('/proc/self/status is judged on its text, not as an empty file', async () => {
    const result = await runCli(['audit', '/proc/self/status', '--no-graph', '--format', 'json']);
    assert.equal(result.code, 1, result.stderr);
    const problems = JSON.parse(result.stdout).problems as Array<{ code: string; message: string }>;
    assert.equal(problems[0].code, 'invalid-json');
    // An empty text would be "The text ends early"; this text starts with `Name:`.
    assert.match(problems[0].message, /Unexpected character/);
  });
});

describe('- reads the config from standard input', () => {
  test('a clean config: exit 0, named <stdin>', async () => {
    const result = await runCli(['audit', '-', '--no-graph'], { input: '{"agent": "graph:app"}' });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, '<stdin>: no problems; graph skipped (--no-graph): node names not checked\n');
  });

  test('problems are placed on <stdin> lines', async () => {
    const result = await runCli(['audit', '-', '--no-graph'], { input: '{\n  "agent": 3\n}' });
    assert.equal(result.code, 1);
    assert.match(result.stdout, /^<stdin>:2:12: error \[agent-invalid\]/);
  });

  test('json and sarif name standard input', async () => {
    const json = await runCli(['audit', '-', '--no-graph', '--format', 'json'], { input: '{}' });
    assert.equal(JSON.parse(json.stdout).file, '<stdin>');
    const sarif = await runCli(['audit', '-', '--no-graph', '--format', 'sarif'], { input: '{}' });
    assert.equal(JSON.parse(sarif.stdout).runs[0].artifacts[0].location.uri, 'stdin');
  });

  test('more than 64 MB is refused, not buffered without bound', async () => {
    const result = await runCli(['audit', '-', '--no-graph'], { input: Buffer.alloc(65 * 1024 * 1024, 0x20), timeoutMs: 60_000 });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /<stdin> is .* over the 64 MB limit for a config file\./);
  });

  test('bytes that are not UTF-8 are refused', async () => {
    const result = await runCli(['audit', '-', '--no-graph'], { input: Buffer.from([0x7b, 0x22, 0xe9, 0x22, 0x7d]) });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /<stdin> is not UTF-8 text\./);
  });

  test('--fix cannot write to standard input', async () => {
    const result = await runCli(['audit', '-', '--no-graph', '--fix'], { input: '{}' });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--fix cannot write to standard input/);
  });
});

describe('what audit runs and reads', () => {
  test('--help says plainly that the agent module is run, and how not to', async () => {
    const result = await runCli(['audit', '--help']);
    assert.equal(result.code, 0);
    assert.match(result.stdout, /audit RUNS THAT MODULE'S CODE/);
    assert.match(result.stdout, /pass --no-graph \(nothing is run or read besides FILE\) or --graph-url/);
    const usage = await runCli(['--help']);
    assert.match(usage.stdout, /runs the agent module's code unless --no-graph or --graph-url is given/);
  });

  test('--no-graph does not look at the modules beside the file', async () => {
    const dir = join(temp, 'beside');
    mkdirSync(dir);
    writeFileSync(join(dir, 'mygraph.ts'), "import { StateGraph } from '10xgraph';\nexport const flow = new StateGraph().compile();\n");
    writeFileSync(join(dir, '10xgraph.json'), '{}');
    const scanned = await runCli(['audit'], { cwd: dir });
    assert.match(scanned.stdout, /error \[agent-missing\] .*e\.g\. "mygraph:flow"/);
    const skipped = await runCli(['audit', '--no-graph'], { cwd: dir });
    assert.match(skipped.stdout, /error \[agent-missing\] .*e\.g\. "graph:app"/);
  });
});
