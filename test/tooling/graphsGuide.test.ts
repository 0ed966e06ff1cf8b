/**
 * The TypeScript of the guides: every ```ts block of docs/graphs.md and of the packages' READMEs
 * type-checks under `strict` against the repository's `10xgraph` and `10xgraph-client` (their
 * sources, as `tsc -b` reads them), each block as a module of its own. A block preceded by
 * `<!-- run -->` is also run with tsx against the built packages (`node esbuild.mjs`), and what it
 * prints must be the ```text block that follows it.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';

const ROOT = join(__dirname, '..', '..');
const GUIDES = ['docs/graphs.md', 'runtime/README.md', 'client-sdk/README.md', 'server/README.md'];

/** One ```ts block: where it stands, its code, and (when marked to run) the output it must print. */
interface Snippet {
  source: string;
  code: string;
  expected?: string;
}

/** Reads the ```ts blocks of a Markdown file, with the ```text block after each one marked `<!-- run -->`. */
function extractSnippets(file: string): Snippet[] {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  const snippets: Snippet[] = [];
  const blockAt = (start: number): { lang: string; body: string; end: number } | undefined => {
    const open = /^```(\w*)\s*$/.exec(lines[start] ?? '');
    if (!open) return undefined;
    let end = start + 1;
    while (end < lines.length && !/^```\s*$/.test(lines[end]!)) end++;
    assert.ok(end < lines.length, `${file}:${start + 1}: a code block is never closed`);
    return { lang: open[1]!, body: lines.slice(start + 1, end).join('\n'), end };
  };
  for (let i = 0; i < lines.length; i++) {
    const block = blockAt(i);
    if (!block) continue;
    if (block.lang === 'ts' || block.lang === 'typescript') {
      let previous = i - 1;
      while (previous >= 0 && lines[previous]!.trim() === '') previous--;
      const runnable = previous >= 0 && lines[previous]!.trim() === '<!-- run -->';
      const snippet: Snippet = { source: `${file}:${i + 2}`, code: block.body };
      if (runnable) {
        let next = block.end + 1;
        while (next < lines.length && lines[next]!.trim() === '') next++;
        const output = blockAt(next);
        assert.ok(output && output.lang === 'text', `${file}:${i + 1}: a block marked <!-- run --> must be followed by a \`\`\`text block of its output`);
        snippet.expected = output.body;
      }
      snippets.push(snippet);
    }
    i = block.end;
  }
  return snippets;
}

/** Runs a snippet with tsx in `cwd` and resolves to what it printed. */
function runSnippet(file: string, cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', file], { cwd, env: { ...process.env, OPENAI_API_KEY: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('the TypeScript of docs/graphs.md and of the packages’ READMEs', () => {
  const snippets = GUIDES.flatMap((file) => extractSnippets(file).map((snippet) => ({ ...snippet, guide: file })));
  const files = new Map<Snippet, string>();
  let folder: string;

  before(() => {
    // A project of its own outside the repository, as a user's: ESM, the repository's packages
    // (and tsx, typescript, @types/node) through a node_modules link.
    folder = mkdtempSync(join(tmpdir(), '10xgraph-guides-'));
    symlinkSync(join(ROOT, 'node_modules'), join(folder, 'node_modules'), 'dir');
    writeFileSync(join(folder, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    snippets.forEach((snippet, i) => {
      const file = join(folder, `snippet${i + 1}.ts`);
      writeFileSync(file, `${snippet.code}\nexport {};\n`);
      files.set(snippet, file);
    });
  });

  after(() => {
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  test('the guides have the blocks they are expected to have', () => {
    const of = (guide: string) => snippets.filter((snippet) => snippet.guide === guide);
    assert.ok(of('docs/graphs.md').length >= 8, `docs/graphs.md has ${of('docs/graphs.md').length} ts blocks`);
    assert.ok(of('docs/graphs.md').filter((snippet) => snippet.expected !== undefined).length >= 5, 'docs/graphs.md runs at least five of its blocks');
    assert.ok(of('runtime/README.md').length >= 1);
    assert.ok(of('client-sdk/README.md').length >= 1);
    const text = readFileSync(join(ROOT, 'docs', 'graphs.md'), 'utf8');
    for (const name of [
      'StateGraph',
      'ToolNode',
      'ModelNode',
      'START',
      'END',
      'toolsCondition',
      'addConditionalEdges',
      'compile(',
      'attachRemoteTools',
      'ScriptedModel',
      'OpenAIChatModel',
      'OPENAI_BASE_URL',
      'OPENAI_MODEL',
      'OPENAI_API_KEY',
      'remote_tools',
      'status: "waiting"',
    ]) {
      assert.ok(text.includes(name), `docs/graphs.md never mentions ${name}`);
    }
  });

  test('every block type-checks under strict against the 10xgraph and 10xgraph-client sources', () => {
    const options: ts.CompilerOptions = {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      types: ['node'],
      typeRoots: [join(folder, 'node_modules', '@types')],
      esModuleInterop: true,
      skipLibCheck: true,
      // As tsconfig.base.json: the packages' sources stand for their built declarations.
      customConditions: ['10xgraph-source'],
      paths: {
        '10xgraph-client': [join(ROOT, 'client-sdk', 'src', 'index.ts')],
        '10xgraph-client/wire': [join(ROOT, 'client-sdk', 'src', 'wire.ts')],
      },
    };
    const program = ts.createProgram([...files.values()], options);
    const problems: string[] = [];
    for (const [snippet, file] of files) {
      const source = program.getSourceFile(file);
      assert.ok(source, `${snippet.source}: not compiled`);
      for (const diagnostic of [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]) {
        const line = diagnostic.start === undefined ? 0 : source.getLineAndCharacterOfPosition(diagnostic.start).line;
        const [guide, first] = snippet.source.split(':');
        problems.push(`${guide}:${Number(first) + line}: TS${diagnostic.code} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`);
      }
    }
    assert.deepEqual(problems, []);
  });

  for (const snippet of snippets.filter((s) => s.expected !== undefined)) {
    test(`${snippet.source} prints the output shown after it`, async () => {
      const ran = await runSnippet(files.get(snippet)!, folder);
      assert.equal(ran.code, 0, `${snippet.source} failed:\n${ran.stdout}\n${ran.stderr}`);
      assert.equal(ran.stdout.trimEnd(), snippet.expected!.trimEnd(), ran.stderr);
    });
  }
});
