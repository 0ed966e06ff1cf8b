// Runs every test file under test/ with Node's own test runner (TypeScript through tsx).
// `node scripts/test.mjs [filter...]` runs only the files whose path contains a filter.
// The tests run with TMPDIR set to a fresh folder, which must be empty when they end: a test
// that leaves a file or a folder behind (or a process that does) fails the run.
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const filters = process.argv.slice(2);

/** Lists test files below `dir`, skipping fixtures. */
function findTests(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (name === 'fixtures' || name === 'node_modules') continue;
    if (statSync(path).isDirectory()) out.push(...findTests(path));
    else if (name.endsWith('.test.ts')) out.push(relative(root, path));
  }
  return out.sort();
}

// The end-to-end suite packages the extension (a production rebuild of dist/): it runs last.
const isE2e = (f) => f.startsWith(join('test', 'e2e'));
const files = findTests(join(root, 'test'))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort((a, b) => Number(isE2e(a)) - Number(isE2e(b)) || a.localeCompare(b));
if (files.length === 0) {
  console.error(`test: no test file matches ${filters.join(' ')}`);
  process.exit(1);
}
const temp = mkdtempSync(join(tmpdir(), '10xgraph-test-run-'));
// Others may pass through (not list) it: the PostgreSQL tests run the server as the unprivileged
// `postgres` user inside a folder of their own below it.
chmodSync(temp, 0o711);
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', ...files], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, TENXGRAPH_TEST: '1', TMPDIR: temp, TMP: temp, TEMP: temp },
});
// tsx keeps its compile cache in `tsx-<uid>` of the temporary folder: the loader's own, made by
// every test process before any test runs, not something a test leaves.
const left = readdirSync(temp).filter((name) => !/^tsx-\d+$/.test(name));
rmSync(temp, { recursive: true, force: true });
if (left.length > 0) {
  console.error(
    `test: the tests left ${left.length} entr${left.length === 1 ? 'y' : 'ies'} in the temporary folder; each test must remove what it makes: ${left.slice(0, 20).join(', ')}${left.length > 20 ? ', …' : ''}`,
  );
  process.exit(1);
}
process.exit(result.status ?? 1);
