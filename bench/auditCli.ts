/**
 * `10xgraph audit` as a whole process, the way CI and pre-commit hooks run it: the quick-start
 * config checked by the built CLI (`runtime/bin/10xgraph.js`), against `node -e 0`, the cost of
 * starting Node at all. The two run in pairs, in a random order within each pair, so both see
 * the same machine load; the figures are medians over every pair. The target (issue 10): the
 * default audit of the quick start, which loads and runs the agent module, within 1.5× of
 * `node -e 0`. Its compiled module comes from the cache (node_modules/.cache/10xgraph) from the
 * second run on; the same audit with `TENXGRAPH_CACHE=off`, which starts esbuild every time,
 * is measured too.
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
  /** Variables added to the environment. */
  env?: Record<string, string>;
}

const ANCHOR: Command = { label: '`node -e 0`', args: ['-e', '0'], code: 0, runs: 0 };
const COMMANDS: Command[] = [
  { label: '`10xgraph audit --no-graph` (quick start)', args: [CLI, 'audit', QUICKSTART, '--no-graph'], code: 0, runs: 60 },
  { label: '`10xgraph audit --no-graph --format sarif`', args: [CLI, 'audit', QUICKSTART, '--no-graph', '--format', 'sarif'], code: 0, runs: 60 },
  { label: '`10xgraph audit` (loads and runs the agent module; compiled module cached)', args: [CLI, 'audit', QUICKSTART], code: 0, runs: 60 },
  { label: '`10xgraph audit` with `TENXGRAPH_CACHE=off` (esbuild compiles on every run)', args: [CLI, 'audit', QUICKSTART], code: 0, runs: 30, env: { TENXGRAPH_CACHE: 'off' } },
];

/** Wall-clock milliseconds of one run of `node ...args`. */
function timeOnce(command: Command): number {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, command.args, { cwd: ROOT, env: { ...process.env, ...command.env }, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
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
  const pairRatios: number[] = [];
  for (const command of COMMANDS) {
    log(`audit-cli: ${command.label}, ${command.runs} pairs`);
    const r = pairs(command);
    pairRatios.push(median(r.ratios));
    rows.push([command.label, String(command.runs), ms(median(r.anchor)), ms(median(r.command)), ratio(median(r.command) / median(r.anchor)), ratio(median(r.ratios))]);
  }
  const cached = pairRatios[2]!;
  const verdict = `Target: the default audit at most 1.5× \`node -e 0\` (median of pair ratios): ${ratio(cached)}, ${cached <= 1.5 ? 'met' : 'not met'}; the first, uncached run: ${ratio(pairRatios[3]!)}.`;
  return `## \`10xgraph audit\` as a process, against \`node -e 0\` (audit-cli)

Whole processes, as CI runs them: the built CLI on examples/quickstart/10xgraph.json, each run paired with a
\`node -e 0\` in a random order within the pair, after three unmeasured pairs. Wall-clock medians in milliseconds.
Target (issue 10): the default audit, which loads the agent module (examples/quickstart/graph.ts) and runs it to know
the graph, within 1.5× of \`node -e 0\`. From its second run on, the compiled module comes from
\`node_modules/.cache/10xgraph\` (checked against the text of every file that went into it); the first run of a
checkout, or every run with \`TENXGRAPH_CACHE=off\`, starts esbuild to compile it (the last row).

${table(['command', 'pairs', '`node -e 0` ms', 'command ms', 'ratio of medians', 'median of pair ratios'], rows)}

${verdict}
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
