// `npm run fuzz [-- --seed N] [--runs N] [--no-build] [filter...]`: runs the fuzz properties of
// test/hardening/fuzz*.test.ts long, with a random seed unless one is given (FUZZ_SEED also
// works), FUZZ_RUNS runs per property (default 2000; properties that spawn processes run a
// twentieth), and prints the seed and the shrunk counterexample of every failure.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
const filters = [];
let seed = process.env.FUZZ_SEED;
let runs = process.env.FUZZ_RUNS;
let build = true;

/** The integer value of an option, or exit 2 with a one-line reason. */
function integerOption(name, value) {
  if (value === undefined || !/^-?\d+$/.test(value)) {
    console.error(`fuzz: ${name} takes an integer, not '${value ?? ''}'.`);
    process.exit(2);
  }
  return value;
}

for (let i = 0; i < args.length; i++) {
  const arg = args[i];
  if (arg === '--seed') seed = integerOption('--seed', args[++i]);
  else if (arg.startsWith('--seed=')) seed = integerOption('--seed', arg.slice(7));
  else if (arg === '--runs') runs = integerOption('--runs', args[++i]);
  else if (arg.startsWith('--runs=')) runs = integerOption('--runs', arg.slice(7));
  else if (arg === '--no-build') build = false;
  else if (arg === '-h' || arg === '--help') {
    console.log('usage: npm run fuzz -- [--seed N] [--runs N] [--no-build] [filter...]');
    process.exit(0);
  } else if (arg.startsWith('-')) {
    console.error(`fuzz: unknown option '${arg}'.`);
    process.exit(2);
  } else filters.push(arg);
}
seed = Number(seed ?? randomInt(0, 2 ** 31 - 1));
runs = Number(runs ?? 2000);

const dir = join(root, 'test', 'hardening');
const files = readdirSync(dir)
  .filter((f) => /^fuzz.*\.test\.ts$/.test(f))
  .map((f) => relative(root, join(dir, f)))
  .filter((f) => filters.length === 0 || filters.some((x) => f.toLowerCase().includes(x.toLowerCase())))
  .sort();
if (files.length === 0) {
  console.error(`fuzz: no fuzz test matches ${filters.join(' ')}`);
  process.exit(2);
}

if (build) {
  // The parity properties run the built language server and CLI.
  const built = spawnSync(process.execPath, ['esbuild.mjs'], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) process.exit(built.status ?? 1);
}

const reportDir = mkdtempSync(join(tmpdir(), '10xgraph-fuzz-'));
const report = join(reportDir, 'failures.jsonl');
const replay = `FUZZ_SEED=${seed} FUZZ_RUNS=${runs} node scripts/test.mjs ${files.join(' ')}`;
console.log(`fuzz: seed ${seed}, ${runs} runs per property, ${files.join(', ')}`);
console.log(`fuzz: replay with: ${replay}\n`);
const started = Date.now();
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', ...files], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, TENXGRAPH_TEST: '1', FUZZ_SEED: String(seed), FUZZ_RUNS: String(runs), FUZZ_REPORT: report },
});
const seconds = ((Date.now() - started) / 1000).toFixed(1);
const failures = existsSync(report)
  ? readFileSync(report, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
  : [];
rmSync(reportDir, { recursive: true, force: true });

console.log(`\nfuzz: seed ${seed}, ${runs} runs per property, ${seconds} s`);
if (failures.length === 0 && result.status === 0) {
  console.log('fuzz: every property held.');
  process.exit(0);
}
for (const f of failures) {
  console.log(`\nFAILED ${f.property} (seed ${f.seed}, path ${f.path})`);
  console.log(`counterexample: ${f.counterexample}`);
  console.log(`reason: ${f.reason.split('\n')[0]}`);
}
if (failures.length === 0) console.log('fuzz: a test failed outside the properties; see the output above.');
console.log(`\nfuzz: replay with: ${replay}`);
process.exit(result.status || 1);
