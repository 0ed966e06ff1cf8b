/**
 * The language server over stdio, against the bundle (`dist/server.js`): the time from a
 * `didChange` to the diagnostics published for that version, p50 and p95 over 200 edits, on
 * files of 100, 1,000 and 10,000 tools; the server's resident memory with the 10,000-tool file
 * open. Side by side, in the same run: the rule set's own audit of the same text (the floor)
 * and `vscode-json-languageservice` parsing and validating it against the schema. Then the time
 * from spawning the server to the first diagnostics of a config opened at once, and its resident
 * memory then (before any project index runs: no workspace folder), against
 * `vscode-json-language-server` (vscode-langservers-extracted) validating the same file against
 * the schema, at 1,000 and 10,000 tools.
 *
 *   node --import tsx bench/server.ts            # after `npm run build`; prints the Markdown section
 *   node --import tsx bench/server.ts --startup  # the start-up table alone
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  createProtocolConnection,
  DidChangeConfigurationNotification,
  DidChangeTextDocumentNotification,
  DidOpenTextDocumentNotification,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  PublishDiagnosticsNotification,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-languageserver-protocol/node';
import { generateConfig } from './generate';
import { jsonLanguageService, rules } from './implementations';
import { median, ms, percentile, table, timeRuns } from './measure';
import { memoryMiB, positionOf, startServer } from './project';

const ROOT = join(__dirname, '..');
const SIZES = [100, 1_000, 10_000] as const;
const STARTUP_SIZES = [1_000, 10_000] as const;
/** Spawns per server and size: the median is reported. */
const STARTUP_RUNS = 5;
/** The targets of the start-up table: at least this many times faster than the JSON language server, at most this many MiB resident. */
const STARTUP_SPEEDUP = 5;
const STARTUP_MAX_RSS_MIB = 60;
const JSON_SERVER = join(ROOT, 'node_modules', 'vscode-langservers-extracted', 'lib', 'json-language-server', 'node', 'jsonServerMain.js');
const EDITS = 200;
/** No size spends longer than this on edits, so a slow machine still finishes in bounded time. */
const MAX_SECONDS_PER_SIZE = 30;

interface SizeResult {
  tools: number;
  bytes: number;
  latencies: number[];
  audit: number[];
  jsonService: number[];
  rssMiB?: number;
}

async function measureSize(tools: number, dir: string, log: (line: string) => void): Promise<SizeResult> {
  let text = generateConfig(tools);
  const result: SizeResult = { tools, bytes: Buffer.byteLength(text), latencies: [], audit: [], jsonService: [] };
  const server = await startServer(join(dir, 'cache'), undefined);
  try {
    const uri = pathToFileURL(join(dir, `bench-${tools}`, '10xgraph.json')).href;
    const opened = server.waitVersion(uri, 1);
    await server.connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: 'json', version: 1, text } });
    await opened;
    // Each edit types one character into a description in the middle of the file.
    const anchor = text.indexOf(`record number ${Math.floor(tools / 2)} `) + 'record number '.length;
    const position = positionOf(text, anchor);
    const deadline = Date.now() + MAX_SECONDS_PER_SIZE * 1000;
    for (let i = 0; i < EDITS + 5 && Date.now() < deadline; i++) {
      const version = i + 2;
      const digit = String(i % 10);
      text = text.slice(0, anchor) + digit + text.slice(anchor + 1);
      const published = server.waitVersion(uri, version);
      const start = process.hrtime.bigint();
      await server.connection.sendNotification(DidChangeTextDocumentNotification.type, {
        textDocument: { uri, version },
        contentChanges: [{ range: { start: position, end: { line: position.line, character: position.character + 1 } }, text: digit }],
      });
      await published;
      // The first few edits warm the server up and are not counted.
      if (i >= 5) result.latencies.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    if (tools === 10_000) result.rssMiB = memoryMiB(server.pid).rss;
  } finally {
    await server.stop();
  }
  const runs = tools <= 1_000 ? 41 : 11;
  result.audit = timeRuns(() => rules.auditConfig(text), runs, 2);
  for (let i = 0; i < (tools <= 1_000 ? 7 : 3); i++) {
    const start = process.hrtime.bigint();
    await jsonLanguageService(text);
    result.jsonService.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  log(`server bench: ${tools} tools done (${result.latencies.length} edits)`);
  return result;
}

/** Throws, saying what to install, when the JSON language server of the start-up table is not installed. */
function requireJsonServer(): void {
  if (!existsSync(JSON_SERVER)) {
    throw new Error(`the start-up table needs vscode-langservers-extracted (${JSON_SERVER} is missing): run npm install`);
  }
}

/** One server's start-up: spawn to the first diagnostics of a config opened at once, and its resident memory then. */
interface Startup {
  ms: number;
  rssMiB: number | undefined;
}

/**
 * Spawns `kind`'s server, initializes it, opens the config of `tools` tools and waits for its first
 * `publishDiagnostics`. The JSON language server is told the schema of the file first (as VS Code's
 * `json.schemas` would), so that it validates what the 10xgraph server checks, not syntax alone.
 */
async function measureStartup(kind: '10xgraph' | 'json', tools: number, dir: string): Promise<Startup> {
  const text = generateConfig(tools);
  const uri = pathToFileURL(join(dir, `start-${tools}`, '10xgraph.json')).href;
  const start = process.hrtime.bigint();
  const child = spawn(process.execPath, [kind === '10xgraph' ? join(ROOT, 'dist', 'server.js') : JSON_SERVER, '--stdio'], { stdio: ['pipe', 'pipe', 'ignore'] });
  const connection = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  // A server that dies before its first diagnostics fails the run instead of leaving every await pending.
  const died = new Promise<never>((_, reject) =>
    child.once('exit', (code, signal) =>
      reject(new Error(`${kind === 'json' ? 'vscode-json-language-server' : 'the 10xgraph language server'} exited (${code ?? signal}) before its first diagnostics`)),
    ),
  );
  died.catch(() => undefined);
  const first = new Promise<void>((resolve) =>
    connection.onNotification(PublishDiagnosticsNotification.type, (p) => {
      if (p.uri === uri) resolve();
    }),
  );
  connection.listen();
  try {
    await Promise.race([died, initializeAndOpen()]).catch(async (error: unknown) => {
      // The closed connection often fails a request before the exit event arrives: name the exit when there is one.
      throw await Promise.race([died.catch((exit: unknown) => exit), new Promise((r) => setTimeout(() => r(error), 500))]);
    });
    const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
    return { ms: elapsed, rssMiB: memoryMiB(child.pid!).rss };
  } finally {
    // sendRequest throws at once on a closed connection (a server that died): caught here too.
    await Promise.race([
      Promise.resolve().then(() => connection.sendRequest(ShutdownRequest.type).then(() => connection.sendNotification(ExitNotification.type))),
      new Promise((r) => setTimeout(r, 2000)),
    ]).catch(() => undefined);
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      setTimeout(() => child.kill(), 2000).unref();
      await exited;
    }
    connection.dispose();
  }

  async function initializeAndOpen(): Promise<void> {
    await connection.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      rootUri: null,
      workspaceFolders: null,
      capabilities: { textDocument: { publishDiagnostics: { versionSupport: true } } },
      initializationOptions: kind === '10xgraph' ? { storagePath: join(dir, 'cache'), settings: { server: { enabled: false } } } : { provideFormatter: false },
    });
    await connection.sendNotification(InitializedNotification.type, {});
    if (kind === 'json') {
      const schema = pathToFileURL(join(ROOT, 'schemas', '10xgraph.schema.json')).href;
      await connection.sendNotification(DidChangeConfigurationNotification.type, {
        settings: { json: { validate: { enable: true }, schemas: [{ fileMatch: ['10xgraph.json'], url: schema }] } },
      });
    }
    await connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: 'json', version: 1, text } });
    await first;
  }
}

/** The start-up table: the median of `STARTUP_RUNS` spawns per server and size, and whether the targets are met. */
async function benchStartup(dir: string, log: (line: string) => void): Promise<string> {
  requireJsonServer();
  const rows: string[][] = [];
  const verdicts: string[] = [];
  for (const tools of STARTUP_SIZES) {
    const runs: Record<'10xgraph' | 'json', Startup[]> = { '10xgraph': [], json: [] };
    // Alternated, so that a slow moment of the machine costs both alike.
    for (let i = 0; i < STARTUP_RUNS; i++) for (const kind of ['10xgraph', 'json'] as const) runs[kind].push(await measureStartup(kind, tools, dir));
    const time = (kind: '10xgraph' | 'json') => median(runs[kind].map((r) => r.ms));
    const rss = (kind: '10xgraph' | 'json') => {
      const values = runs[kind].map((r) => r.rssMiB).filter((v): v is number => v !== undefined);
      return values.length ? median(values) : undefined;
    };
    const ours = time('10xgraph');
    const theirs = time('json');
    const speedup = theirs / ours;
    const ourRss = rss('10xgraph');
    const theirRss = rss('json');
    const mib = (v: number | undefined) => (v === undefined ? 'n/a' : `${v.toFixed(0)} MiB`);
    rows.push([tools.toLocaleString('en-US'), ms(ours), mib(ourRss), ms(theirs), mib(theirRss), `${speedup.toFixed(1)}×`]);
    verdicts.push(
      `${tools.toLocaleString('en-US')} tools: ${speedup.toFixed(1)}× faster (${speedup >= STARTUP_SPEEDUP ? 'met' : '**not met**'}), ${mib(ourRss)} resident (${ourRss !== undefined && ourRss <= STARTUP_MAX_RSS_MIB ? 'met' : '**not met**'})`,
    );
    log(`server bench: start-up at ${tools} tools done`);
  }
  return `### Start-up: spawn to first diagnostics

The time from spawning the server to receiving the first \`publishDiagnostics\` of a config opened right after
\`initialized\` (no workspace folder, so no project index runs; no live graph), and the server's resident memory
(VmRSS) at that moment; the median of ${STARTUP_RUNS} spawns each. Beside it, \`vscode-json-language-server\` (from
vscode-langservers-extracted) given \`schemas/10xgraph.schema.json\` for the file through \`json.schemas\`: the
same file, validated against the schema. That server waits 500 ms after a document opens before it validates
(its \`validationDelayMs\`), which is part of what an editor waits for. ajv (\`dist/server-ajv.js\`) is not read
until a schema needs it. Times in ms.

${table(['tools', '10xgraph: spawn → diagnostics', 'resident', 'vscode-json-language-server', 'resident', 'speed-up'], rows)}

Target (issue 19): at least ${STARTUP_SPEEDUP}× faster than \`vscode-json-language-server\` at 1,000 and 10,000 tools, and at most
${STARTUP_MAX_RSS_MIB} MiB resident before the project index runs: ${verdicts.join('; ')}.
`;
}

/** Runs the language-server benchmark and returns its Markdown section. */
export async function benchServer(log: (line: string) => void = () => undefined): Promise<string> {
  requireJsonServer();
  const dir = mkdtempSync(join(tmpdir(), '10xgraph-ls-bench-'));
  const results: SizeResult[] = [];
  let startup: string;
  try {
    for (const tools of SIZES) results.push(await measureSize(tools, dir, log));
    startup = await benchStartup(dir, log);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const rows = results.map((r) => [
    r.tools.toLocaleString('en-US'),
    `${(r.bytes / 1024 / 1024).toFixed(2)} MB`,
    String(r.latencies.length),
    ms(percentile(r.latencies, 50)),
    ms(percentile(r.latencies, 95)),
    ms(median(r.audit)),
    ms(percentile(r.audit, 95)),
    ms(median(r.jsonService)),
    ms(percentile(r.latencies, 95) - median(r.audit)),
  ]);
  const at1k = results.find((r) => r.tools === 1_000)!;
  const overhead = percentile(at1k.latencies, 95) - median(at1k.audit);
  const rss = results.find((r) => r.tools === 10_000)?.rssMiB;
  return `## The language server

Over stdio against the bundle \`dist/server.js\` (push mode, no live graph): the time from sending a \`didChange\`
(one character typed into a description in the middle of the file) to receiving the \`publishDiagnostics\` of that
version, over ${EDITS} sequential edits after 5 unmeasured ones. Side by side on the same text in this process: the
rule set's own \`auditConfig\` of the whole text (the bundle \`runtime/dist/rules.js\`: parse and checks, as
\`10xgraph audit\` runs it) and \`vscode-json-languageservice\` parsing and validating it against
\`schemas/10xgraph.schema.json\`. The server parses only when it must: an edit inside one string value reuses the
previous version's tree (\`AuditOptions.previous\`, the same problems as a fresh audit), so a keystroke in a
description can cost it less than an audit. Times in ms.

${table(['tools', 'size', 'edits', 'didChange → diagnostics p50', 'p95', 'audit median', 'audit p95', 'json-languageservice median', 'p95 − audit median'], rows)}

Target (issue 4): p95 at 1,000 tools within the audit time plus 5 ms: ${ms(percentile(at1k.latencies, 95))} ms against
${ms(median(at1k.audit))} + 5 ms, ${overhead <= 5 ? 'met' : '**not met**'}.
Resident memory of the server process with the 10,000-tool file open (VmRSS): ${rss === undefined ? 'not available on this system' : `${rss.toFixed(0)} MiB`}.

${startup}`;
}

/** Prints why a run from the command line failed, and fails the process. */
function reportFailure(error: unknown): void {
  process.stderr.write(`bench/server.ts: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}

if (require.main === module && process.argv.includes('--startup')) {
  const dir = mkdtempSync(join(tmpdir(), '10xgraph-ls-bench-'));
  void benchStartup(dir, (line) => process.stderr.write(line + '\n'))
    .then((markdown) => process.stdout.write(markdown + '\n'))
    .catch(reportFailure)
    .finally(() => rmSync(dir, { recursive: true, force: true }));
} else if (require.main === module) {
  void benchServer((line) => process.stderr.write(line + '\n'))
    .then((markdown) => process.stdout.write(markdown + '\n'))
    .catch(reportFailure);
}
