/**
 * Hostile files through every front end: `10xgraph audit --no-graph`, the language server (over
 * stdio) and `10xgraph api --port 0`. Each file gets a clear problem or a clear refusal within a
 * time bound, with the process's peak memory bounded. The files are generated at test time in a
 * temporary folder (beside a copy of the corpus graph module, so `api` can load its agent):
 * 50 MB, one line of 10 MB, nesting 100,000 deep (closed and unclosed), 1,000,000 tools, keys of
 * 1 MB, every Unicode plane (noncharacters and lone surrogates included), and over 64 MB.
 */
import { after, before, describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Diagnostic } from 'vscode-languageserver-protocol/node';
import { formatProblemLine } from '../../runtime/src/rules/problemText';
import { auditConfig, LineIndex, type Problem } from '../../runtime/src/rules/index';
import { generateConfig } from '../../bench/generate';
import { CORPUS_GRAPH } from '../support/corpus';
import { TestClient, fileUri, waitFor } from '../support/lspClient';
import { createAgentFolder, type AgentFolder } from './support/agentFolder';
import { peakRss, runMeasured, type MeasuredRun } from './support/processes';

const MB = 1024 * 1024;
/** The bound on any process's peak resident memory. */
const MEMORY_BOUND = 1.5 * 1024 * MB;
/**
 * `api` holds the loaded graph and every attached tool besides the text: its bound is larger
 * (a linear start-up with 1,000,000 tools measured about 1.9 GB on the development machine).
 */
const API_MEMORY_BOUND = 2.5 * 1024 * MB;
/** The language server's bound on what it checks while typing (server/src/diagnostics.ts). */
const LS_MAX_LENGTH = 5 * MB;
const LISTENING = (out: string) => /Listening on http:\/\/127\.0\.0\.1:\d+/.test(out);

/** One hostile file and what each front end must make of it. */
interface Hostile {
  name: string;
  /** The text, or the raw bytes for a file that is not UTF-8. */
  make: () => string | Buffer;
  /** Time bounds (ms) for audit, api and the language server's answer. */
  bounds: { audit: number; api: number; ls: number };
}

const errorLines = (file: string, text: string, problems: Problem[]) => {
  const lines = new LineIndex(text);
  return problems.filter((p) => p.severity === 'error').map((p) => formatProblemLine(file, lines, p));
};

function mb(bytes: number): string {
  return `${(bytes / MB).toFixed(0)} MB`;
}

/** A config of `tools` minimal tools on `TOOL`, one tool a line. */
function manyTools(tools: number): string {
  const parts: string[] = new Array(tools);
  for (let i = 0; i < tools; i++) parts[i] = `{"node":"TOOL","name":"t${i}","description":"Do a thing."}`;
  return `{"agent":"graph:app","remote_tools":[\n${parts.join(',\n')}\n]}\n`;
}

/** A benchmark config of about `bytes` (its sprinkled problems included: one tool in 997 is broken). */
function configOfSize(bytes: number, options: { problems?: boolean } = {}): string {
  const per = generateConfig(100, options).length / 100;
  return generateConfig(Math.round(bytes / per), options);
}

/** One character from each Unicode plane 0–16, then noncharacters. */
const PLANE_CHARS = Array.from({ length: 17 }, (_, plane) => String.fromCodePoint(plane * 0x10000 + 0x1f00 + plane));
const NONCHARACTERS = [
  '\uFDD0',
  '\uFDEF',
  '\uFFFE',
  '\uFFFF',
  ...Array.from({ length: 16 }, (_, i) => String.fromCodePoint((i + 1) * 0x10000 + 0xfffe, (i + 1) * 0x10000 + 0xffff)),
];

/**
 * Every plane on one line before a warning (columns count UTF-16 units), astral keys and
 * property names, noncharacters, escaped lone surrogates. No error: start-up attaches every tool.
 */
function everyPlane(): string {
  const tools = PLANE_CHARS.map((ch, plane) => {
    const key = `k${ch}`;
    return `    {"node": "TOOL", "name": "plane_${plane}", "description": "Text from plane ${plane}: ${ch}${ch} and more.", "parameters": {"type": "object", "properties": {${JSON.stringify(key)}: {"type": "string", "description": "${ch}"}}, "required": [${JSON.stringify(key)}]}}`;
  });
  tools.push(`    {"description": "${PLANE_CHARS.join('')} every plane, then a bad name.", "node": "TOOL", "name": "bad ${PLANE_CHARS.join('')}"}`);
  tools.push(`    {"node": "TOOL", "name": "nonchars", "description": "Noncharacters ${NONCHARACTERS.join(' ')} inside."}`);
  tools.push(
    `    {"node": "TOOL", "name": "lone", "description": "Escaped lone surrogates \\ud800 and \\udfff and a pair \\ud83d\\ude00 here.", "parameters": {"type": "object", "properties": {"\\udc00": {"type": "string"}}}}`,
  );
  return `{\n  "agent": "graph:app",\n  "remote_tools": [\n${tools.join(',\n')}\n  ]\n}\n`;
}

/** A config holding raw lone surrogates: as UTF-8 bytes (WTF-8), not valid UTF-8. */
function loneSurrogateText(): string {
  return `{"agent": "graph:app", "remote_tools": [{"node": "TOOL", "name": "x\uD800", "description": "Lone \uDC00 and \uD800 raw here.", "\uDFFF": 1}]}`;
}

function wtf8(text: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdfff) {
      const next = text.charCodeAt(i + 1);
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        bytes.push(...Buffer.from(text.slice(i, i + 2), 'utf8'));
        i++;
      } else {
        bytes.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f));
      }
    } else {
      bytes.push(...Buffer.from(text[i], 'utf8'));
    }
  }
  return Buffer.from(bytes);
}

describe('hostile files', () => {
  let folder: AgentFolder;
  let client: TestClient;
  let documents = 0;

  before(async () => {
    folder = createAgentFolder('10xgraph-hostile-');
    client = await TestClient.start({ initializationOptions: { settings: { files: ['**/*.json'], server: { enabled: false } } } });
  });

  after(async () => {
    await client?.stop();
    folder?.remove();
  });

  /** Writes `content` as 10xgraph.json and returns its path. */
  function writeConfig(content: string | Buffer): string {
    const path = join(folder.dir, '10xgraph.json');
    writeFileSync(path, content);
    return path;
  }

  const audit = (timeoutMs: number) => runMeasured(['audit', '10xgraph.json', '--no-graph', '--format', 'json'], { cwd: folder.dir, timeoutMs });
  const api = (timeoutMs: number) => runMeasured(['api', '--config', '10xgraph.json', '--port', '0', '--db', ':memory:'], { cwd: folder.dir, timeoutMs, ready: LISTENING });

  function assertBounded(t: TestContext, run: MeasuredRun, what: string, timeMs: number, memory = MEMORY_BOUND): void {
    t.diagnostic(`${what}: ${run.timedOut ? 'killed after' : ''} ${run.ms} ms, peak ${mb(run.peakBytes)}, ${run.ready ? 'listening' : `exit ${run.code}`}`);
    assert.equal(run.timedOut, false, `${what} ran past ${timeMs} ms and was killed (peak ${mb(run.peakBytes)})`);
    assert.ok(run.ms <= timeMs, `${what} took ${run.ms} ms, over ${timeMs} ms`);
    assert.ok(run.peakBytes > 0, `${what}: no memory sample`);
    assert.ok(run.peakBytes < memory, `${what} peaked at ${mb(run.peakBytes)}, over ${mb(memory)}`);
    assert.doesNotMatch(run.stderr, /\n\s+at /, `${what} printed a stack trace`);
  }

  /** The audit report's problems must be the rule set's, positions included. */
  function assertAuditReport(run: MeasuredRun, text: string): void {
    const report = JSON.parse(run.stdout) as { graph: string; problems: Array<{ code: string; severity: string; range: unknown }> };
    assert.equal(report.graph, 'skipped');
    const lines = new LineIndex(text);
    const expected = auditConfig(text).map((p) => ({
      code: p.code,
      severity: p.severity,
      range: { start: lines.positionAt(p.offset), end: lines.positionAt(p.offset + p.length) },
    }));
    assert.deepStrictEqual(
      report.problems.map(({ code, severity, range }) => ({ code, severity, range })),
      expected,
    );
    assert.equal(run.code, expected.some((p) => p.severity === 'error') ? 1 : 0);
  }

  /** Opens `text` in the language server; returns its diagnostics, the time to them and the server's peak memory. */
  async function openInServer(t: TestContext, text: string, timeoutMs: number): Promise<{ diagnostics: Diagnostic[]; ms: number; peakBytes: number }> {
    const uri = fileUri(join(folder.dir, `open-${++documents}.json`));
    const started = Date.now();
    await client.open(uri, text);
    const found = await waitFor(() => client.latest(uri)?.version === 1 && client.latest(uri), `diagnostics of ${uri}`, timeoutMs);
    const ms = Date.now() - started;
    await client.close(uri);
    // Still responsive: a small document is checked promptly after the big one.
    const small = fileUri(join(folder.dir, `small-${documents}.json`));
    await client.open(small, '{"agent": "graph:app", "remote_tools": {}}');
    const smallDiagnostics = await waitFor(() => client.latest(small)?.version === 1 && client.latest(small), `diagnostics of ${small}`, 10_000);
    assert.deepEqual(
      smallDiagnostics.diagnostics.map((d) => d.code),
      ['remote-tools-not-list'],
    );
    await client.close(small);
    assert.ok(client.alive, `the language server died: ${client.stderr}`);
    const peakBytes = peakRss(client.process.pid!) ?? 0;
    t.diagnostic(`language server: ${ms} ms to ${found.diagnostics.length} diagnostic(s), peak ${mb(peakBytes)} so far`);
    assert.ok(peakBytes < MEMORY_BOUND, `the language server peaked at ${mb(peakBytes)}, over ${mb(MEMORY_BOUND)}`);
    return { diagnostics: found.diagnostics, ms, peakBytes };
  }

  /** The server checks a text under its bound exactly as the rule set does. */
  function assertServerMatches(diagnostics: Diagnostic[], text: string): void {
    const lines = new LineIndex(text);
    const expected = auditConfig(text).map((p) => ({ code: p.code, range: { start: lines.positionAt(p.offset), end: lines.positionAt(p.offset + p.length) } }));
    assert.deepStrictEqual(
      diagnostics.map((d) => ({ code: d.code, range: d.range })),
      expected,
    );
  }

  /** A text over the server's bound gets one clear diagnostic, not a check. */
  function assertTooLarge(diagnostics: Diagnostic[], text: string): void {
    assert.ok(text.length > LS_MAX_LENGTH);
    assert.equal(diagnostics.length, 1, JSON.stringify(diagnostics.map((d) => d.code)));
    assert.equal(diagnostics[0].code, 'file-too-large');
    assert.match(diagnostics[0].message, /over the 5 MB the editor checks while you type; run `npx 10xgraph audit <file>`/);
    assert.deepEqual(diagnostics[0].range, { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } });
  }

  test('50 MB of config (85,000 tools, some broken): audited, refused by api on its errors, too large for the editor', async (t) => {
    const text = configOfSize(50 * MB);
    assert.ok(text.length >= 50 * MB);
    writeConfig(text);
    const a = await audit(20_000);
    assertBounded(t, a, 'audit', 20_000);
    assertAuditReport(a, text);
    assert.equal(a.code, 1);

    const s = await api(30_000);
    assertBounded(t, s, 'api', 30_000, API_MEMORY_BOUND);
    assert.equal(s.ready, false);
    assert.equal(s.code, 1);
    const expected = errorLines('10xgraph.json', text, auditConfig(text, { graph: CORPUS_GRAPH }));
    assert.ok(expected.length > 50);
    assert.deepStrictEqual(s.stderr.trimEnd().split('\n'), [...expected, '10xgraph api: not started: fix the errors above and start again.']);

    const ls = await openInServer(t, text, 20_000);
    assertTooLarge(ls.diagnostics, text);
  });

  test('one line of 10 MB: audited with the right columns, started by api, too large for the editor', async (t) => {
    const text = JSON.stringify(JSON.parse(configOfSize(16 * MB, { problems: false })));
    assert.ok(text.length >= 10 * MB && !/[\r\n]/.test(text));
    writeConfig(text);
    const a = await audit(15_000);
    assertBounded(t, a, 'audit', 15_000);
    assertAuditReport(a, text);
    assert.equal(a.code, 0);

    const s = await api(30_000);
    assertBounded(t, s, 'api', 30_000, API_MEMORY_BOUND);
    assert.equal(s.ready, true, `api did not start: ${s.stderr.slice(0, 500)}`);
    const tools = (JSON.parse(text) as { remote_tools: unknown[] }).remote_tools.length;
    assert.match(s.stdout, new RegExp(`Attached ${tools} configured remote tools \\(to TOOL\\)`));

    const ls = await openInServer(t, text, 15_000);
    assertTooLarge(ls.diagnostics, text);
  });

  test('a config just under the editor bound is checked in full, in time', async (t) => {
    const text = configOfSize(LS_MAX_LENGTH - 64 * 1024);
    assert.ok(text.length <= LS_MAX_LENGTH);
    const ls = await openInServer(t, text, 10_000);
    assertServerMatches(ls.diagnostics, text);
    assert.ok(ls.diagnostics.length > 10);
    assert.ok(ls.ms < 10_000, `${ls.ms} ms`);
  });

  for (const [name, text] of [
    ['arrays nested 100,000 deep', `{"agent": "graph:app", "x": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`],
    ['objects nested 100,000 deep, never closed', `{"agent": "graph:app", "x": ${'{"a": '.repeat(100_000)}`],
  ] as const) {
    test(`${name}: one invalid-json problem everywhere`, async (t) => {
      writeConfig(text);
      const a = await audit(10_000);
      assertBounded(t, a, 'audit', 10_000);
      assertAuditReport(a, text);
      const report = JSON.parse(a.stdout) as { problems: Array<{ code: string; message: string }> };
      assert.deepEqual(
        report.problems.map((p) => p.code),
        ['invalid-json'],
      );
      assert.match(report.problems[0].message, /nests deeper than 1000 levels/);

      const s = await api(20_000);
      assertBounded(t, s, 'api', 20_000, API_MEMORY_BOUND);
      assert.equal(s.code, 1);
      assert.deepStrictEqual(s.stderr.trimEnd().split('\n'), [
        ...errorLines('10xgraph.json', text, auditConfig(text)),
        '10xgraph api: not started: fix the errors above and start again.',
      ]);

      const ls = await openInServer(t, text, 10_000);
      assertServerMatches(ls.diagnostics, text);
    });
  }

  test('1,000,000 tools: audited, started by api, too large for the editor', async (t) => {
    const text = manyTools(1_000_000);
    assert.ok(text.length < 64 * MB);
    writeConfig(text);
    const a = await audit(30_000);
    assertBounded(t, a, 'audit', 30_000);
    assert.equal(a.code, 0, a.stderr);
    assert.deepEqual((JSON.parse(a.stdout) as { problems: unknown[] }).problems, []);

    const ls = await openInServer(t, text, 30_000);
    assertTooLarge(ls.diagnostics, text);

    // With a start-up linear in the number of tools this takes ~10 s here.
    const s = await api(40_000);
    assertBounded(t, s, 'api', 40_000, API_MEMORY_BOUND);
    assert.equal(s.ready, true, `api did not start: ${s.stderr.slice(0, 500)}`);
    assert.match(s.stdout, /Attached 1000000 configured remote tools \(to TOOL\)/);
  });

  describe('keys of 1 MB', () => {
    const k = 'k'.repeat(MB);
    const x = 'x'.repeat(MB);
    const text = `{"agent": "graph:app", "${k}": 1, "remote_tools": [{"node": "TOOL", "name": "big_key", "description": "Has a very long field.", "${x}": true}], "${k}": 2}`;

    test('a repeated 1 MB root key and a 1 MB unknown tool field: the right problems, everywhere', async (t) => {
      writeConfig(text);
      const a = await audit(10_000);
      assertBounded(t, a, 'audit', 10_000);
      assertAuditReport(a, text);
      assert.deepEqual(
        (JSON.parse(a.stdout) as { problems: Array<{ code: string }> }).problems.map((p) => p.code),
        ['duplicate-key', 'unknown-key', 'unknown-field', 'unknown-key'],
      );

      const s = await api(20_000);
      assertBounded(t, s, 'api', 20_000, API_MEMORY_BOUND);
      assert.equal(s.code, 1);
      assert.deepStrictEqual(s.stderr.trimEnd().split('\n'), [
        ...errorLines('10xgraph.json', text, auditConfig(text, { graph: CORPUS_GRAPH })),
        '10xgraph api: not started: fix the errors above and start again.',
      ]);

      const ls = await openInServer(t, text, 10_000);
      assertServerMatches(ls.diagnostics, text);
    });

    test('found by hostile files: a message names a 1 MB key without quoting all of it', () => {
      // docs/spec.md §2: a message says in one sentence what is wrong, where and what to do. A message that
      // quotes a 1 MB key whole is a 1 MB line in the terminal, the Problems panel and the log.
      for (const p of auditConfig(text)) assert.ok(p.message.length <= 2000, `${p.code}: the message is ${p.message.length} characters long`);
    });
  });

  test('every Unicode plane, noncharacters and escaped lone surrogates: columns in UTF-16 units, api starts', async (t) => {
    const text = everyPlane();
    writeConfig(text);
    const a = await audit(10_000);
    assertBounded(t, a, 'audit', 10_000);
    assertAuditReport(a, text);
    const codes = (JSON.parse(a.stdout) as { problems: Array<{ code: string }> }).problems.map((p) => p.code);
    assert.ok(codes.includes('invalid-tool-name'), codes.join());
    assert.equal(a.code, 0);
    // The bad name stands after the 17 plane characters (16 of them two UTF-16 units) on its line.
    const lines = new LineIndex(text);
    const bad = auditConfig(text).find((p) => p.code === 'invalid-tool-name')!;
    const line = text.split('\n')[lines.positionAt(bad.offset).line];
    assert.equal(lines.positionAt(bad.offset).character, line.indexOf('"bad '));

    const s = await api(20_000);
    assertBounded(t, s, 'api', 20_000, API_MEMORY_BOUND);
    assert.equal(s.ready, true, `api did not start: ${s.stderr.slice(0, 500)}`);
    assert.match(s.stdout, /Attached 20 configured remote tools \(to TOOL\)/);

    const ls = await openInServer(t, text, 10_000);
    assertServerMatches(ls.diagnostics, text);
  });

  test('raw lone surrogates: not UTF-8 on disk (audit and api refuse, exit 2); checked as text in the editor', async (t) => {
    const text = loneSurrogateText();
    writeConfig(wtf8(text));
    const a = await audit(10_000);
    assertBounded(t, a, 'audit', 10_000);
    assert.equal(a.code, 2);
    assert.match(a.stderr, /10xgraph\.json is not UTF-8 text\./);
    assert.equal(a.stderr.trim().split('\n').length, 1);

    const s = await api(20_000);
    assertBounded(t, s, 'api', 20_000, API_MEMORY_BOUND);
    assert.equal(s.code, 2);
    assert.deepEqual(s.stderr.trimEnd().split('\n'), ['10xgraph api: 10xgraph.json is not UTF-8 text.']);

    // An editor holds UTF-16: the lone surrogates reach the server as text and are judged.
    const ls = await openInServer(t, text, 10_000);
    assertServerMatches(ls.diagnostics, text);
    assert.ok(ls.diagnostics.some((d) => d.code === 'unknown-field'));
  });

  test('over 64 MB: audit refuses (exit 2), the editor does not check it, api answers within its bound', async (t) => {
    const text = `{"agent": "graph:app", "env": "${'n'.repeat(65 * MB)}"}`;
    writeConfig(text);
    const a = await audit(10_000);
    assertBounded(t, a, 'audit', 10_000);
    assert.equal(a.code, 2);
    assert.match(a.stderr, /10xgraph\.json is 65\.0 MB, over the 64 MB limit for a config file\./);
    assert.equal(a.stdout, '');

    const s = await api(30_000);
    assertBounded(t, s, 'api', 30_000, API_MEMORY_BOUND);
    assert.ok(s.ready || s.code === 1 || s.code === 2, `api exited ${s.code}: ${s.stderr.slice(0, 300)}`);
    if (!s.ready) assert.match(s.stderr, /10xgraph\.json/);

    const ls = await openInServer(t, text, 20_000);
    assertTooLarge(ls.diagnostics, text);
    rmSync(join(folder.dir, '10xgraph.json'));
  });
});
