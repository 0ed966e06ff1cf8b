// `10xgraph audit --project` reports what the editor shows: the built CLI and the language server,
// on the same copies of the cross-file fixtures (test/fixtures/project, test/fixtures/project-computed,
// with files the walk must leave out), give the same problems in the same files at the same ranges.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Diagnostic, Range } from 'vscode-languageserver-protocol/node';
import { TestClient, fileUri, tempFolder, waitFor } from '../support/lspClient';
import { ROOT, runCli } from '../support/run';

interface Seen {
  code: string;
  severity: string;
  message: string;
  range: Range;
}

interface JsonReport {
  graph: string;
  files: Array<{ file: string; problems: Seen[] }>;
}

const SEVERITY: Record<number, string> = { 1: 'error', 2: 'warning', 3: 'information' };

function seenOf(diagnostics: Diagnostic[]): Seen[] {
  return diagnostics.map((d) => ({ code: String(d.code), severity: SEVERITY[d.severity!], message: d.message, range: d.range })).sort(byPlace);
}

function byPlace(a: Seen, b: Seen): number {
  return a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0);
}

/** Copies a fixture into a temporary folder with the files the walk must skip (node_modules, .gitignore). */
function copyFixture(name: string): string {
  const ws = tempFolder(`10xgraph-audit-project-${name}-`);
  cpSync(join(ROOT, 'test', 'fixtures', name), ws, { recursive: true });
  mkdirSync(join(ws, 'node_modules', 'some-client'), { recursive: true });
  writeFileSync(join(ws, 'node_modules', 'some-client', 'index.js'), "client.registerToolHandler('search_notes', () => []);\n");
  writeFileSync(join(ws, '.gitignore'), 'generated/\n');
  mkdirSync(join(ws, 'generated'));
  writeFileSync(join(ws, 'generated', 'handlers.ts'), "client.registerToolHandler('search_notes', () => []);\n");
  return ws;
}

for (const fixture of ['project', 'project-computed']) {
  describe(`audit --project on test/fixtures/${fixture}`, () => {
    let ws = '';
    let client: TestClient;
    let report: JsonReport;

    before(async () => {
      ws = copyFixture(fixture);
      const run = await runCli(['audit', '--project', ws, '--format', 'json'], { cwd: ws });
      assert.equal(run.stderr, '');
      assert.equal(run.code, 0, run.stdout);
      report = JSON.parse(run.stdout) as JsonReport;
      client = await TestClient.start({ pull: true, workspaceFolders: [{ uri: fileUri(ws), name: fixture }], initializationOptions: { settings: { server: { enabled: false } } } });
    });
    after(async () => {
      await client?.stop();
      rmSync(ws, { recursive: true, force: true });
    });

    test('reads the files the editor indexes, and none it leaves out', () => {
      const files = report.files.map((f) => relative(ws, join(ws, f.file)).split('\\').join('/')).sort();
      assert.ok(files.includes('10xgraph.json') && files.includes('graph.ts'), files.join());
      assert.ok(!files.some((f) => f.startsWith('node_modules/') || f.startsWith('generated/')), files.join());
      assert.equal(report.graph, 'read');
    });

    test('every file has the problems the editor shows, at the same ranges', async () => {
      let projectProblems = 0;
      for (const file of report.files) {
        const path = join(ws, file.file);
        const uri = fileUri(path);
        const languageId = path.endsWith('.json') ? 'json' : path.endsWith('.js') ? 'javascript' : 'typescript';
        await client.open(uri, readFileSync(path, 'utf8'), languageId);
        const expected = [...file.problems].sort(byPlace);
        projectProblems += expected.filter((p) => ['handler-missing', 'handler-undeclared', 'graph-not-read'].includes(p.code)).length;
        // The editor's project diagnostics come once its index is built: pull until they agree, then compare.
        let last: Seen[] = [];
        const shown = await waitFor(async () => {
          const pulled = (await client.pull(uri)) as { items?: Diagnostic[] };
          last = seenOf(pulled.items ?? []);
          return JSON.stringify(last) === JSON.stringify(expected) ? last : undefined;
        }, `the editor's diagnostics of ${file.file} to be those of audit --project`).catch((error: Error) =>
          assert.fail(`${error.message}: ${JSON.stringify(last)} against ${JSON.stringify(expected)}`),
        );
        assert.deepEqual(shown, expected, file.file);
        await client.close(uri);
      }
      assert.ok(projectProblems > 0, 'the fixture yields project problems');
    });
  });
}

test('audit --project prints each problem as FILE:LINE:COL in text, and one SARIF result per problem', async () => {
  const ws = copyFixture('project');
  try {
    const text = await runCli(['audit', '--project', '.'], { cwd: ws });
    assert.equal(text.code, 0);
    assert.match(text.stdout, /^10xgraph\.json:18:15: information \[handler-missing\] .*'search_notes'/m);
    assert.match(text.stdout, /^client\.ts:7:24: information \[handler-undeclared\] .*'search_note'/m);
    const sarif = JSON.parse((await runCli(['audit', '--project', '.', '--format', 'sarif'], { cwd: ws })).stdout) as {
      runs: Array<{ results: Array<{ ruleId: string; locations: Array<{ physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }> }> }>;
    };
    assert.deepEqual(
      sarif.runs[0].results.map((r) => [r.ruleId, r.locations[0].physicalLocation.artifactLocation.uri, r.locations[0].physicalLocation.region.startLine]),
      [
        ['handler-missing', '10xgraph.json', 18],
        ['handler-undeclared', 'client.ts', 7],
      ],
    );
    const refused = await runCli(['audit', '--project', '.', '--fix'], { cwd: ws });
    assert.equal(refused.code, 2);
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
});
