/**
 * Start-up parity (issue 3): for every file of the fixture corpus, `10xgraph api` refuses to start
 * exactly when `10xgraph audit` reports an error, and prints the same problem lines; when it starts,
 * it logs the warnings audit reports, and no information.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { relative } from 'node:path';
import { loadCorpus } from '../support/corpus';
import { CLI, ROOT, runCli } from '../support/run';

interface Started {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `10xgraph api` on `config`; when it says it listens, stops it with SIGTERM. */
function runApi(config: string): Promise<Started> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'api', '--config', config, '--port', '0', '--db', ':memory:'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let stopped = false;
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      if (!stopped && /Listening on http:\/\/127\.0\.0\.1:\d+/.test(stdout)) {
        stopped = true;
        child.kill('SIGTERM');
      }
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const lines = (text: string) => text.split('\n').filter((l) => l !== '');

for (const c of loadCorpus()) {
  test(`corpus ${c.name}: api starts exactly when audit finds no error, with the same problem lines`, async () => {
    const shown = relative(ROOT, c.path);
    const [audit, api] = await Promise.all([runCli(['audit', shown]), runApi(shown)]);
    const auditLines = lines(audit.stdout).slice(0, -1);
    const errors = auditLines.filter((l) => l.includes(': error ['));
    const warnings = auditLines.filter((l) => l.includes(': warning ['));
    if (audit.code === 1) {
      assert.equal(api.code, 1, `api should refuse ${shown}: ${api.stderr}`);
      assert.doesNotMatch(api.stdout, /Listening on/);
      assert.deepEqual(lines(api.stderr), [...errors, '10xgraph api: not started: fix the errors above and start again.']);
    } else {
      assert.equal(audit.code, 0, audit.stderr);
      assert.equal(api.code, 0, `api should start on ${shown}: ${api.stderr}`);
      assert.match(api.stdout, /Attached \d+ configured remote tools[\s\S]*Listening on http:\/\/127\.0\.0\.1:\d+[\s\S]*Stopping \(SIGTERM\)/);
      // Besides: one line naming the keys only the Python server (or its tools) applies, when the file has some.
      const [problemLines, notApplied] = [
        lines(api.stderr).filter((l) => !l.startsWith('Not applied by 10xgraph api')),
        lines(api.stderr).filter((l) => l.startsWith('Not applied by 10xgraph api')),
      ];
      assert.deepEqual(problemLines, warnings, 'api logs exactly the warnings audit reports, and no information');
      assert.ok(notApplied.length <= 1, api.stderr);
    }
  });
}
