/**
 * `10xgraph audit` as a whole process, the way CI and pre-commit hooks run it: the quick-start
 * config checked by the built CLI (`runtime/bin/10xgraph.js`), against `node -e 0`, the cost of
 * starting Node at all. The two run in pairs, in a random order within each pair, so both see
 * the same machine load; the figures are medians over every pair. The target: audit with
 * `--no-graph` within 1.5× of `node -e 0`. The default audit also compiles (esbuild) and runs
 * the agent module, which no start-up trimming can hide; it is shown for scale.
 *
 *   node --import tsx bench/auditCli.ts      # after `npm run build`; prints the Markdown section
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { median, ms, ratio, table } from './measure';

const ROOT = join(__dirname, '..');
const CLI = join(ROOT, 'runtime', 'bin', '10xgraph.js');
const QUICKSTART = join(ROOT, 'examples', 'quickstart', '10xgraph.json');

interface Command {
  label: string;
  args: string[];
  /** The exit code the command must end with (a wrong code makes the figures meaningless). */
  code: number;
  /** How many pairs to run. */
  runs: number;
}

const ANCHOR: Command = { label: '`node -e 0`', args: ['-e', '0'], code: 0, runs: 0 };
const COMMANDS: Command[] = [
  { label: '`10xgraph audit --no-graph` (quick start)', args: [CLI, 'audit', QUICKSTART, '--no-graph'], code: 0, runs: 60 },
  { label: '`10xgraph audit --no-graph --format sarif`', args: [CLI, 'audit', QUICKSTART, '--no-graph', '--format', 'sarif'], code: 0, runs: 60 },
  { label: '`10xgraph audit` (runs the agent module)', args: [CLI, 'audit', QUICKSTART], code: 0, runs: 20 },
];

/** Wall-clock milliseconds of one run of `node ...args`. */
function timeOnce(command: Command): number {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, command.args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== command.code) throw new Error(`${command.label} exited ${result.status}: ${result.stderr.slice(0, 300)}`);
  return elapsed;
}

/** Paired runs of the anchor and `command`: both sample lists and the per-pair ratios. */
function pairs(command: Command): { anchor: number[]; command: number[]; ratios: number[] } {
  // Warm-up: the file system cache and Node's compile cache settle before anything counts.
  for (let i = 0; i < 3; i++) {
    timeOnce(ANCHOR);
    timeOnce(command);
  }
  const out = { anchor: [] as number[], command: [] as number[], ratios: [] as number[] };
  for (let i = 0; i < command.runs; i++) {
    let a: number;
    let c: number;
    if (Math.random() < 0.5) {
      a = timeOnce(ANCHOR);
      c = timeOnce(command);
    } else {
      c = timeOnce(command);
      a = timeOnce(ANCHOR);
    }
    out.anchor.push(a);
    out.command.push(c);
    out.ratios.push(c / a);
  }
  return out;
}

/** The `audit-cli` section of bench/REPORT.md. */
export async function benchAuditCli(log: (line: string) => void = () => undefined): Promise<string> {
  const rows: string[][] = [];
  for (const command of COMMANDS) {
    log(`audit-cli: ${command.label}, ${command.runs} pairs`);
    const r = pairs(command);
    rows.push([command.label, String(command.runs), ms(median(r.anchor)), ms(median(r.command)), ratio(median(r.command) / median(r.anchor)), ratio(median(r.ratios))]);
  }
  return `## \`10xgraph audit\` as a process, against \`node -e 0\` (audit-cli)

Whole processes, as CI runs them: the built CLI on examples/quickstart/10xgraph.json, each run paired with a
\`node -e 0\` in a random order within the pair. Wall-clock medians in milliseconds. Target: \`--no-graph\`
within 1.5× of \`node -e 0\`. The default audit compiles and runs the agent module (esbuild's service
process included), shown for scale.

${table(['command', 'pairs', '`node -e 0` ms', 'command ms', 'ratio of medians', 'median of pair ratios'], rows)}
`;
}

if (require.main === module) {
  benchAuditCli((line) => process.stderr.write(line + '\n')).then(
    (markdown) => process.stdout.write(markdown),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
