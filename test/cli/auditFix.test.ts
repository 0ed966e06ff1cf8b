// `audit --fix` fixes the file rather than replacing it: mode, owner and links are kept, no
// temporary file is left (not even on a signal), and a file changed since it was read is not
// overwritten.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, runCli } from '../support/run';
import { GraphHttpServer } from '../support/graphHttp';

const temp = mkdtempSync(join(tmpdir(), '10xgraph-cli-fix-'));
after(() => rmSync(temp, { recursive: true, force: true }));

// Two safe fixes: the trailing comma, and a name with white space around it (the server trims it).
const BROKEN = '{\n  "agent": "graph:app",\n  "remote_tools": [{"node": "TOOL", "name": " read ", "description": "Read the clipboard text.", "parameters": {}}],\n}\n';

let folders = 0;
/** A fresh folder holding `10xgraph.json` with `text`. */
function folderWith(text = BROKEN): { dir: string; file: string } {
  const dir = join(temp, `f${folders++}`);
  mkdirSync(dir);
  const file = join(dir, '10xgraph.json');
  writeFileSync(file, text);
  return { dir, file };
}

function assertFixed(text: string): void {
  const config = JSON.parse(text);
  assert.equal(config.remote_tools[0].name, 'read');
}

describe('audit --fix keeps the file what it was', () => {
  test('the mode is kept (0600 stays 0600)', async () => {
    const { file, dir } = folderWith();
    chmodSync(file, 0o600);
    const result = await runCli(['audit', file, '--no-graph', '--fix']);
    assert.equal(result.code, 0, result.stderr);
    assertFixed(readFileSync(file, 'utf8'));
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(dir), ['10xgraph.json'], 'no temporary file left');
  });

  test('the owner is kept', async () => {
    const { file } = folderWith();
    // Only root can give a file to someone else; any other user checks its own ownership.
    const owner = process.getuid!() === 0 ? 65534 : process.getuid!();
    const group = process.getuid!() === 0 ? 65534 : process.getgid!();
    chownSync(file, owner, group);
    const result = await runCli(['audit', file, '--no-graph', '--fix']);
    assert.equal(result.code, 0, result.stderr);
    assertFixed(readFileSync(file, 'utf8'));
    const stat = statSync(file);
    assert.deepEqual([stat.uid, stat.gid], [owner, group]);
  });

  test('a symbolic link stays a link, and its target is fixed', async () => {
    const { dir } = folderWith('{}');
    const real = join(dir, 'real.json');
    writeFileSync(real, BROKEN);
    const link = join(dir, 'link.json');
    symlinkSync('real.json', link);
    const result = await runCli(['audit', link, '--no-graph', '--fix']);
    assert.equal(result.code, 0, result.stderr);
    assert.ok(lstatSync(link).isSymbolicLink(), 'still a link');
    assertFixed(readFileSync(real, 'utf8'));
    assert.deepEqual(readdirSync(dir).sort(), ['10xgraph.json', 'link.json', 'real.json']);
  });

  test('hard links are not split: every name sees the fix, on one inode', async () => {
    const { dir, file } = folderWith();
    const other = join(dir, 'other.json');
    linkSync(file, other);
    const inode = statSync(file).ino;
    const result = await runCli(['audit', file, '--no-graph', '--fix']);
    assert.equal(result.code, 0, result.stderr);
    assertFixed(readFileSync(other, 'utf8'));
    assert.equal(statSync(file).ino, inode);
    assert.equal(statSync(file).nlink, 2);
    assert.deepEqual(readdirSync(dir).sort(), ['10xgraph.json', 'other.json'], 'the backup is removed');
  });
});

describe('audit --fix never overwrites a change made meanwhile', () => {
  test('a save while the graph is fetched: exit 2, the save is kept', async () => {
    const { dir, file } = folderWith();
    const saved = BROKEN.replace('Read the clipboard text.', 'Read the clipboard text, as saved by an editor.');
    const server = new GraphHttpServer({ nodes: [{ name: 'TOOL', type: 'tool_node', tools: [] }] });
    // The editor saves (by rename, as most do) while audit waits for the graph.
    server.onRequest = (path) => {
      if (path !== '/v1/graph') return;
      writeFileSync(join(dir, 'saved.tmp'), saved);
      renameSync(join(dir, 'saved.tmp'), file);
    };
    await server.start();
    try {
      const result = await runCli(['audit', file, '--graph-url', server.url, '--fix']);
      assert.equal(result.code, 2);
      assert.match(result.stderr, /10xgraph\.json changed since it was read; nothing was written: run the audit again\./);
      assert.equal(readFileSync(file, 'utf8'), saved);
      assert.deepEqual(readdirSync(dir), ['10xgraph.json']);
    } finally {
      await server.stop();
    }
  });

  test('an in-place save (same inode) is seen as well', async () => {
    const { dir, file } = folderWith();
    const saved = BROKEN.replace('"agent"', '"agent" ');
    const server = new GraphHttpServer({ nodes: [{ name: 'TOOL', type: 'tool_node', tools: [] }] });
    server.onRequest = (path) => {
      if (path === '/v1/graph') writeFileSync(file, saved);
    };
    await server.start();
    try {
      const result = await runCli(['audit', file, '--graph-url', server.url, '--fix']);
      assert.equal(result.code, 2);
      assert.match(result.stderr, /changed since it was read/);
      assert.equal(readFileSync(file, 'utf8'), saved);
      assert.deepEqual(readdirSync(dir), ['10xgraph.json']);
    } finally {
      await server.stop();
    }
  });
});

describe('audit --fix on a signal', () => {
  test('SIGINT or SIGTERM at any moment leaves the old or the new file, and no temporary file', async () => {
    // A large file makes the write take long enough for signals to land during it.
    const big = BROKEN.replace('"agent"', `"env": "${'x'.repeat(8 * 1024 * 1024)}",\n  "agent"`);
    for (let i = 0; i < 12; i++) {
      const { dir, file } = folderWith(big);
      const child = spawn(process.execPath, [CLI, 'audit', file, '--no-graph', '--fix'], { stdio: 'ignore' });
      const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
      // Signals spread over the run: before the read, during the fixes, during the write.
      await new Promise((resolve) => setTimeout(resolve, 40 + i * 25));
      child.kill(i % 2 ? 'SIGTERM' : 'SIGINT');
      const { code, signal } = await closed;
      // Ended by the signal, or finished before it came.
      assert.ok(signal === 'SIGINT' || signal === 'SIGTERM' || code === 0, `ended with ${signal ?? code}`);
      const text = readFileSync(file, 'utf8');
      if (text !== big) assertFixed(text);
      assert.deepEqual(readdirSync(dir), ['10xgraph.json'], `no temporary file left (signal after ${40 + i * 25} ms)`);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
