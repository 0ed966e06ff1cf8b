import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importsOf, listSources, ROOT } from './importGraph';

const exportsOfRuntime = Object.keys(JSON.parse(readFileSync(join(ROOT, 'runtime', 'package.json'), 'utf8')).exports as Record<string, unknown>).map((key) =>
  key === '.' ? '10xgraph' : `10xgraph/${key.slice(2)}`,
);

/** Every import of the files below `dir` that reaches into one of `forbidden` (repository-relative folders). */
function crossings(dir: string, forbidden: string[]): string[] {
  const found: string[] = [];
  for (const file of listSources(dir)) {
    for (const edge of importsOf(file)) {
      if (edge.target && forbidden.some((folder) => edge.target!.startsWith(`${folder}/`))) found.push(`${file}: ${edge.specifier}`);
    }
  }
  return found;
}

test('the language server and the extension reach the runtime only through its package name, and each other only through common/', () => {
  assert.deepEqual(crossings('server/src', ['runtime', 'client']), []);
  assert.deepEqual(crossings('client/src', ['runtime', 'server']), []);
  assert.deepEqual(crossings('common', ['runtime', 'server', 'client']), []);
});

test('every 10xgraph import of the server and the extension is a public entry point of the runtime', () => {
  const paths = Object.keys(
    (JSON.parse(readFileSync(join(ROOT, 'tsconfig.base.json'), 'utf8').replace(/^\s*\/\/.*$/gm, '')) as { compilerOptions: { paths: Record<string, unknown> } }).compilerOptions
      .paths,
  );
  const used = new Set<string>();
  for (const file of [...listSources('server/src'), ...listSources('client/src')]) {
    for (const edge of importsOf(file)) if (edge.specifier === '10xgraph' || edge.specifier.startsWith('10xgraph/')) used.add(edge.specifier);
  }
  assert.ok(used.size > 0, 'the server imports the rule set');
  for (const specifier of used) {
    assert.ok(exportsOfRuntime.includes(specifier), `${specifier} is not in runtime/package.json "exports"`);
    assert.ok(paths.includes(specifier), `${specifier} is not mapped to its source in tsconfig.base.json "paths"`);
  }
});

test('the runtime library never imports a front end: only the CLI imports runtime/src/cli', () => {
  const library = listSources('runtime/src').filter((file) => !file.startsWith('runtime/src/cli/'));
  assert.ok(library.length > 30);
  const found = library.flatMap((file) =>
    importsOf(file)
      .filter((edge) => edge.target?.startsWith('runtime/src/cli/'))
      .map((edge) => `${file}: ${edge.specifier}`),
  );
  assert.deepEqual(found, []);
});

test('the client package stands alone: it imports nothing outside client-sdk/, and no package at run time', () => {
  const found: string[] = [];
  for (const file of listSources('client-sdk/src')) {
    for (const edge of importsOf(file)) {
      if (edge.specifier.startsWith('.') ? !edge.target?.startsWith('client-sdk/') : !edge.typeOnly) found.push(`${file}: ${edge.specifier}`);
    }
  }
  assert.deepEqual(found, []);
});

test('wire.ts is the one declaration of every shape that travels and of the run limits', () => {
  const WIRE = 'client-sdk/src/wire.ts';
  const shapes = [
    'RemoteToolCall',
    'RemoteCall',
    'StreamChunk',
    'RunChunk',
    'ResponseMetadata',
    'Metadata',
    'InvokeData',
    'GraphTools',
    'GraphToolInfo',
    'DEFAULT_RECURSION_LIMIT',
    'MAX_RECURSION_LIMIT',
  ];
  // A declaration, not a name in a multi-line import (`  type GraphTools,`): the name is followed by `=`, `<`, `{`, `:` or `extends`.
  const declaration = new RegExp(`^\\s*(?:export )?(?:declare )?(?:interface|type|const|class) (${shapes.join('|')})\\b(?=\\s*(?:[=<{:]|extends\\b))`, 'm');
  const found: string[] = [];
  for (const file of ['runtime/src', 'client-sdk/src', 'server/src', 'client/src', 'common'].flatMap((dir) => listSources(dir))) {
    if (file === WIRE) continue;
    const match = declaration.exec(readFileSync(join(ROOT, file), 'utf8'));
    if (match) found.push(`${file}: ${match[1]}`);
  }
  assert.deepEqual(found, []);
});
