/**
 * The files a hostile repository brings beside its configs, read by `audit` as the editor reads
 * them: a planted `pyvenv.cfg` hides no config, the env file is looked up only below the config's
 * folder and never cut, a FIFO is named for what it is, and a file of /proc is read to its end.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { MAX_ENV_FILE_BYTES, configFilesOf, loadEnvFile, EnvFileError } from '../../runtime/src/workspace/configFiles';
import { readRegularFile } from '../../runtime/src/workspace/regularFile';
import { runCli } from '../support/run';

const temp = mkdtempSync(join(tmpdir(), '10xgraph-project-files-'));
after(() => rmSync(temp, { recursive: true, force: true }));

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** Two errors: `agent` not a string, and a tool without a name. */
const TWO_ERRORS = '{"agent": 3, "remote_tools": [{"node": "TOOL", "description": "Get the time on the machine."}]}';
const REDIS_FROM_ENV = (env: string) => JSON.stringify({ agent: 'graph:app', env, rate_limit: { backend: 'redis', redis: '${REDIS_URL}' } });

function codes(stdout: string): string[] {
  return [...stdout.matchAll(/ \[([a-z-]+)\] /g)].map((m) => m[1]);
}

describe('a Python environment marker', () => {
  test('an empty pyvenv.cfg beside a config hides neither it nor its folder; only the environment folders are left out', async () => {
    const root = join(temp, 'venv');
    write(join(root, 'app', 'pyvenv.cfg'), '');
    write(join(root, 'app', '10xgraph.json'), TWO_ERRORS);
    write(join(root, 'app', 'graph', '10xgraph.json'), TWO_ERRORS);
    // Where an environment keeps what it installs: not the project's.
    write(join(root, 'app', 'lib', 'python3.12', 'site-packages', 'pkg', '10xgraph.json'), TWO_ERRORS);
    write(join(root, 'app', 'bin', '10xgraph.json'), TWO_ERRORS);
    // A marker that is a folder, or a conda-meta that is a file, marks nothing.
    mkdirSync(join(root, 'other', 'pyvenv.cfg'), { recursive: true });
    write(join(root, 'other', 'conda-meta'), '');
    write(join(root, 'other', 'lib', '10xgraph.json'), TWO_ERRORS);
    const result = await runCli(['audit', '--project', '.', '--no-graph', '--format', 'json'], { cwd: root });
    assert.equal(result.code, 1, result.stdout + result.stderr);
    const report = JSON.parse(result.stdout) as { files: Array<{ file: string; problems: Array<{ severity: string }> }> };
    assert.deepEqual(report.files.map((f) => f.file).sort(), ['app/10xgraph.json', 'app/graph/10xgraph.json', 'other/lib/10xgraph.json']);
    for (const file of report.files) assert.equal(file.problems.filter((p) => p.severity === 'error').length, 2, file.file);
  });
});

describe('the env file', () => {
  test('audit looks it up only below the config folder, as the editor does', async () => {
    const dir = join(temp, 'outside', 'app');
    write(join(temp, 'outside', 'x.env'), 'REDIS_URL=redis://127.0.0.1:6379\n');
    for (const env of ['../x.env', join(temp, 'outside', 'x.env')]) {
      write(join(dir, '10xgraph.json'), REDIS_FROM_ENV(env));
      const result = await runCli(['audit', '10xgraph.json', '--no-graph'], { cwd: dir });
      assert.equal(result.code, 0, result.stderr);
      // Its names are not read (the reference stays unknown), and it is not said to be missing.
      assert.deepEqual(codes(result.stdout), ['env-var-not-set'], result.stdout);
      assert.match(result.stdout, /\(which could not be read\)/);
    }
    const files = configFilesOf(join(dir, '10xgraph.json'));
    assert.equal(files.envNames!('../x.env'), undefined);
    assert.equal(files.fileExists!('../missing.env'), true, 'not looked up, so not said to be missing');
  });

  test('over the bound it is not read at all (never its first part); 10xgraph api refuses to load it', async () => {
    const dir = join(temp, 'large');
    write(join(dir, '.env'), `REDIS_URL=redis://127.0.0.1:6379\nPAD=${'x'.repeat(MAX_ENV_FILE_BYTES)}\nLATE=1\n`);
    write(join(dir, '10xgraph.json'), REDIS_FROM_ENV('.env'));
    const result = await runCli(['audit', '10xgraph.json', '--no-graph'], { cwd: dir });
    assert.deepEqual(codes(result.stdout), ['env-var-not-set'], result.stdout);
    assert.match(result.stdout, /the env file "\.env" \(which could not be read\)/);
    const env: NodeJS.ProcessEnv = {};
    assert.throws(
      () => loadEnvFile(join(dir, '10xgraph.json'), '.env', env),
      (e: Error) => e instanceof EnvFileError && /"\.env" cannot be loaded: it is larger than 256 KB/.test(e.message),
    );
    assert.deepEqual(env, {}, 'nothing set from a part of it');
    const api = await runCli(['api', '--port', '0', '--db', ':memory:'], { cwd: dir, env: { TENXGRAPH_TOKEN: '' } });
    assert.equal(api.code, 1, api.stdout + api.stderr);
    assert.match(api.stderr, /^10xgraph\.json: error the env file "\.env" cannot be loaded: it is larger than 256 KB\.\n10xgraph api: not started/m);
  });

  test('a FIFO is named for what it is, never opened for reading, and api refuses it', async () => {
    const dir = join(temp, 'fifo');
    mkdirSync(dir, { recursive: true });
    execFileSync('mkfifo', [join(dir, '.env')]);
    write(join(dir, '10xgraph.json'), JSON.stringify({ agent: 'graph:app', env: '.env' }));
    const result = await runCli(['audit', '10xgraph.json', '--no-graph'], { cwd: dir, timeoutMs: 20_000 });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /warning \[env-file-missing\] The env file "\.env" is a FIFO, not a regular file: the server skips it silently/);
    assert.throws(() => loadEnvFile(join(dir, '10xgraph.json'), '.env', {}), /cannot be loaded: it is a FIFO, not a regular file/);
    // A link to a FIFO inside the folder is the same.
    symlinkSync('.env', join(dir, 'link.env'));
    assert.equal(configFilesOf(join(dir, '10xgraph.json')).notRegular!('link.env'), 'a FIFO');
  });
});

describe('files whose size is not known in advance', () => {
  test('a file of /proc (size 0) is read to its end', async () => {
    const read = await readRegularFile('/proc/self/status', 1 << 20, true);
    assert.ok('text' in read, JSON.stringify(read));
    assert.match(read.text, /^Name:/);
    assert.match(read.text, /\nPid:\s+\d+/);
    const small = await readRegularFile('/proc/self/status', 1024, true);
    assert.deepEqual(small, { skipped: 'it is larger than 1 KB' });
  });
});
