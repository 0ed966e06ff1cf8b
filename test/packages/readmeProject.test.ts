/**
 * The READMEs as a new user follows them, in a fresh project (`npm init -y`, CommonJS as npm makes it) in a
 * temporary folder outside the repository: the install lines of the repository's README (the tarballs of
 * `scripts/package.mjs` for `./artifacts/…`, the optional peers at the versions this repository builds with,
 * so that npm finds them in its cache), `10xgraph.json` and `graph.ts` from runtime/README.md,
 * `npx 10xgraph types --out src/remote-tools.ts`, `npx 10xgraph audit`, `npx 10xgraph api` on a free port, and
 * client-sdk/README.md's client run against it with tsx as its first line says. Every ```ts block of the
 * repository's README and of the three package READMEs then compiles with `tsc --strict` as written: in a file
 * named by its first line when that line names one (`// client.mts: …`), else in a `.ts` file of that
 * CommonJS project, all in `src/` beside the generated types (the snippets are browser code: `lib` has DOM).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { killUserApis, must, packTarballs, QUIET_INSTALL, ROOT, run, startUserApi, stopUserApi, versionOf } from './helpers';

const READMES = ['README.md', 'runtime/README.md', 'client-sdk/README.md', 'server/README.md'];

/** One fenced block of a README: its language, its text and where it starts (`README.md:336`). */
interface Block {
  lang: string;
  code: string;
  source: string;
}

/** Every fenced block of a Markdown file of the repository. */
function readBlocks(file: string): Block[] {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    let end = i + 1;
    while (end < lines.length && !/^```\s*$/.test(lines[end]!)) end++;
    blocks.push({ lang: open[1]!, code: lines.slice(i + 1, end).join('\n') + '\n', source: `${file}:${i + 2}` });
    i = end;
  }
  return blocks;
}

/** The file a snippet names on its first line (`// client.mts: …`, `// graph.ts`), if it names one. */
function fileNamedBy(code: string): string | undefined {
  return /^\/\/ ([\w.-]+\.(?:ts|mts|cts))\b/.exec(code)?.[1];
}

/** The `npm install` lines of the repository's README for a project (not `-g`), as a user types them. */
function readmeInstallLines(): string[][] {
  const lines = readBlocks('README.md')
    .filter((block) => block.lang === 'sh')
    .flatMap((block) => block.code.split('\n'))
    .map((line) => line.replace(/#.*$/, '').trim())
    .filter((line) => line.startsWith('npm install ./artifacts/') || line.startsWith('npm install esbuild'));
  return lines.map((line) => line.split(/\s+/).slice(2));
}

const STRICT_TSCONFIG = {
  compilerOptions: { strict: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2022', 'DOM'], types: ['node'], noEmit: true },
  include: ['*.ts', '*.mts', '*.cts'],
};

describe('the READMEs followed in a fresh project outside the repository', { timeout: 900_000 }, () => {
  let work: string;
  let project: string;
  const servers: ChildProcess[] = [];
  const runtimeBlocks = readBlocks('runtime/README.md');
  const clientBlock = readBlocks('client-sdk/README.md').find((block) => block.lang === 'ts');

  before(async () => {
    work = mkdtempSync(join(tmpdir(), '10xgraph-readme-'));
    const artifacts = join(work, 'artifacts');
    await packTarballs(artifacts);
    project = join(work, 'project');
    mkdirSync(project);
    await must('npm', ['init', '-y'], project);
    // The README's lines: the tarballs from where they were packed, each peer at the version npm has cached.
    const pinned = (name: string) => (name.startsWith('./artifacts/') ? join(artifacts, name.slice('./artifacts/'.length)) : `${name}@${versionOf(name)}`);
    const lines = readmeInstallLines();
    assert.ok(lines.some((names) => names.includes('esbuild')) && lines.some((names) => names.some((n) => n.includes('10xgraph-0'))), JSON.stringify(lines));
    // The tarballs of the package line that installs both, then the peers; plus what the READMEs run it with:
    // tsx (client-sdk/README.md's first line), and typescript and @types/node to check the snippets.
    const packages = lines.find((names) => names.some((n) => n.includes('10xgraph-0')))!;
    const peers = lines.find((names) => names.includes('esbuild'))!;
    const extra = ['tsx', 'typescript', '@types/node', 'ws', '@types/ws'];
    await must('npm', ['install', ...QUIET_INSTALL, ...[...packages, ...peers, ...extra].map(pinned)], project, { timeoutMs: 600_000 });
  });

  after(() => {
    killUserApis(servers);
    if (work) rmSync(work, { recursive: true, force: true });
  });

  test("runtime/README.md's config and graph, types, audit, api, and client-sdk/README.md's client against it", async () => {
    const config = runtimeBlocks.find((block) => block.lang === 'json');
    const graph = runtimeBlocks.find((block) => block.lang === 'ts' && block.code.includes("from '10xgraph'"));
    assert.ok(config && graph && clientBlock, 'runtime/README.md gives 10xgraph.json and graph.ts; client-sdk/README.md a client');
    assert.equal(fileNamedBy(graph.code), 'graph.ts', `${graph.source}: the graph names its file`);
    writeFileSync(join(project, '10xgraph.json'), config.code);
    writeFileSync(join(project, 'graph.ts'), graph.code);

    mkdirSync(join(project, 'src'));
    await must('npx', ['10xgraph', 'types', '--out', 'src/remote-tools.ts'], project);
    assert.match(readFileSync(join(project, 'src', 'remote-tools.ts'), 'utf8'), /read_clipboard/);

    const audit = await run('npx', ['10xgraph', 'audit'], project);
    assert.equal(audit.code, 0, audit.stdout + audit.stderr);
    assert.match(audit.stdout, /^10xgraph\.json: no problems; graph loaded from the agent module 'graph:app'/m);

    // `npx 10xgraph api` as the README starts it, on a free port instead of 8000.
    const { server, url, output } = await startUserApi(['--port', '0'], project, servers);
    try {
      assert.match(output(), /Attached 2 configured remote tools \(to TOOL\)/);
      const file = fileNamedBy(clientBlock.code) ?? '';
      assert.ok(file.endsWith('.mts'), `${clientBlock.source}: a client with top-level await names its ES module file on its first line`);
      assert.match(clientBlock.code.split('\n')[0]!, /npx tsx /, `${clientBlock.source}: the first line says how to run it`);
      assert.ok(clientBlock.code.includes("'http://127.0.0.1:8000'"));
      writeFileSync(join(project, file), clientBlock.code.replace("'http://127.0.0.1:8000'", `'${url}'`));
      const ran = await run('npx', ['tsx', file], project, { timeoutMs: 60_000 });
      assert.equal(ran.code, 0, ran.stdout + ran.stderr);
      // Node has no clipboard: the handler fails, the model reads the failed result, and the run completes.
      assert.match(ran.stdout, /^completed /, ran.stdout + ran.stderr);
    } finally {
      await stopUserApi(server);
    }
  });

  test('every ```ts block of the four READMEs compiles with tsc --strict as written', async () => {
    const snippets = READMES.flatMap((file) => readBlocks(file).filter((block) => block.lang === 'ts' || block.lang === 'typescript'));
    assert.ok(snippets.length >= 4, snippets.map((s) => s.source).join(', '));
    const folder = join(project, 'src');
    const names = new Map<string, string>();
    snippets.forEach((snippet, i) => {
      const named = fileNamedBy(snippet.code);
      const file = named === undefined ? `snippet${i + 1}.ts` : named.replace(/(\.m?c?ts)$/, `-${i + 1}$1`);
      names.set(file, snippet.source);
      writeFileSync(join(folder, file), snippet.code);
    });
    writeFileSync(join(folder, 'tsconfig.json'), JSON.stringify(STRICT_TSCONFIG, null, 2));
    const ran = await run(process.execPath, [join(project, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', folder, '--pretty', 'false'], project, { timeoutMs: 300_000 });
    const shown = ran.stdout.replace(/^(?:src\/)?([\w.-]+)\((\d+),(\d+)\)/gm, (all, file: string) => `${names.get(file) ?? file} ${all}`);
    assert.equal(ran.code, 0, `tsc --strict rejected README snippets:\n${shown}${ran.stderr}`);
  });
});
