/**
 * `10xgraph audit [FILE | -] [--graph-url URL | --no-graph] [--format text|json|sarif] [--fix]`:
 * the rule set run over one file and printed; with `--project [DIR]`, over every config of a
 * project and its JS/TS sources together (./auditProject.ts). Exit 0 when no error, 1 when errors, 2 when it
 * could not run. Every line of text output has its control characters escaped (names come from
 * the file, and no line is a CI workflow command); JSON and SARIF carry the exact text, what a
 * terminal or a CI runner would act on written as JSON escapes.
 */
import { dirname, resolve } from 'node:path';
import { analyzeConfig, applySafeFixes, LineIndex, type AuditOptions, type Problem } from '../rules/index';
import { findAgentCandidates } from '../workspace/agentCandidates';
import { ConfigReadError, displayPath, readConfigFile, readConfigStream, type ConfigFile } from '../workspace/configFile';
import { configFilesOf, defaultConfigPath } from '../workspace/configFiles';
import { startupImportProblems } from '../workspace/pythonModules';
import { FileChangedError, writeFixedFile } from './fixFile';
import { countProblems, formatProblemLine, problemRange } from '../rules/problemText';
import type { GraphSource } from './auditGraph';
import { readArgs, UsageError, type OptionSpecs } from './args';
import { escapeControl, jsonForLog } from '../text/escapeControl';
import { sarifUri, toSarif } from './sarif';

const HELP = `usage: 10xgraph audit [FILE | -] [--graph-url URL | --no-graph] [--format text|json|sarif] [--fix]
       10xgraph audit --project [DIR] [--graph-url URL | --no-graph] [--format text|json|sarif]

Checks FILE (default ./10xgraph.json, or ./agentflow.json when only that exists; - reads standard input) with the rule set the server
runs at start-up.

By default the node names are checked against the graph of the agent module the file names:
audit RUNS THAT MODULE'S CODE, as 10xgraph api does (a .ts module is compiled first). A Python
module (graph.react:app is graph/react.py) is read, never run; a graph it cannot read exactly
is said so and the rules that need it are skipped. On a file you do not trust,
pass --no-graph (nothing is run or read besides FILE) or --graph-url (the graph is asked of a
running server).

  --graph-url URL   check node names against the server running at URL (GET /v1/graph);
                    TENXGRAPH_TOKEN is sent as a bearer token; no module is run
  --no-graph        run no code and skip the rules that need the graph
  --format FORMAT   text (default), json or sarif
  --project         check every 10xgraph.json of the project in DIR (default .) and its JS/TS
                    sources together, as the editor does: handlers without a tool, tools
                    without a handler; nothing is run (node names are judged on the graph read
                    from the agent module's source); node_modules and .gitignore are left out
  --fix             apply every safe quick fix to FILE (its mode, owner and links kept),
                    then report what is left; refused when FILE changes meanwhile
  --timeout-ms N    time allowed for --graph-url (default 2000)

Exit status: 0 no error, 1 errors found, 2 could not run.`;

interface AuditArgs {
  file: string;
  graphUrl?: string;
  noGraph: boolean;
  format: 'text' | 'json' | 'sarif';
  fix: boolean;
  timeoutMs: number;
  project: boolean;
}

const OPTIONS: OptionSpecs = {
  help: { type: 'boolean', short: 'h' },
  'graph-url': { type: 'string' },
  'no-graph': { type: 'boolean' },
  fix: { type: 'boolean' },
  project: { type: 'boolean' },
  format: { type: 'string' },
  'timeout-ms': { type: 'string' },
};

function parseArgs(argv: string[]): AuditArgs | 'help' {
  const args: AuditArgs = { file: '', noGraph: false, format: 'text', fix: false, timeoutMs: 2000, project: false };
  let fileSeen = false;
  for (const { flag, value } of readArgs(argv, OPTIONS)) {
    switch (flag) {
      case '-h':
      case '--help':
        return 'help';
      case '--graph-url':
        args.graphUrl = value();
        break;
      case '--no-graph':
        args.noGraph = true;
        break;
      case '--fix':
        args.fix = true;
        break;
      case '--project':
        args.project = true;
        break;
      case '--format': {
        const format = value();
        if (format !== 'text' && format !== 'json' && format !== 'sarif') throw new UsageError(`--format must be text, json or sarif, not '${format}'.`);
        args.format = format;
        break;
      }
      case '--timeout-ms': {
        const n = Number(value());
        if (!Number.isInteger(n) || n <= 0) throw new UsageError('--timeout-ms takes a positive whole number of milliseconds.');
        args.timeoutMs = n;
        break;
      }
      default:
        if (flag.startsWith('-') && flag !== '-') throw new UsageError(`unknown option '${flag}'.`);
        if (fileSeen) throw new UsageError(`only one FILE may be given ('${args.file}', then '${flag}').`);
        args.file = flag;
        fileSeen = true;
    }
  }
  if (args.graphUrl !== undefined && args.noGraph) throw new UsageError('--graph-url and --no-graph cannot be used together.');
  if (args.project && (args.fix || args.file === '-')) throw new UsageError('--project reads the project from disk: it takes a folder, and no --fix.');
  if (args.fix && args.file === '-') throw new UsageError('--fix cannot write to standard input: give the path of the file to fix.');
  return args;
}

/** Runs `10xgraph audit` with `argv`; resolves to the exit code. */
export async function runAudit(argv: string[], out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): Promise<number> {
  let args: AuditArgs | 'help';
  try {
    args = parseArgs(argv);
  } catch (error) {
    err.write(`10xgraph audit: ${escapeControl((error as Error).message)}\nRun '10xgraph audit --help' for usage.\n`);
    return 2;
  }
  if (args === 'help') {
    out.write(HELP + '\n');
    return 0;
  }
  if (args.project) {
    const { runProjectAudit } = await import('./auditProject');
    return runProjectAudit({ dir: args.file, graphUrl: args.graphUrl, noGraph: args.noGraph, format: args.format, timeoutMs: args.timeoutMs }, out, err);
  }
  // `-` is standard input: the agent module is looked for in the working folder, as for a
  // ./10xgraph.json, and there is no file for --fix to write.
  const stdin = args.file === '-';
  const path = resolve(stdin ? '10xgraph.json' : args.file || defaultConfigPath());
  const shown = stdin ? '<stdin>' : displayPath(path);
  let text: string;
  let read: ConfigFile | undefined;
  try {
    if (stdin) text = await readConfigStream(process.stdin, shown);
    else {
      read = readConfigFile(path, shown);
      text = read.text;
    }
  } catch (error) {
    const hint = error instanceof ConfigReadError && error.reason === 'not-regular' ? ' To read standard input, give - as FILE.' : '';
    err.write(`10xgraph audit: ${escapeControl((error as Error).message)}${hint}\n`);
    return 2;
  }

  let source: GraphSource;
  if (args.noGraph) {
    source = { mode: 'skipped', note: '(--no-graph): node names not checked' };
  } else if (args.graphUrl !== undefined) {
    // Loaded only when used: an audit pays for no code it does not run (HTTP, the graph library).
    const { fetchLiveGraph } = await import('../live/fetchGraph');
    const result = await fetchLiveGraph(args.graphUrl, { timeoutMs: args.timeoutMs, token: process.env.TENXGRAPH_TOKEN || undefined });
    if (!result.ok) {
      err.write(escapeControl(`10xgraph audit: could not read the graph from ${args.graphUrl}: ${result.error}.`) + '\n');
      return 2;
    }
    source = { mode: 'url', graph: result.graph, note: `from ${args.graphUrl} (${result.graph.nodes.length} nodes)` };
  } else {
    const { loadGraphForAudit } = await import('./auditGraph');
    const loaded = await loadGraphForAudit(path, text);
    if ('error' in loaded) {
      err.write(
        `10xgraph audit: could not load the agent module: ${escapeControl(loaded.error)}\nPass --no-graph to check the file without the graph, or --graph-url URL to check it against a running server.\n`,
      );
      return 2;
    }
    source = loaded;
  }

  // The modules beside the file are read (never run) only to suggest an "agent" when it is
  // missing; with --no-graph the folder is not looked at at all.
  // The files beside the config (the env file's names, never its values; which modules exist).
  const options: AuditOptions = {
    ...(source.graph ? { graph: source.graph } : {}),
    ...(stdin ? {} : { files: configFilesOf(path) }),
    ...(source.agentUnresolved === undefined ? {} : { agentUnresolved: source.agentUnresolved }),
  };
  const judge = (judged: string, problems: Problem[]): Problem[] => {
    if (args.noGraph || !problems.some((p) => p.code === 'agent-missing')) return problems;
    return analyzeConfig(judged, { ...options, agentCandidates: findAgentCandidates(dirname(path)) }).problems;
  };
  let problems: Problem[];
  let fixedCount = 0;
  if (args.fix) {
    // The suggested agents only word the message: their fixes are never safe, never applied here.
    const result = applySafeFixes(text, options);
    problems = judge(result.text, result.problems);
    fixedCount = result.applied;
    if (result.applied > 0 && read) {
      try {
        await writeFixedFile(path, read, result.text);
      } catch (error) {
        if (error instanceof FileChangedError) err.write(escapeControl(`10xgraph audit: ${shown} changed since it was read; nothing was written: run the audit again.`) + '\n');
        else err.write(escapeControl(`10xgraph audit: could not write the fixes to ${shown}: ${(error as Error).message}`) + '\n');
        return 2;
      }
      text = result.text;
    }
  } else {
    problems = judge(text, analyzeConfig(text, options).problems);
  }
  // The modules the settings import are read beside the file, as the agent module is (not with --no-graph).
  if (!args.noGraph) {
    const more = await startupImportProblems(path, text);
    if (more.length) problems = [...problems, ...more].sort((a, b) => a.offset - b.offset);
  }

  const lines = new LineIndex(text);
  if (args.format === 'json') {
    out.write(jsonForLog(toJsonReport(shown, source, problems, lines)) + '\n');
  } else if (args.format === 'sarif') {
    out.write(jsonForLog(toSarif([{ uri: stdin ? 'stdin' : sarifUri(path), text, problems }])) + '\n');
  } else {
    for (const problem of problems) out.write(formatProblemLine(shown, lines, problem) + '\n');
    const fixed = args.fix ? `fixed ${fixedCount} problem${fixedCount === 1 ? '' : 's'}; ` : '';
    out.write(escapeControl(`${shown}: ${fixed}${countProblems(problems)}; graph ${source.mode === 'url' ? 'fetched' : source.mode} ${source.note}`) + '\n');
  }
  return problems.some((p) => p.severity === 'error') ? 1 : 0;
}

/** The `--format json` report (docs/spec.md §4). */
function toJsonReport(file: string, source: GraphSource, problems: readonly Problem[], lines: LineIndex) {
  return {
    file,
    graph: source.mode,
    // Where the graph came from, or why the graph rules were skipped: the text summary's words.
    note: source.note,
    problems: problems.map((p) => ({ code: p.code, severity: p.severity, message: p.message, range: problemRange(lines, p) })),
  };
}
